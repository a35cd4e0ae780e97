// BASES: whether a page of a large import's bases still hold, under the site lock.
import { type LockArgs, script } from "../lua.ts";

export interface BasesArgs extends LockArgs {
  /** How many entries in:bases holds, as the adds counted. */
  readonly based: number;
  /** Where the page starts: an HSCAN cursor of in:bases, "0" for the first. */
  readonly cursor: string;
  /** About how many entries a page holds. */
  readonly count: number;
}

/**
 * Checks that the products of a page of based ids of a `beginImport` import are still their
 * bases: the commit of an import that claims a sku twice, which answers stale before its
 * conflicts and never judges the import against the site (JUDGE_BASED checks the others).
 */
export const BASES = script({
  name: "import-bases",
  keys: ["products", "inBases"],
  lua: `
--[[ import-bases: part of a beginImport import's commit, under the site lock, before anything
  is judged or published: the lock keeps the site as it is read here until the publish, and its
  taker folded any import still merging in first, so the site's products hash is the whole truth.
  The page is read here, so that no id travels to the client and back. HSCAN may return an
  entry twice, never misses one present throughout: checking one twice is harmless.
  ARGV[1] lock token  ARGV[2] lock ttl (ms)  ARGV[3] how many entries in:bases holds, as the adds
  counted  ARGV[4] the HSCAN cursor of the page  ARGV[5] its COUNT
  Returns {"lost"} when the lock is not ours; {"evicted"} when in:bases lost entries; {"stale"}
  when a stored product is not its id's base; else {"ok", the next cursor ("0" after the last
  page)}. ]]
if holder(K.products) ~= ARGV[1] then return {'lost'} end
if redis.call('HLEN', K.inBases) ~= tonumber(ARGV[3]) then return {'evicted'} end
-- The lock is renewed before the scan: a write after a command Redis deems random is refused
-- where scripts are replicated verbatim.
hold(K.products, ARGV[1], ARGV[2])
local page = redis.call('HSCAN', K.inBases, ARGV[4], 'COUNT', ARGV[5])
local flat, ids, bases = page[2], {}, {}
for i = 1, #flat, 2 do
  ids[#ids + 1] = flat[i]
  bases[#bases + 1] = flat[i + 1]
end
if #ids > 0 and stale(K.products, ids, bases) then return {'stale'} end
return {'ok', page[1]}
`,
  args: ({ token, lockTtlMs, based, cursor, count }: BasesArgs) => [token, lockTtlMs, based, cursor, count],
  replies: { lost: null, evicted: null, stale: null, ok: (reply) => ({ cursor: reply.text(0) }) },
});
