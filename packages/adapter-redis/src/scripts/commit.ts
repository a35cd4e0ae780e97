// COMMIT: the publishing of the stage: keys, which a judging pass filled with what an import changes.
import { type LockArgs, script } from "../lua.ts";

export interface CommitArgs extends LockArgs {
  /** How many products the stage: keys hold. */
  readonly staged: number;
  /** The site's size as judged, when the staging holds the site's whole next state (a replace). */
  readonly siteSize?: number | undefined;
}

/** Makes a staged import visible in one step, without copying it. */
export const COMMIT = script({
  name: "commit",
  keys: [
    "products",
    "skus",
    "skuOf",
    "ids",
    "stageProducts",
    "stageSkus",
    "stageSkuOf",
    "stageIds",
    "mergingProducts",
    "mergingSkus",
    "mergingSkuOf",
    "mergingIds",
  ],
  lua: `
--[[ commit: publishes a staged import, under the site lock. O(1): four RENAMEs (and UNLINKs,
  which free replaced keys off the main thread, where RENAME over a key would free it inline).
  ARGV[1] lock token  ARGV[2] lock ttl (ms)  ARGV[3] how many products were staged
  ARGV[4] "" to add the staging to the site, or the site's size when the staging holds the
  site's whole next state (it replaces the site; with nothing staged, the site is emptied)
  Returns {"lost"} (the lock is not ours, or the site is not as judged: nothing published),
  {"evicted"} (a staging key lost entries or vanished, as eviction does: nothing published),
  {"ok"} (published into an empty site, or in place of the site, or nothing to publish), or
  {"merging"} (published as the merging keys; the caller folds them in). ]]
if holder(K.products) ~= ARGV[1] then return {'lost'} end
local n = tonumber(ARGV[3])
local replace = ARGV[4] ~= ''
if n == 0 and not replace then return {'ok'} end
-- Each staged product has one entry in each staging key (the skus of a batch are distinct).
for _, k in ipairs({K.stageProducts, K.stageSkus, K.stageSkuOf}) do
  if redis.call('HLEN', k) ~= n then return {'evicted'} end
end
if redis.call('ZCARD', K.stageIds) ~= n then return {'evicted'} end
if redis.call('HEXISTS', K.products, MERGING) == 1 then return {'lost'} end
local sites = size(K.products)
if replace then
  if sites ~= tonumber(ARGV[4]) then return {'lost'} end
  sites = 0
end
return {publish(
  {K.stageProducts, K.stageSkus, K.stageSkuOf, K.stageIds},
  {K.products, K.skus, K.skuOf, K.ids},
  {K.mergingProducts, K.mergingSkus, K.mergingSkuOf, K.mergingIds},
  sites == 0, n, ARGV[1], ARGV[2])}
`,
  args: ({ token, lockTtlMs, staged, siteSize }: CommitArgs) => [token, lockTtlMs, staged, siteSize ?? ""],
  replies: { lost: null, evicted: null, ok: null, merging: null },
});
