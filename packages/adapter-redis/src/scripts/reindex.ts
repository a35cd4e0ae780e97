// REINDEX: the rebuild of an id index that lacks ids, a page of fields per call.
import { script } from "../lua.ts";

/** Makes an id index agree with its products hash for some fields: rebuilds an index page by page. */
export const REINDEX = script({
  name: "reindex",
  keys: ["products", "ids"],
  lua: `
--[[ reindex: for each field given, adds it to the id index when the products hash holds a
  product under it, else removes it from the index. Run over every field of the products hash
  (HSCAN) and every member of the index (ZSCAN), it rebuilds the index of a site written before
  the index existed, or by an older version of the store, while writers keep it as they always
  do. Also run on the merging hashes (their keys passed as products and ids).
  ARGV[1..] fields (a page of a scan). Returns {"ok", how many fields it looked at}. ]]
local asked = {}
for i = 1, #ARGV do asked[i] = ARGV[i] end
if #asked == 0 then return {'ok', 0} end
local found, add, gone = hmget(K.products, asked), {}, {}
for i = 1, #asked do
  -- State fields are the site's, never products.
  if found[i] and not reserved(asked[i]) then
    add[#add + 1] = 0
    add[#add + 1] = asked[i]
  else
    gone[#gone + 1] = asked[i]
  end
end
if #add > 0 then bulk('ZADD', K.ids, add) end
if #gone > 0 then bulk('ZREM', K.ids, gone) end
return {'ok', #asked}
`,
  args: ({ fields }: { fields: readonly string[] }) => fields,
  replies: {
    ok: (reply) => ({ looked: reply.int(0) }),
  },
});
