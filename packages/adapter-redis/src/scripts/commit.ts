// COMMIT: the publishing of the stage: keys, which a judging pass filled with what an import changes.
import type { ImportCounts } from "@catalog-kit/catalog-core";
import { countsArgv, type LockArgs, type RecordArgs, recordArgv, script } from "../lua.ts";

export interface CommitArgs extends LockArgs {
  /** How many products the stage: keys hold. */
  readonly staged: number;
  /** The site's size as judged, when the staging holds the site's whole next state (a replace). */
  readonly siteSize?: number | undefined;
  /** The idempotency key to check and record with the import, and the counts it records. */
  readonly record?: (RecordArgs & { readonly counts: ImportCounts }) | undefined;
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
    "keyRecord",
  ],
  lua: `
--[[ commit: publishes a staged import, under the site lock. O(1): four RENAMEs (and UNLINKs,
  which free replaced keys off the main thread, where RENAME over a key would free it inline).
  ARGV[1] lock token  ARGV[2] lock ttl (ms)  ARGV[3] how many products were staged
  ARGV[4] "" to add the staging to the site, or the site's size when the staging holds the
  site's whole next state (it replaces the site; with nothing staged, the site is emptied)
  ARGV[5] the idempotency key's fingerprint as a JSON string, or "" for no key  ARGV[6] how long
  its record is kept (ms)  ARGV[7..10] the counts it records: created, updated, unchanged,
  deleted (or "")
  Returns {"lost"} (the lock is not ours, or the site is not as judged: nothing published),
  {"evicted"} (a staging key lost entries or vanished, as eviction does: nothing published),
  {"ok"} (published into an empty site, or in place of the site, or nothing to publish), or
  {"merging"} (published as the merging keys; the caller folds them in), or {"recorded",
  record} (the key has a record: nothing published). A publish, even of nothing, records the key
  ahead of its renames (see remember()). ]]
if holder(K.products) ~= ARGV[1] then return {'lost'} end
local keyed = ARGV[5] ~= ''
local record = keyed and redis.call('GET', K.keyRecord)
if record then return {'recorded', record} end
local function keep()
  if keyed then remember(K.keyRecord, ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10]) end
end
local n = tonumber(ARGV[3])
local replace = ARGV[4] ~= ''
if n == 0 and not replace then
  keep()
  return {'ok'}
end
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
keep()
return {publish(
  {K.stageProducts, K.stageSkus, K.stageSkuOf, K.stageIds},
  {K.products, K.skus, K.skuOf, K.ids},
  {K.mergingProducts, K.mergingSkus, K.mergingSkuOf, K.mergingIds},
  sites == 0, n, ARGV[1], ARGV[2])}
`,
  args: ({ token, lockTtlMs, staged, siteSize, record }: CommitArgs) => [
    token,
    lockTtlMs,
    staged,
    siteSize ?? "",
    ...recordArgv(record),
    ...countsArgv(record?.counts),
  ],
  replies: { lost: null, evicted: null, ok: null, merging: null, recorded: (reply) => ({ record: reply.record(0) }) },
});
