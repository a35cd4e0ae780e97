// The commit of an import staged in Redis, whose products wait in the shape of a site (keys.ts,
// IncomingKeys): its own sku claims first; then, under the site lock, an import into an empty
// site is published at once by renaming its keys into the site's; into a site with products (or
// a merge's, whose bases that pass checks), one pass judges every product against the site, and
// what the import changes is renamed into the merging keys (or the import's keys in place of the
// site, for a replace).
import { type CommitResult, combineConflicts, type SkuConflict, type WriteOptions } from "@catalog-kit/catalog-core";
import { basesHold } from "./bases-hold.ts";
import type { StoreContext } from "./context.ts";
import { evictedStaging, refused, unavailable } from "./errors.ts";
import { type KeyArgs, recordOf } from "./idempotency.ts";
import { type IncomingKeys, idempotencyKeys, importKeys, type SiteKeys, type SiteScriptKeys } from "./keys.ts";
import { withLock } from "./lock.ts";
import type { Reply } from "./lua.ts";
import { mergeAll, slices } from "./merge.ts";
import { eachPage } from "./pages.ts";
import { commit, countsOf, publish, type Recorded, siteSizeOf, stagingOf, type Tally } from "./publish.ts";
import type { Unplaced } from "./reply.ts";
import { CLAIMERS } from "./scripts/import-claimers.ts";
import { HOLDERS } from "./scripts/import-holders.ts";
import { JUDGE, JUDGE_BASED, type JudgeMode } from "./scripts/import-judge.ts";
import { INCOMING_SIZES } from "./scripts/import-sizes.ts";
import { SPANS } from "./scripts/import-spans.ts";
import { WHERE } from "./scripts/import-where.ts";
import { windowed } from "./windowed.ts";

/** The keys a commit uses: the site's, its merging ones, the import's, the staging's of its lock, and its idempotency key's. */
type CommitKeys = SiteScriptKeys;

// The answer of a commit that found its idempotency key recorded.
const replay = ({ recorded }: Recorded): CommitResult => ({ applied: false, conflicts: [], recorded });

const STALE = { applied: false, conflicts: [], stale: true } as const;

/** A conflict with the first position of its id, by which the answer is ordered (the order of the import). */
type Ranked = SkuConflict & { readonly position: number; readonly first: number };

function ranked(conflicts: Ranked[]): SkuConflict[] {
  conflicts.sort((a, b) => a.first - b.first);
  return conflicts.map(({ sku, id, heldBy, position }) => ({ sku, id, heldBy, position }));
}

/**
 * Throws unless each key of the import holds as many entries as the adds counted (`dropped` of
 * the products since taken out of it as unchanged). A `volatile-*` eviction policy deletes
 * whole keys, so any loss shows as a smaller key.
 */
async function checkWhole(ctx: StoreContext, keys: IncomingKeys, tally: Tally, dropped = 0): Promise<void> {
  const sizes = await ctx.call(INCOMING_SIZES, keys, {});
  const kept = tally.ids - dropped;
  const whole =
    sizes.products === kept &&
    sizes.skuOf === kept &&
    sizes.skus === tally.claimed - dropped &&
    sizes.ids === kept &&
    sizes.positions === tally.chunks;
  if (!whole) throw evictedStaging();
}

/**
 * Builds in:spans (each id's first and last position) from the chunks' entries of in:pos, a
 * chunk per call: only a commit that answers conflicts needs positions.
 */
async function buildSpans(ctx: StoreContext, keys: IncomingKeys, tally: Tally, ttlMs: number): Promise<void> {
  function* numbers(): Generator<number> {
    for (let n = 2; n <= tally.chunks; n++) yield n;
  }
  // The first call creates in:spans; every later one checks that it is still there.
  const first = await ctx.call(SPANS, keys, { ttlMs, first: true, chunks: [1] });
  if (first.outcome === "evicted") throw refused(first);
  await windowed(slices(numbers(), 1), ctx.window, async (chunks) => {
    const reply = await ctx.call(SPANS, keys, { ttlMs, first: false, chunks });
    if (reply.outcome === "evicted") throw refused(reply);
  });
}

/** `conflicts` with the positions of their ids (in:spans is built), in the order of the import. */
async function placed(ctx: StoreContext, keys: IncomingKeys, conflicts: readonly Unplaced[]): Promise<SkuConflict[]> {
  const out: Ranked[] = [];
  await windowed(slices(conflicts, ctx.chunkSize), ctx.window, async (page) => {
    const { spans } = await ctx.call(WHERE, keys, { ids: page.map(({ id }) => id) });
    page.forEach((conflict, i) => {
      const span = spans[i];
      if (span === undefined) throw evictedStaging();
      out.push({ ...conflict, position: span.last, first: span.first });
    });
  });
  return ranked(out);
}

/**
 * The conflicts among the import's own ids: of each sku that several ids claim, every claimer
 * but the first staged one (smallest first position), which holds it. Only the claimers are
 * kept in memory, which the answer lists anyway; an id the scan returns twice is kept once.
 */
