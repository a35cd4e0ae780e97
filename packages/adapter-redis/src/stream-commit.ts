// The commit of a `beginImport` import, whose products wait in Redis (keys.ts, IncomingKeys): its
// own sku claims first, then one pass that judges every product against the site under the lock
// and stages what would change (and, for an import that replaces the site, a pass that copies in
// the products it leaves unchanged), then the O(1) COMMIT that upsert's staged imports use.
import type { SkuConflict, UpsertResult, WriteOptions } from "@catalog-kit/catalog-core";
import type { StoreContext } from "./context.ts";
import { evictedStaging, lostLock, unavailable } from "./errors.ts";
import { type IncomingKeys, importKeys, type ScriptKeys, type SiteKeys } from "./keys.ts";
import { withLock } from "./lock.ts";
import { mergeAll } from "./merge.ts";
import { eachPage } from "./pages.ts";
import { CHECK, CLAIMERS, INCOMING_SIZES } from "./scripts.ts";
import { backfillSlice, commit, countsOf, siteSizeOf, stagingOf } from "./staged-import.ts";

/** What an import's adds counted, summed from their replies: numbers, never the ids. */
export interface Tally {
  /** Distinct ids staged: the entries of in:products, in:sku-of and in:pos. */
  ids: number;
  /** Skus some staged id claims: the entries of in:claims. */
  claimed: number;
  /** Skus more than one staged id claims. */
  contested: number;
}

/** A conflict with the first position of its id, by which the answer is ordered (the order of the import). */
type Ranked = SkuConflict & { readonly position: number; readonly first: number };

function ranked(conflicts: Ranked[]): SkuConflict[] {
  conflicts.sort((a, b) => a.first - b.first);
  return conflicts.map(({ sku, id, heldBy, position }) => ({ sku, id, heldBy, position }));
}

/**
 * Throws unless each hash of the import holds as many entries as the adds counted (`judged` of
 * them already moved out of in:products). A `volatile-*` eviction policy deletes whole keys, so
 * any loss shows as a smaller hash.
 */
async function checkWhole(ctx: StoreContext, keys: IncomingKeys, tally: Tally, judged: number): Promise<void> {
  const [products, skuOf, positions, claims] = (await ctx.run(INCOMING_SIZES, keys, [])) as number[];
  const whole = [tally.ids - judged, tally.ids, tally.ids, tally.claimed];
  if ([products, skuOf, positions, claims].some((size, i) => size !== whole[i])) throw evictedStaging();
}

/**
 * The conflicts among the import's own ids: of each sku that several ids claim, every claimer
 * but the first staged one (smallest first position), which holds it. Only the claimers are
 * kept in memory, which the answer lists anyway; an id the scan returns twice is kept once.
 */
