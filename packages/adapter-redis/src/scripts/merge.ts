// MERGE: a committed import folded into the site, some ids per call.
import { type LockArgs, script } from "../lua.ts";

/** Folds part of a committed import into the site; readers see the same catalog before and after. */
export const MERGE = script({
  name: "merge",
  keys: ["products", "skus", "skuOf", "ids", "mergingProducts", "mergingSkus", "mergingSkuOf", "mergingIds"],
  lua: `
--[[ merge: moves products from the merging hashes into the site, under the site lock.
  ARGV[1] lock token  ARGV[2] lock ttl (ms); then ids (those not merging are skipped)
  Returns {"lost"} when the lock is not ours; else {"ok", how many products are still merging}.
  When none are, the site's merging mark is removed. ]]
if holder(K.products) ~= ARGV[1] then return {'lost'} end
hold(K.products, ARGV[1], ARGV[2])
local asked = {}
for i = 3, #ARGV do asked[i - 2] = ARGV[i] end
local ids, skus, jsons, pick = {}, {}, {}, {}
if #asked > 0 then
  local found, skuOf = hmget(K.mergingProducts, asked), hmget(K.mergingSkuOf, asked)
  local n = 0
  for i = 1, #asked do
    if found[i] then
      n = n + 1
      ids[n], skus[n], jsons[n], pick[n] = asked[i], skuOf[i], found[i], n
    end
  end
end
if #ids > 0 then
  write(K.products, K.skus, K.skuOf, K.ids, ids, skus, jsons, pick)
  bulk('HDEL', K.mergingProducts, ids)
  bulk('HDEL', K.mergingSkuOf, ids)
  bulk('HDEL', K.mergingSkus, skus)
  bulk('ZREM', K.mergingIds, ids)
end
local left = redis.call('HLEN', K.mergingProducts)
if left == 0 then
  redis.call('UNLINK', K.mergingProducts, K.mergingSkus, K.mergingSkuOf, K.mergingIds)
  redis.call('HDEL', K.products, MERGING)
end
return {'ok', left}
`,
  args: ({ token, lockTtlMs, ids }: LockArgs & { ids: readonly string[] }) => [token, lockTtlMs, ...ids],
  replies: {
    lost: null,
    ok: (reply) => ({ left: reply.int(0) }),
  },
});
