// REMOVE_MERGING: REMOVE through an unfinished merge, deleting only, for when Redis is out of memory.
import { script } from "../lua.ts";
import { REMOVE_CALL } from "./remove.ts";

/** REMOVE through a committed import that is still merging, without the lock. */
export const REMOVE_MERGING = script({
  name: "remove-merging",
  keys: ["products", "skus", "skuOf", "ids", "mergingProducts", "mergingSkus", "mergingSkuOf", "mergingIds"],
  lua: `
--[[ remove-merging: as remove, for a site with a committed import still merging, when its merge
  cannot be finished first: that takes the lock, an HSET, which Redis refuses when out of memory,
  and a remove is how memory is freed. Deletes the product find-merging finds from both layers
  (the merging keys, which lie on top, and the site's), freeing its sku in each, so that find,
  list and the merge all see it gone; a merge left with nothing to fold in is ended. Writes only
  with HDEL, ZREM and UNLINK, which Redis allows when out of memory.
  ARGV[1] key  ARGV[2] "id", "sku" or "" (id, then sku)  ARGV[3] as remove's
  Returns {"busy"} while an import holds the site; the matched product's JSON (as find returned
  it; removed, unless ARGV[3] says otherwise), or nil when nothing matched. ]]
if holder(K.products) then return {'busy'} end
local key, by = ARGV[1], ARGV[2]
if reserved(key) then return false end
local id, json = false, false
if by ~= 'sku' then
  json = redis.call('HGET', K.mergingProducts, key) or redis.call('HGET', K.products, key)
  if json then id = key end
end
if not id and by ~= 'id' then
  local held = redis.call('HGET', K.mergingSkus, key)
  if held then
    json = redis.call('HGET', K.mergingProducts, held)
  else
    held = redis.call('HGET', K.skus, key)
    if held and redis.call('HEXISTS', K.mergingProducts, held) == 0 then json = redis.call('HGET', K.products, held) end
  end
  if json then id = held end
end
if not id then return false end
if ARGV[3] ~= '' and json ~= ARGV[3] then return json end
for _, layer in ipairs({
  {K.products, K.skus, K.skuOf, K.ids},
  {K.mergingProducts, K.mergingSkus, K.mergingSkuOf, K.mergingIds},
}) do
  local sku = redis.call('HGET', layer[3], id)
  redis.call('HDEL', layer[1], id)
  redis.call('HDEL', layer[3], id)
  redis.call('ZREM', layer[4], id)
  if sku and redis.call('HGET', layer[2], sku) == id then redis.call('HDEL', layer[2], sku) end
end
if redis.call('HLEN', K.mergingProducts) == 0 then
  redis.call('UNLINK', K.mergingProducts, K.mergingSkus, K.mergingSkuOf, K.mergingIds)
  redis.call('HDEL', K.products, MERGING)
end
if size(K.products) == 0 then redis.call('HDEL', K.skuOf, INDEXED) end
return json
`,
  ...REMOVE_CALL,
});
