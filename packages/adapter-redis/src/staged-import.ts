// Imports larger than one script call: staged out of sight under the site lock, then published in
// one O(1) step.
import type { Product, SkuConflict, UpsertCounts, UpsertResult, WriteOptions } from "@catalog-kit/catalog-core";
import type { Chunk } from "./chunk.ts";
import type { StoreContext } from "./context.ts";
import { evictedStaging, lostLock, unavailable } from "./errors.ts";
import { type ImportKeys, importKeys, type SiteKeys } from "./keys.ts";
import { withLock } from "./lock.ts";
import { mergeIds, slices } from "./merge.ts";
import { BACKFILL, COMMIT, SITE_SIZE, STAGE } from "./scripts.ts";
import { windowed } from "./windowed.ts";

/**
 * Applies a batch too large for one script call, all-or-nothing, without ever blocking Redis
 * for longer than one chunk takes:
 *
 * 1. Take the site lock (`lock.ts`). One-call writes of the site wait while it is held, so the
 *    site cannot change under the import; readers never wait.
 * 2. Stage: each chunk is checked against the site (sku conflicts, created/updated/unchanged)
 *    and its changed products are written to staging hashes named by the lock's token, under
 *    the site's hash tag, with a TTL. Nothing is visible yet.
 * 3. With any conflict, or for a dry run, drop the staging: nothing was ever visible.
 * 4. Commit, in one O(1) call that first checks that every staged product is still there (a
 *    `volatile-*` eviction policy may have deleted a staging hash): RENAME the staging into the
 *    site (when the site is empty, or when the batch replaces it whole) or into the site's
 *    merging hashes, which readers see on top of the site from that call on. A batch that
 *    replaces the site (`replace`, or a full sync that changes most products) first has the
 *    products it leaves unchanged copied into the staging (BACKFILL), which then holds the
 *    site's whole next state; the products it does not name go with the old keys.
 * 5. Merge, chunk by chunk, the merging hashes into the site. Each call moves some products and
 *    leaves what readers see unchanged.
 *
 * A failure before step 4 publishes nothing (staging expires on its own). A failure after step
 * 4 loses nothing: the batch is visible, and the next writer of the site, finding the lock
 * free and a merge unfinished, completes it. Only a lost reply to step 4 leaves the outcome
 * unknown, and the error says so.
 *
 * `chunks` are those of `products`, whose ids are distinct.
 */
export function stagedImport(
  ctx: StoreContext,
  site: SiteKeys,
  chunks: Iterable<Chunk>,
  products: readonly Product[],
  options: WriteOptions,
): Promise<UpsertResult> {
  return withLock(ctx, site, async (token) => {
    const keys = importKeys(site, token);
    try {
      return await stageAndCommit(ctx, keys, token, chunks, products, options);
    } finally {
      await ctx.drop(stagingOf(keys)).catch(() => {});
    }
  });
}

/** The staging keys of an import, which every path drops (they expire anyway). */
export function stagingOf(keys: ImportKeys): string[] {
  return [keys.stageProducts, keys.stageSkus, keys.stageSkuOf, keys.stageIds];
}

/**
 * The counts of an import judged against a site of `siteSize` products, with `deleted` only
 * when the batch replaces the site: the site's products it does not name (`total - created`
 * of them it does name).
 */
export function countsOf(
  total: number,
  created: number,
  unchanged: number,
  replace: boolean,
  siteSize: number,
): UpsertCounts {
  const counts = { created, updated: total - created - unchanged, unchanged };
  return replace ? { ...counts, deleted: siteSize - (total - created) } : counts;
}

/** How many products the site holds, read under the lock `token` holds. */
export async function siteSizeOf(ctx: StoreContext, keys: SiteKeys, token: string): Promise<number> {
  const size = (await ctx.run(SITE_SIZE, keys, [token, ctx.lockTtlMs])) as number;
  if (size < 0) throw lostLock();
  return size;
}

