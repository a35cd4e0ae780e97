// BASES: whether a page of a large import's bases still hold, under the site lock.
import { type LockArgs, script } from "../lua.ts";

export interface BasesArgs extends LockArgs {
  /** How many entries in:bases holds, as the adds counted. */
  readonly based: number;
  /** Ids of in:bases (none: only the count is checked). */
  readonly ids: readonly string[];
}

/** Checks that the products of some based ids of a `beginImport` import are still their bases. */
export const BASES = script({
  name: "import-bases",
  keys: ["products", "inBases"],
  lua: `
--[[ import-bases: part of a beginImport import's commit, under the site lock, before anything
  is judged or published: the lock keeps the site as it is read here until the publish, and its
  taker folded any import still merging in first, so the site's products hash is the whole truth.
  ARGV[1] lock token  ARGV[2] lock ttl (ms)  ARGV[3] how many entries in:bases holds, as the adds
  counted  ARGV[4..] ids of in:bases
  Returns {"lost"} when the lock is not ours; {"evicted"} when in:bases lost entries; {"stale"}
  when a stored product is not its id's base; else {"ok"}. ]]
if holder(K.products) ~= ARGV[1] then return {'lost'} end
if redis.call('HLEN', K.inBases) ~= tonumber(ARGV[3]) then return {'evicted'} end
hold(K.products, ARGV[1], ARGV[2])
local ids = {}
for i = 4, #ARGV do ids[#ids + 1] = ARGV[i] end
if stale(K.products, ids, hmget(K.inBases, ids)) then return {'stale'} end
return {'ok'}
`,
  args: ({ token, lockTtlMs, based, ids }: BasesArgs) => [token, lockTtlMs, based, ...ids],
  replies: { lost: null, evicted: null, stale: null, ok: null },
});