async function claimConflicts(ctx: StoreContext, keys: IncomingKeys): Promise<SkuConflict[]> {
  const claimersOf = new Map<string, Map<string, [first: number, last: number]>>();
  await eachPage(ctx, keys.inSkuOf, async (ids) => {
    const reply = (await ctx.run(CLAIMERS, keys, ids)) as string[];
    for (let i = 0; i < reply.length; i += 4) {
      const sku = reply[i + 1] as string;
      let claimers = claimersOf.get(sku);
      if (claimers === undefined) claimersOf.set(sku, (claimers = new Map()));
      claimers.set(reply[i] as string, [Number(reply[i + 2]), Number(reply[i + 3])]);
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
 * Under the lock: judges every product of the import against the site, page by page, staging
 * the changed ones (unless dry run, or once a conflict is found), then publishes the staging.
 * Each product is judged once (CHECK moves it out of in:products), so the counts are exact.
 * An import that replaces the site and deletes some of its products has the products it leaves
 * unchanged copied into the staging (a second walk of its ids), which then replaces the site.
 */
async function judgeAndPublish(
  ctx: StoreContext,
  keys: ScriptKeys,
  token: string,
  tally: Tally,
  { dryRun, replace = false }: WriteOptions,
  ttlMs: number,
): Promise<UpsertResult> {
  // Under the lock the site stays as it is until the commit, so its size is read once.
  const siteSize = replace ? await siteSizeOf(ctx, keys, token) : 0;
  let judged = 0;
  let created = 0;
  let unchanged = 0;
  let staged = 0;
  const conflicts: Ranked[] = [];
  await eachPage(ctx, keys.inSkuOf, async (ids) => {
    const stage = dryRun || conflicts.length > 0 ? "0" : "1";
    const args = [token, ctx.lockTtlMs, 2 * ctx.lockTtlMs, ttlMs, stage, replace ? "1" : "0", ...ids];
    const reply = (await ctx.run(CHECK, keys, args)) as (string | number)[];
    if (reply[0] === "lost") throw lostLock();
    if (reply[0] === "evicted") throw evictedStaging();
    judged += reply[1] as number;
    created += reply[2] as number;
    unchanged += reply[3] as number;
    staged += reply[4] as number;
    for (let i = 5; i < reply.length; i += 5) {
      const [sku, id, heldBy, first, last] = reply.slice(i, i + 5) as string[];
      conflicts.push({ sku, id, heldBy, position: Number(last), first: Number(first) } as Ranked);
    }
  });
  // The scan walks in:sku-of: an evicted in:products leaves ids unjudged, an evicted in:sku-of
  // ends the walk early, an evicted in:pos leaves conflicts without positions.
  if (judged !== tally.ids) throw evictedStaging();
  await checkWhole(ctx, keys, tally, judged);
  if (conflicts.length > 0) return { applied: false, conflicts: ranked(conflicts) };
  const counts = countsOf(judged, created, unchanged, replace, siteSize);
  if (dryRun) return { applied: true, counts };
  // A replace that deletes nothing is an upsert, merged like one.
  const whole = replace && counts.deleted !== 0;
  if (whole && unchanged > 0) await eachPage(ctx, keys.inSkuOf, (ids) => backfillSlice(ctx, keys, token, ids));
  // COMMIT checks the staging hashes themselves before it publishes them.
  const outcome = await commit(ctx, keys, token, whole ? [judged, siteSize] : [staged, ""]);
  if (outcome === "merge") {
    // Committed: readers see the whole import already. If folding it in fails, the next writer
    // of the site finishes it, so the import has still succeeded.
    await mergeAll(ctx, keys, token).catch(() => {});
  }
  return { applied: true, counts };
}

/**
 * Commits an import's staging as `StagedImport.commit` says: conflicts among its own ids alone
 * when there are any (found without the lock: they do not depend on the site), else judged
 * against the site and published as one step. The caller drops the import's keys afterwards.
 * Fails with "nothing written" before the COMMIT call, "unknown" if that call's reply is lost.
 */
export async function commitIncoming(
  ctx: StoreContext,
  site: SiteKeys,
  incoming: SiteKeys & IncomingKeys,
  tally: Tally,
  options: WriteOptions,
  ttlMs: number,
): Promise<UpsertResult> {
  // An empty replace still empties the site, under the lock like any other.
  if (tally.ids === 0 && !options.replace) return { applied: true, counts: { created: 0, updated: 0, unchanged: 0 } };
  try {
    await checkWhole(ctx, incoming, tally, 0);
    if (tally.contested > 0) {
      const conflicts = await claimConflicts(ctx, incoming);
      // A claims or positions hash evicted during the walk would hide claimers or positions.
      await checkWhole(ctx, incoming, tally, 0);
      if (conflicts.length === 0) throw evictedStaging();
      return { applied: false, conflicts };
    }
    return await withLock(ctx, site, async (token) => {
      const keys: ScriptKeys = { ...importKeys(site, token), ...incoming };
      try {
        return await judgeAndPublish(ctx, keys, token, tally, options, ttlMs);
      } finally {
        await ctx.drop(stagingOf(keys)).catch(() => {});
      }
    });
  } catch (error) {
    throw unavailable(error, "commit of the import", "nothing written");
  }
}
