// LIST: a page of a site in id order, read from its id index.
import { lexAfter, script } from "../lua.ts";

/** A page of a site: its first `limit` products after the id `after` (from the first when undefined). */
export interface ListArgs {
  readonly after: string | undefined;
  readonly limit: number;
  /** Whether an index as large as the products hash is trusted without the mark of a whole index. */
  readonly sizesSuffice: boolean;
}

/** A page of the site's products in id order, unless a committed import is still merging. */
export const LIST = script({
  name: "list",
  keys: ["products", "ids", "skuOf"],
  lua: `
--[[ list: reads only. A page of the site's products in the order of their ids' bytes.
  ARGV[1] where the page starts, as ZRANGEBYLEX takes it: "-" from the first id, "(<id>" after
  <id> (see lexAfter)  ARGV[2] most products  ARGV[3] "1" when equal sizes must do (see
  indexed()), else "0"
  Returns {"ok", the products' JSON in id order...}; {"merging"} while a committed import is still
  merging (then list-merging reads through it); {"unindexed"} when the id index is not known to
  hold exactly the site's ids (see indexed(): the caller rebuilds it). Declares only keys that
  exist whenever the site holds products, so that it is served while the site's slot migrates.
  Costs one ZRANGEBYLEX and one HMGET of ARGV[2] entries, whatever the site's size. ]]
if redis.call('HEXISTS', K.products, MERGING) == 1 then return {'merging'} end
if not indexed(K.products, K.ids, K.skuOf, ARGV[3] == '1') then return {'unindexed'} end
local ids = redis.call('ZRANGEBYLEX', K.ids, ARGV[1], '+', 'LIMIT', 0, tonumber(ARGV[2]))
if #ids == 0 then return {'ok'} end
local jsons = hmget(K.products, ids)
for i = 1, #ids do
  if not jsons[i] then return {'unindexed'} end
end
table.insert(jsons, 1, 'ok')
return jsons
`,
  args: ({ after, limit, sizesSuffice }: ListArgs) => [lexAfter(after), limit, sizesSuffice ? "1" : "0"],
  replies: {
    merging: null,
    unindexed: null,
    ok: (reply) => ({ products: reply.products() }),
  },
});
