// LIST_MERGING: LIST for a site with a committed import on top of it, still merging.
import { lexAfter, script } from "../lua.ts";
import type { ListArgs } from "./list.ts";

/** LIST through a committed import that is still merging. */
export const LIST_MERGING = script({
  name: "list-merging",
  keys: ["products", "ids", "skuOf", "mergingProducts", "mergingIds"],
  lua: `
--[[ list-merging: as list, for a site with a committed import still merging, which lies on top
  of the site (its products win; a merge never deletes). The page is the first ARGV[2] ids of
  the union of both indexes, which lie within the first ARGV[2] of each: two ZRANGEBYLEX, merged.
  Returns {"ok", the products' JSON in id order...}, or {"unindexed"}. ]]
if not indexed(K.products, K.ids, K.skuOf, ARGV[3] == '1') or redis.call('ZCARD', K.mergingIds) ~= redis.call('HLEN', K.mergingProducts) then
  return {'unindexed'}
end
local limit = tonumber(ARGV[2])
local site = redis.call('ZRANGEBYLEX', K.ids, ARGV[1], '+', 'LIMIT', 0, limit)
local top = redis.call('ZRANGEBYLEX', K.mergingIds, ARGV[1], '+', 'LIMIT', 0, limit)
-- picked[k] is an id; fromTop[k] whether it is read from the merging hash.
local picked, fromTop, i, j = {}, {}, 1, 1
while #picked < limit and (site[i] or top[j]) do
  local a, b = site[i], top[j]
  local k = #picked + 1
  if b and (not a or a == b or before(b, a)) then
    picked[k], fromTop[k] = b, true
    if a == b then i = i + 1 end
    j = j + 1
  else
    picked[k], fromTop[k] = a, false
    i = i + 1
  end
end
local ofSite, ofTop = {}, {}
for k = 1, #picked do
  if fromTop[k] then ofTop[#ofTop + 1] = picked[k] else ofSite[#ofSite + 1] = picked[k] end
end
local siteJsons, topJsons = hmget(K.products, ofSite), hmget(K.mergingProducts, ofTop)
local out, s, t = {'ok'}, 1, 1
for k = 1, #picked do
  local json
  if fromTop[k] then
    json, t = topJsons[t], t + 1
  else
    json, s = siteJsons[s], s + 1
  end
  if not json then return {'unindexed'} end
  out[k + 1] = json
end
return out
`,
  args: ({ after, limit, sizesSuffice }: ListArgs) => [lexAfter(after), limit, sizesSuffice ? "1" : "0"],
  replies: {
    unindexed: null,
    ok: (reply) => ({ products: reply.products() }),
  },
});
