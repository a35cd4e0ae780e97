// UPSERT: the one call that applies an import small enough to be held by the client; and
// UPSERT_KEYED, the same under an idempotency key, whose record it checks and writes.
import type { Chunk } from "../chunk.ts";
import { type RecordArgs, recordArgv, script } from "../lua.ts";
import type { Decoders } from "../reply.ts";

/**
 * The bases of a batch (clause 7 of `commit`): id, then the digest of its base (`FoundProducts.digest`:
 * `""` when none had the id), for each id whose last add gave one.
 */
export type Bases = readonly string[];

function basesArgv(bases: Bases | undefined): (string | number)[] {
  return bases === undefined ? [0] : [bases.length / 2, ...bases];
}

// Conflicts, counts and writes of a batch already read into ids, skus, jsons and n.
const APPLY = `
local found = conflicts(K.skus, ids, skus, n)
if #found > 0 then
  table.insert(found, 1, 'conflicts')
  return found
end
local created, unchanged, changed = compare(K.products, ids, jsons, n)`;

const replies = {
  busy: null,
  stale: null,
  conflicts: (reply) => ({ conflicts: reply.conflicts() }),
  ok: (reply) => ({ created: reply.int(0), unchanged: reply.int(1) }),
} as const satisfies Decoders;

/**
 * Applies a batch that fits in one call: checks every sku, then writes, or writes nothing. It
 * declares only the site's own keys, which exist whenever the site holds products, so that it is
 * served while the site's slot migrates.
 */
export const UPSERT = script({
  name: "upsert",
  keys: ["products", "skus", "skuOf", "ids"],
  lua: `
--[[ upsert: a whole batch in one atomic call.
  ARGV[1] "1" for a dry run, else "0"; ARGV[2..] the bases (see basesHold()), then the products
  (see products())
  Returns {"busy"} while an import holds the site or is merging; {"stale"} when a stored product
  is no longer its base, with nothing written; {"conflicts", sku, id, heldBy, ...} listing every
  conflict, with nothing written; else {"ok", created, unchanged}. ]]
if busy(K.products) then return {'busy'} end
local current, at = basesHold(K.products, 2)
if not current then return {'stale'} end
local ids, skus, jsons, n = products(at)
${APPLY}
if ARGV[1] ~= '1' and #changed > 0 then write(K.products, K.skus, K.skuOf, K.ids, ids, skus, jsons, changed) end
return {'ok', created, unchanged}
`,
  args: ({ dryRun, products, bases }: { dryRun: boolean; products: Chunk; bases?: Bases | undefined }) => [
    dryRun ? "1" : "0",
    ...basesArgv(bases),
    ...products.args,
  ],
  replies,
});

/** Arguments of UPSERT_KEYED: UPSERT's, the batch possibly empty, the key to record, and whether the import holds its claim. */
export interface KeyedUpsertArgs {
  readonly dryRun: boolean;
  readonly products: Chunk | undefined;
  readonly record: RecordArgs;
  readonly claimed: boolean;
  readonly bases?: Bases | undefined;
}

/**
 * UPSERT under an idempotency key: answers the key's record instead when it has one, and writes
 * the record with the batch, in the same call. Its record key seldom exists, so while the site's
 * slot migrates Redis refuses it until the slot has moved (`ctx.call` waits).
 */
export const UPSERT_KEYED = script({
  name: "upsert-keyed",
  keys: ["products", "skus", "skuOf", "ids", "keyRecord", "keyClaim"],
  lua: `
--[[ upsert-keyed: upsert, under an idempotency key.
  ARGV[1] "1" for a dry run (the record is read, never written), else "0"  ARGV[2] the
  fingerprint, as a JSON string  ARGV[3] how long the record is kept (ms)  ARGV[4] "1" when the
  caller holds the key's claim, else "0"  ARGV[5..] the bases (see basesHold()), then the
  products (see products()), or "0" alone for none
  Returns {"recorded", record} while the key's record lives (nothing written: checked before
  the site's state, so that a retry is answered even while an import holds the site, as the
  key is checked before the bases); else {"claimed"} when the caller does not hold the key's
  claim and another does; else as upsert,
  the record written, when it applies, ahead of the products (see remember()), even when it
  changes nothing. ]]
local record = redis.call('GET', K.keyRecord)
if record then return {'recorded', record} end
if ARGV[4] == '0' and redis.call('EXISTS', K.keyClaim) == 1 then return {'claimed'} end
if busy(K.products) then return {'busy'} end
local current, at = basesHold(K.products, 5)
if not current then return {'stale'} end
local ids, skus, jsons, n = {}, {}, {}, 0
if ARGV[at] ~= '0' then ids, skus, jsons, n = products(at) end
${APPLY}
if ARGV[1] ~= '1' then
  remember(K.keyRecord, ARGV[2], ARGV[3], created, n - created - unchanged, unchanged)
  if #changed > 0 then write(K.products, K.skus, K.skuOf, K.ids, ids, skus, jsons, changed) end
end
return {'ok', created, unchanged}
`,
  args: ({ dryRun, products, record, claimed, bases }: KeyedUpsertArgs) => [
    dryRun ? "1" : "0",
    ...recordArgv(record),
    claimed ? "1" : "0",
    ...basesArgv(bases),
    ...(products?.args ?? ["0"]),
  ],
  replies: { ...replies, recorded: (reply) => ({ record: reply.record(0) }), claimed: null },
});
