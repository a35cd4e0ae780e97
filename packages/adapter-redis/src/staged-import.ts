// Imports larger than one script call: staged out of sight under the site lock, then published in
// one O(1) step.
import type { Product, SkuConflict, UpsertResult } from "@catalog-kit/catalog-core";
import type { Chunk } from "./chunk.ts";
import type { StoreContext } from "./context.ts";
import { evictedStaging, lostLock, unavailable } from "./errors.ts";
import { type ImportKeys, importKeys, type SiteKeys } from "./keys.ts";
import { withLock } from "./lock.ts";
import { mergeIds, slices } from "./merge.ts";
import { BACKFILL, COMMIT, STAGE } from "./scripts.ts";
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
 *    merging hashes, which readers see on top of the site from that call on.
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
  dryRun: boolean,
): Promise<UpsertResult> {
  return withLock(ctx, site, async (token) => {
    const keys = importKeys(site, token);
    try {
      return await stageAndCommit(ctx, keys, token, chunks, products, dryRun);
    } finally {
      await ctx.drop([keys.stageProducts, keys.stageSkus, keys.stageSkuOf]).catch(() => {});
    }
  });
}

async function stageAndCommit(
  ctx: StoreContext,
  keys: ImportKeys,
  token: string,
  chunks: Iterable<Chunk>,
  products: readonly Product[],
  dryRun: boolean,
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
    const counts = { created, updated: total - created - unchanged, unchanged };
    if (dryRun) return { applied: true, counts };

    // A batch that names every product of the site (a full catalog sync) and changes most of
    // them is cheaper to complete than to merge: copy the few unchanged products into the
    // staging, which then replaces the site in one step.
    const changed = total - unchanged;
    const replace = changed > 0 && total - created === siteSize && unchanged < changed;
    if (replace && unchanged > 0) await backfill(ctx, keys, token, idsOf(products));
    const outcome = await commit(ctx, keys, token, replace ? [total, siteSize] : [changed, ""]);
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

async function backfill(ctx: StoreContext, keys: ImportKeys, token: string, ids: Iterable<string>): Promise<void> {
  await windowed(slices(ids, ctx.chunkSize), ctx.window, async (slice) => {
    const copied = (await ctx.run(BACKFILL, keys, [token, ctx.lockTtlMs, 2 * ctx.lockTtlMs, ...slice])) as number;
    if (copied < 0) throw lostLock();
  });
}
