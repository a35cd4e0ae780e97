// INDEXED: the mark of a whole id index, set on a site once a rebuild has walked it.
import { script } from "../lua.ts";

/** Marks a site's id index as whole once a rebuild has walked the site. */
export const INDEXED = script({
  name: "indexed",
  keys: ["products", "skuOf", "ids"],
  lua: `
--[[ indexed: after reindex has been run over every field of the site's products hash and every
  member of its index. Sets the site's mark of a whole index (see INDEXED_FIELD in keys.ts) when
  the index holds as many ids as the site holds products (otherwise a writer that does not keep
  the index wrote during the rebuild, and the next list rebuilds again). An empty site needs no
  mark. Returns {"ok", 1} when marked, else {"ok", 0}. ]]
local n = size(K.products)
if n == 0 or redis.call('ZCARD', K.ids) ~= n then return {'ok', 0} end
redis.call('HSET', K.skuOf, INDEXED, '1')
return {'ok', 1}
`,
  args: (_: Record<string, never>) => [],
  replies: {
    ok: (reply) => ({ marked: reply.int(0) === 1 }),
  },
});