async function stageAndCommit(
  ctx: StoreContext,
  keys: ImportKeys,
  token: string,
  chunks: Iterable<Chunk>,
  products: readonly Product[],
  { dryRun, replace = false }: WriteOptions,
): Promise<UpsertResult> {
  let total = 0;
  let created = 0;
  let unchanged = 0;
  let siteSize = 0;
  const conflicts: SkuConflict[] = [];
  let inBatch: ReadonlySet<string> | undefined;
  try {
    await windowed(chunks, ctx.window, async (chunk) => {
      const reply = (await ctx.run(STAGE, keys, [
        token,
        ctx.lockTtlMs,
        2 * ctx.lockTtlMs,
        dryRun ? "0" : "1",
        replace ? "1" : "0",
        ...chunk.args,
      ])) as (string | number)[];
      if (reply[0] !== "ok") throw lostLock();
      total += chunk.count;
      created += reply[1] as number;
      unchanged += reply[2] as number;
      siteSize = reply[3] as number;
      if (reply.length > 4) inBatch ??= new Set(idsOf(products));
      for (let i = 4; i < reply.length; i += 3) {
        const heldBy = reply[i + 2] as string;
        if (!inBatch?.has(heldBy)) conflicts.push({ sku: reply[i] as string, id: reply[i + 1] as string, heldBy });
      }
    });
    if (conflicts.length > 0) return { applied: false, conflicts };
    // An empty batch staged no chunk, and no chunk told the site's size.
    if (total === 0 && replace) siteSize = await siteSizeOf(ctx, keys, token);
    const counts = countsOf(total, created, unchanged, replace, siteSize);
    if (dryRun) return { applied: true, counts };

    // The staging holds the changed products. It becomes the site's whole next state (the
    // unchanged products copied in, the rest going with the site's old keys) when the batch
    // replaces a site it does not cover, or when it names every product of the site (a full
    // catalog sync) and changes most of them, which is cheaper to complete than to merge.
    // A replace that deletes nothing is an upsert, merged like one.
    const changed = total - unchanged;
    const whole =
      (replace && counts.deleted !== 0) || (changed > 0 && total - created === siteSize && unchanged < changed);
    if (whole && unchanged > 0) await backfill(ctx, keys, token, idsOf(products));
    const outcome = await commit(ctx, keys, token, whole ? [total, siteSize] : [changed, ""]);
    if (outcome === "merge") {
      // Committed: readers see the whole batch already. If folding it in fails, the next
      // writer of the site finishes it, so the import has still succeeded.
      await mergeIds(ctx, keys, token, idsOf(products)).catch(() => {});
    }
    return { applied: true, counts };
  } catch (error) {
    throw unavailable(error, "upsert", "nothing written");
  }
}

/**
 * Publishes a staging with the COMMIT script (`staged` products in it; `siteSize` when it holds
 * the site's whole next state). A lost reply leaves the outcome unknown, and the error says so.
 */
export async function commit(
  ctx: StoreContext,
  keys: ImportKeys,
  token: string,
  [staged, siteSize]: [number, number | ""],
): Promise<"done" | "merge"> {
  let outcome: unknown;
  try {
    outcome = await ctx.run(COMMIT, keys, [token, ctx.lockTtlMs, staged, siteSize]);
  } catch (error) {
    throw unavailable(error, "commit of the import", "unknown");
  }
  if (outcome === "lost") throw lostLock();
  if (outcome === "evicted") throw evictedStaging();
  return outcome as "done" | "merge";
}

function* idsOf(products: readonly Product[]): Generator<string> {
  for (const product of products) yield product.id;
}

/**
 * Copies into the staging the site's products among `ids` that are not staged (those a batch
 * leaves unchanged), so that it holds the batch's whole next state of the site. Ids already
 * staged are skipped.
 */
async function backfillSlice(
  ctx: StoreContext,
  keys: ImportKeys,
  token: string,
  ids: readonly string[],
): Promise<void> {
  const copied = (await ctx.run(BACKFILL, keys, [token, ctx.lockTtlMs, 2 * ctx.lockTtlMs, ...ids])) as number;
  if (copied < 0) throw lostLock();
}

async function backfill(ctx: StoreContext, keys: ImportKeys, token: string, ids: Iterable<string>): Promise<void> {
  await windowed(slices(ids, ctx.chunkSize), ctx.window, (slice) => backfillSlice(ctx, keys, token, slice));
}
