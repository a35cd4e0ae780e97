// PUBLISH: a large import made visible by renaming its keys, under the lock, after checking them.
import type { ImportCounts } from "@catalog-kit/catalog-core";
import { countsArgv, type LockArgs, type RecordArgs, recordArgv, script } from "../lua.ts";

export interface PublishArgs extends LockArgs {
  /**
   * Into the site, only when it holds no product (`empty`); in place of the site (`replace`);
   * or beside it as its merging keys, into it when it is empty (`merge`).
   */
  readonly where: "empty" | "replace" | "merge";
  /** Checks the import's keys and the site without publishing (a dry run). */
  readonly checkOnly: boolean;
  /** How many products the import's adds counted: the entries of in:products, in:sku-of and in:ids. */
  readonly products: number;
  /** How many skus they counted: the entries of in:skus. */
  readonly skus: number;
  /** How many chunks: the entries of in:pos. */
  readonly chunks: number;
  /** With `replace`, the site's size as judged. */
  readonly siteSize: number;
  /** The idempotency key to check and record with the import, and the counts it records. */
  readonly record?: (RecordArgs & { readonly counts: ImportCounts }) | undefined;
}

/** Publishes a `beginImport` import by renaming its keys, which hold it in the shape of a site. */
export const PUBLISH = script({
  name: "import-publish",
  keys: [
    "products",
    "skus",
    "skuOf",
    "ids",
    "mergingProducts",
    "mergingSkus",
    "mergingSkuOf",
    "mergingIds",
    "inProducts",
    "inSkuOf",
    "inSkus",
    "inIds",
    "inPositions",
    "keyRecord",
  ],
  lua: `
--[[ import-publish: makes a beginImport import visible in one step, under the site lock. O(1):
  four RENAMEs of its keys (and UNLINKs, which free replaced keys off the main thread, where
  RENAME over a key would free it inline). First checks that each key of the import holds what
  its adds counted (eviction) and that the site is as judged.
  ARGV[1] lock token  ARGV[2] lock ttl (ms)  ARGV[3] where to: "empty" (into the site, only when
  it holds no product: the bulk load of a new site, which needs no judging), "replace" (in place
  of the site, whose size must be ARGV[8]), or "merge" (beside the site, as its merging keys;
  into it when it is empty)  ARGV[4] "1" to publish, "0" to check only (a dry run)
  ARGV[5] how many products the import holds (in:products, in:sku-of, in:ids)  ARGV[6] how many
  skus (in:skus)  ARGV[7] how many chunks (in:pos)  ARGV[8] with "replace", the site's size as
  judged  ARGV[9] the idempotency key's fingerprint as a JSON string, or "" for no key
  ARGV[10] how long its record is kept (ms)  ARGV[11..14] the counts it records: created,
  updated, unchanged, deleted (or "")
  Returns {"lost"} (the lock is not ours, or the site is not as judged: nothing published),
  {"evicted"} (a key of the import lost entries or vanished: nothing published), {"occupied"}
  ("empty" into a site that holds products: nothing published, the caller judges the import),
  {"ok"} (published into the site or in its place, or nothing to publish, or checked only), or
  {"merging"} (published as the merging keys; the caller folds them in), or {"recorded",
  record} (the key has a record: nothing published). A publish, even of nothing, records the key
  ahead of its renames (see remember()). ]]
if holder(K.products) ~= ARGV[1] then return {'lost'} end
local keyed = ARGV[9] ~= ''
local record = keyed and redis.call('GET', K.keyRecord)
if record then return {'recorded', record} end
local n = tonumber(ARGV[5])
if redis.call('HLEN', K.inProducts) ~= n or redis.call('HLEN', K.inSkuOf) ~= n or redis.call('ZCARD', K.inIds) ~= n then
  return {'evicted'}
end
if redis.call('HLEN', K.inSkus) ~= tonumber(ARGV[6]) or redis.call('HLEN', K.inPositions) ~= tonumber(ARGV[7]) then
  return {'evicted'}
end
if redis.call('HEXISTS', K.products, MERGING) == 1 then return {'lost'} end
local mode, sites = ARGV[3], size(K.products)
hold(K.products, ARGV[1], ARGV[2])
if mode == 'empty' and sites > 0 then return {'occupied'} end
if mode == 'replace' and sites ~= tonumber(ARGV[8]) then return {'lost'} end
if ARGV[4] ~= '1' then return {'ok'} end
if keyed then remember(K.keyRecord, ARGV[9], ARGV[10], ARGV[11], ARGV[12], ARGV[13], ARGV[14]) end
if mode == 'merge' and n == 0 then return {'ok'} end
redis.call('UNLINK', K.inPositions)
return {publish(
  {K.inProducts, K.inSkus, K.inSkuOf, K.inIds},
  {K.products, K.skus, K.skuOf, K.ids},
  {K.mergingProducts, K.mergingSkus, K.mergingSkuOf, K.mergingIds},
  mode ~= 'merge' or sites == 0, n, ARGV[1], ARGV[2])}
`,
  args: (a: PublishArgs) => [
    a.token,
    a.lockTtlMs,
    a.where,
    a.checkOnly ? "0" : "1",
    a.products,
    a.skus,
    a.chunks,
    a.siteSize,
    ...recordArgv(a.record),
    ...countsArgv(a.record?.counts),
  ],
  replies: {
    lost: null,
    evicted: null,
    occupied: null,
    ok: null,
    merging: null,
    recorded: (reply) => ({ record: reply.record(0) }),
  },
});