async function claimConflicts(ctx: StoreContext, keys: IncomingKeys): Promise<SkuConflict[]> {
  const claimersOf = new Map<string, Map<string, [first: number, last: number]>>();
  await eachPage(ctx, keys.inSkuOf, async (ids) => {
    const reply = await ctx.call(CLAIMERS, keys, { ids });
    for (const { id, sku, span } of reply.claimers) {
      if (span === undefined) throw evictedStaging();
      let claimers = claimersOf.get(sku);
      if (claimers === undefined) claimersOf.set(sku, (claimers = new Map()));
      claimers.set(id, [span.first, span.last]);
    }
  });
  const conflicts: Ranked[] = [];
  for (const [sku, claimers] of claimersOf) {
    let heldBy = "";
    let earliest = Number.POSITIVE_INFINITY;
    for (const [id, [first]] of claimers) {
      if (first < earliest) [heldBy, earliest] = [id, first];
    }
    for (const [id, [first, position]] of claimers) {
      if (id !== heldBy) conflicts.push({ sku, id, heldBy, position, first });
    }
  }
  return ranked(conflicts);
}

/**
 * Gives every sku of in:skus back to its one claimer, for an import in which an id moved off a
 * sku that others still claimed (in:skus lost track of who holds it). A walk of the id index,
 * a page per call; the site is not read, so it needs no lock.
 */
async function settleHolders(ctx: StoreContext, keys: IncomingKeys, ttlMs: number): Promise<void> {
  for (let after: string | undefined; ; ) {
    const reply: Reply<typeof HOLDERS> = await ctx.call(HOLDERS, keys, { ttlMs, after, limit: ctx.chunkSize });
    if (reply.outcome === "evicted") throw refused(reply);
    if (reply.seen < ctx.chunkSize) return;
    after = reply.last;
  }
}

/**
 * Under the lock, for a site that holds products: judges every product of the import against
 * the site, a page of its id index per call, then publishes. Each id is judged once (the walk
 * goes by id), so the counts are exact. What the import changes is published as the merging
 * keys, from whichever writes less (the first page decides): the import's own keys, once the
 * products it leaves unchanged are dropped from them as they are judged, or the stage: keys,
 * into which the changed ones are copied (a re-import that changes few). A replace renames the
 * import's keys in place of the site's: they hold its whole next state. Conflicts are returned
 * without their positions, which the caller looks up once the lock is released. The publishing
 * call checks and records `key` with the counts. With `bases`, each page's bases are checked
 * too (clause 7 of `commit`), against the products read for the counts anyway, and every one
 * of in:bases must have been met by the end: the walk then answers stale whatever it found.
 */
async function judgeAndPublish(
  ctx: StoreContext,
  keys: CommitKeys,
  token: string,
  tally: Tally,
  { dryRun, replace = false }: WriteOptions,
  ttlMs: number,
  { key, bases = false }: { key?: KeyArgs | undefined; bases?: boolean } = {},
): Promise<CommitResult | { unplaced: Unplaced[] }> {
  // Under the lock the site stays as it is until the commit, so its size is read once.
  const siteSize = replace ? await siteSizeOf(ctx, keys, token) : 0;
  let judged = 0;
  let created = 0;
  let unchanged = 0;
  let mode: JudgeMode = dryRun || replace ? "none" : "auto";
  let moved = 0;
  let based = 0;
  const conflicts: Unplaced[] = [];
  for (let after: string | undefined; ; ) {
    const reply: Reply<typeof JUDGE> = await ctx.call(bases ? JUDGE_BASED : JUDGE, keys, {
      token,
      lockTtlMs: ctx.lockTtlMs,
      ttlMs,
      mode: conflicts.length > 0 ? "none" : mode,
      replace,
      after,
      limit: ctx.chunkSize,
    });
    if (reply.outcome === "stale") return STALE;
    if (reply.outcome !== "ok") throw refused(reply);
    judged += reply.judged;
    based += reply.based;
    created += reply.created;
    unchanged += reply.unchanged;
    if (reply.mode === "drop" || reply.mode === "copy") mode = reply.mode;
    moved += reply.moved;
    for (const conflict of reply.conflicts) conflicts.push(conflict);
    if (reply.judged < ctx.chunkSize) break;
    after = reply.last;
  }
  // An evicted id index ends the walk early; an evicted in:bases leaves bases unmet.
  if (judged !== tally.ids || (bases && based !== tally.based)) throw evictedStaging();
  await checkWhole(ctx, keys, tally, mode === "drop" ? moved : 0);
  if (conflicts.length > 0) return { unplaced: conflicts };
  const counts = countsOf(judged, created, unchanged, replace, siteSize);
  if (dryRun) return { applied: true, counts };
  const record = key && { ...key, counts };
  // PUBLISH and COMMIT check the keys they rename before they do.
  const outcome =
    mode === "copy"
      ? await commit(ctx, keys, { token, staged: moved, record })
      : await publish(ctx, keys, token, replace ? "replace" : "merge", tally, { dropped: moved, siteSize, record });
  if (typeof outcome === "object") return replay(outcome);
  if (outcome === "merging") {
    // Committed: readers see the whole import already. If folding it in fails, the next writer
    // of the site finishes it, so the import has still succeeded.
    await mergeAll(ctx, keys, token).catch(() => {});
  }
  return { applied: true, counts };
}

