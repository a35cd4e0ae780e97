// JUDGE: a page of a large import judged against the site under the lock: counts, conflicts, and
// what its commit will publish.
import type { KeyName } from "../keys.ts";
import { type LockArgs, lexAfter, type ScriptDefinition, script } from "../lua.ts";
import type { Decoders } from "../reply.ts";

const MODES = ["drop", "copy", "auto", "none"] as const;

/**
 * How a judging pass readies what the import changes for publishing: drop the unchanged products
 * from the import's keys, copy the changed ones into the stage: keys, let the first page pick
 * (auto), or neither (a dry run, a replace, or once a conflict is found).
 */
export type JudgeMode = (typeof MODES)[number];

export interface JudgeArgs extends LockArgs {
  /** How long the import's keys, and the staging, live after this call. */
  readonly ttlMs: number;
  readonly mode: JudgeMode;
  /** Whether the import replaces the site: no sku of the site is then a conflict. */
  readonly replace: boolean;
  /** The page starts after this id; from the first when undefined. */
  readonly after: string | undefined;
  readonly limit: number;
}

const definition = {
  name: "import-judge",
  keys: [
    "products",
    "skus",
    "stageProducts",
    "stageSkus",
    "stageSkuOf",
    "stageIds",
    "inProducts",
    "inSkuOf",
    "inSkus",
    "inIds",
    "inPositions",
  ] as const,
  lua: `
--[[ import-judge: part of a beginImport import's commit into a site that holds products, under
  the site lock; the import claims no sku twice and in:skus names every sku's claimer (commit
  saw to both first). Judges a page of the import's ids, in the order of its id index: counts
  each against the site, and finds skus held by a product of the site that the import does not
  name. Each id is judged once: the walk goes by id, never by a scan. Then, to publish what the
  import changes as the merging keys, either drops the products it leaves unchanged from its
  keys, which then hold exactly what it changes ("drop"), or copies the changed ones into the
  stage: keys ("copy"), whichever writes less: "auto" (the first page) picks by that page.
  ARGV[1] lock token  ARGV[2] lock ttl (ms)  ARGV[3] ttl of the import's keys and of the staging
  (ms)  ARGV[4] "drop", "copy", "auto", or "none" (a dry run, a replace, or a conflict was found)
  ARGV[5] "1" when the import replaces the site (no sku of the site is then a conflict: every
  one the import does not take is freed), else "0"  ARGV[6] where the page starts, as
  ZRANGEBYLEX takes it ("-", or "(<id>" after <id>: see lexAfter)  ARGV[7] most ids
  With in:bases declared (a merge's import), also checks the bases of the page's ids against
  the stored products it reads for the counts anyway (clause 7 of commit): the lock keeps the
  site as checked until the publish, which follows the last page, and a stale base on any page
  refuses the import (whatever earlier pages dropped or copied, the caller drops the staging).
  Returns {"lost"} when the lock is not ours; {"evicted"} when an id has lost its product or
  sku; {"stale"} when a stored product is not its id's base; else {"ok", judged, created,
  unchanged, the mode applied, products dropped or copied, the last id judged or "", entries
  of in:bases found, sku, id, heldBy, ...} where each triple is a conflict (the commit finds
  its positions afterwards). ]]
if holder(K.products) ~= ARGV[1] then return {'lost'} end
hold(K.products, ARGV[1], ARGV[2])
local ids = redis.call('ZRANGEBYLEX', K.inIds, ARGV[6], '+', 'LIMIT', 0, tonumber(ARGV[7]))
local n = #ids
if n == 0 then return {'ok', 0, 0, 0, ARGV[4], 0, '', 0} end
local jsons, skus = hmget(K.inProducts, ids), hmget(K.inSkuOf, ids)
for i = 1, n do
  if not jsons[i] or not skus[i] then return {'evicted'} end
end
local olds, based = hmget(K.products, ids), 0
if K.inBases then
  local bases = hmget(K.inBases, ids)
  for i = 1, n do
    if bases[i] then
      based = based + 1
      if differs(olds[i], bases[i]) then return {'stale'} end
    end
  end
end
local conflicts = {}
if ARGV[5] ~= '1' then
  -- A holder the import names moves to a new sku (the import claims none twice), so only
  -- holders it does not name conflict. A holder it names is never dropped as unchanged (its sku
  -- changes), so in:sku-of still names it.
  local holders, others, at = hmget(K.skus, skus), {}, {}
  for i = 1, n do
    local h = holders[i]
    if h and h ~= ids[i] then
      others[#others + 1] = h
      at[#at + 1] = i
    end
  end
  if #others > 0 then
    local named = hmget(K.inSkuOf, others)
    for j = 1, #others do
      if not named[j] then
        local i = at[j]
        for _, v in ipairs({skus[i], ids[i], others[j]}) do conflicts[#conflicts + 1] = v end
      end
    end
  end
end
local created, unchanged, changed = compare(K.products, ids, jsons, n, olds)
local mode, moved = ARGV[4], 0
if #conflicts > 0 then mode = 'none' end
if mode == 'auto' then mode = unchanged > #changed and 'copy' or 'drop' end
if mode == 'drop' and unchanged > 0 then
  local kept, gone, goneSkus = {}, {}, {}
  for _, i in ipairs(changed) do kept[i] = true end
  for i = 1, n do
    if not kept[i] then
      gone[#gone + 1] = ids[i]
      goneSkus[#goneSkus + 1] = skus[i]
    end
  end
  bulk('HDEL', K.inProducts, gone)
  bulk('HDEL', K.inSkuOf, gone)
  bulk('HDEL', K.inSkus, goneSkus)
  bulk('ZREM', K.inIds, gone)
  moved = #gone
elseif mode == 'copy' and #changed > 0 then
  write(K.stageProducts, K.stageSkus, K.stageSkuOf, K.stageIds, ids, skus, jsons, changed, true)
  for _, k in ipairs({K.stageProducts, K.stageSkus, K.stageSkuOf, K.stageIds}) do redis.call('PEXPIRE', k, ARGV[3]) end
  moved = #changed
end
for _, k in ipairs({K.inProducts, K.inSkuOf, K.inSkus, K.inIds, K.inPositions}) do redis.call('PEXPIRE', k, ARGV[3]) end
local out = {'ok', n, created, unchanged, mode, moved, ids[n], based}
for _, v in ipairs(conflicts) do out[#out + 1] = v end
return out
`,
  args: ({ token, lockTtlMs, ttlMs, mode, replace, after, limit }: JudgeArgs) => [
    token,
    lockTtlMs,
    ttlMs,
    mode,
    replace ? "1" : "0",
    lexAfter(after),
    limit,
  ],
  replies: {
    lost: null,
    evicted: null,
    stale: null,
    ok: (reply) => ({
      judged: reply.int(0),
      created: reply.int(1),
      unchanged: reply.int(2),
      mode: reply.oneOf(3, MODES),
      moved: reply.int(4),
      last: reply.text(5),
      based: reply.int(6),
      conflicts: reply.conflicts(7),
    }),
  },
} satisfies ScriptDefinition<KeyName, JudgeArgs, Decoders>;

/** Judges a page of a `beginImport` import against a site with products, under the lock. */
export const JUDGE = script({ ...definition, keys: [...definition.keys] });

/**
 * JUDGE for a merge's import, which checks its bases too. Only it declares in:bases: while the
 * site's slot migrates, Redis refuses a script declaring a key that does not exist, and an
 * import without bases never has one.
 */
export const JUDGE_BASED = script({ ...definition, name: "import-judge-based", keys: [...definition.keys, "inBases"] });