/**
 * The conflicts of an import whose ids claim skus among themselves with products of the site
 * that stay: one read-only judging walk under the lock, for an answer that lists every conflict.
 * Under the lock, no record of `key` can appear: one found there is the answer instead. Another
 * import's claim was read by the commit before this walk, as clause 6 allows: only the record is read here.
 */
async function heldConflicts(
  ctx: StoreContext,
  site: SiteKeys,
  incoming: IncomingKeys,
  tally: Tally,
  ttlMs: number,
  key: KeyArgs | undefined,
): Promise<SkuConflict[] | Recorded> {
  const unplaced = await withLock(ctx, site, async (token): Promise<Unplaced[] | Recorded> => {
    const keys: CommitKeys = { ...importKeys(site, token), ...incoming, ...idempotencyKeys(site) };
    const recorded = key && (await recordOf(ctx, site, { ...key, claimed: true }));
    if (recorded !== undefined && recorded !== "claimed") return { recorded };
    if ((await siteSizeOf(ctx, keys, token)) === 0) return [];
    const judged = await judgeAndPublish(ctx, keys, token, tally, { dryRun: true }, ttlMs);
    return "unplaced" in judged ? judged.unplaced : [];
  });
  if (!Array.isArray(unplaced)) return unplaced;
  return unplaced.length === 0 ? [] : placed(ctx, incoming, unplaced);
}

/**
 * Commits an import's staging as `StagedImport.commit` says: when its own ids claim a sku twice,
 * those conflicts (found without the lock) with the skus held in the site (a read-only judging
 * walk); else, under the lock, into an empty site by renaming its keys into the site's, with no
 * judging (every product is created, and no sku of an empty site can conflict); else (or with
 * bases) judged against the site, its bases checked on the way, and published as one step.
 * Positions are gathered only to answer conflicts, without the lock.
 * With `key`, a record of it is the answer (read first, and again by the publishing call, which
 * writes it with the import). The caller drops the import's keys afterwards.
 * Fails with "nothing written" before the publishing call, "unknown" if its reply is lost.
 */
export async function commitIncoming(
  ctx: StoreContext,
  site: SiteKeys,
  incoming: SiteKeys & IncomingKeys,
  tally: Tally,
  options: WriteOptions,
  ttlMs: number,
  key?: KeyArgs,
): Promise<CommitResult> {
  const { dryRun, replace = false } = options;
  // An empty replace still empties the site, under the lock like any other; an empty import
  // under a key records it the same way.
  if (tally.ids === 0 && !replace && !key) return { applied: true, counts: { created: 0, updated: 0, unchanged: 0 } };
  try {
    // A retry is answered at once; a record written from here on is found by the calls below.
    const recorded = key && (await recordOf(ctx, site, key));
    if (recorded === "claimed") return { applied: false, conflicts: [], busy: true };
    if (recorded) return replay({ recorded });
    await checkWhole(ctx, incoming, tally);
    if (tally.contested > 0) {
      // Stale comes before conflicts; both refuse, so the two need not share one lock.
      if (tally.based > 0 && !(await withLock(ctx, site, (token) => basesHold(ctx, incoming, token, tally)))) {
        return STALE;
      }
      await buildSpans(ctx, incoming, tally, ttlMs);
      const claimed = await claimConflicts(ctx, incoming);
      // An in:skus or in:sku-of evicted during the walk would hide claimers.
      await checkWhole(ctx, incoming, tally);
      if (claimed.length === 0) throw evictedStaging();
      const held = replace ? [] : await heldConflicts(ctx, site, incoming, tally, ttlMs, key);
      if (!Array.isArray(held)) return replay(held);
      return { applied: false, conflicts: combineConflicts(held, claimed) };
    }
    if (tally.unheld > 0) await settleHolders(ctx, incoming, ttlMs);
    const result = await withLock(ctx, site, async (token) => {
      const keys: CommitKeys = { ...importKeys(site, token), ...incoming, ...idempotencyKeys(site, key?.key) };
      const bases = tally.based > 0;
      // A merge's bases are checked as it is judged, so it is judged even into an empty site,
      // where it is stale unless every base is null.
      if (!bases) {
        // Published only into an empty site: every product created.
        const counts = countsOf(tally.ids, tally.ids, 0, replace, 0);
        const record = key && { ...key, counts };
        const fast = await publish(ctx, keys, token, "empty", tally, { check: dryRun, record });
        if (typeof fast === "object") return replay(fast);
        if (fast === "ok") return { applied: true, counts } as const;
      }
      try {
        return await judgeAndPublish(ctx, keys, token, tally, options, ttlMs, { key, bases });
      } finally {
        await ctx.drop(stagingOf(keys)).catch(() => {});
      }
    });
    if (!("unplaced" in result)) return result;
    await buildSpans(ctx, incoming, tally, ttlMs);
    return { applied: false, conflicts: await placed(ctx, incoming, result.unplaced) };
  } catch (error) {
    throw unavailable(error, "commit of the import", "nothing written");
  }
}
