import type { Product, SkuConflict, UpsertResult } from "@catalog-kit/catalog-core";
import type { Chunk } from "./chunk.ts";
import { freshImport } from "./fresh-import.ts";
import type { SiteKeys } from "./keys.ts";
import { BACKFILL, COMMIT, STAGE } from "./scripts.ts";
import { acquire, lostLock, mergeIds, newToken, release, type StoreContext, slices } from "./site-lock.ts";
import { windowed } from "./windowed.ts";

/**
 * Applies a batch too large for one script call, all-or-nothing, without ever blocking Redis
 * for longer than one chunk takes:
 *
 * 1. Take the site lock (SET NX with a TTL, renewed by every later call, checked by every later
 *    call). One-call writes and removes of the site wait while it is held, so the site cannot
 *    change under the import; readers never wait. Only one import holds a site at a time, so
 *    two imports can never both claim one sku: the second is judged on the first one's result.
 * 2. Stage: each chunk is checked against the site (sku conflicts, created/updated/unchanged)
 *    and its changed products are written to staging hashes named by a fresh token, under the
 *    site's hash tag, with a TTL. The site itself is not touched and nothing is visible yet.
 * 3. With any conflict, or for a dry run, drop the staging hashes: nothing was ever visible.
 * 4. Commit, in one O(1) call: RENAME the staging hashes into the site (when the site is empty)
 *    or into the site's "merging" hashes. From that call on, every reader sees the whole batch:
 *    the find script reads merging products on top of the site's.
 * 5. Merge, chunk by chunk, the merging hashes into the site. Each call moves some products and
 *    leaves what readers see unchanged.
 *
 * A batch that names every product of the site, and changes most of them (a full catalog sync),
 * skips the merge: before step 4 the few products it leaves unchanged are copied into the
 * staging, and step 4 replaces the site's hashes with the staging's (UNLINK, then RENAME).
 *
 * The first import into an empty site skips the lock and the checks (see `fresh-import.ts`).
 *
 * A failure before step 4 (Redis gone, writer gone, lock expired) publishes nothing: staging
 * expires on its own, and a late call of a stopped writer fails its lock check. A failure after
 * step 4 loses nothing: the batch is visible, and the next writer of the site, finding the
 * lock free and a merge unfinished, completes it before doing its own work.
 *
 * `chunks` are those of `products`, whose ids are distinct.
 */
export async function chunkedUpsert(
  ctx: StoreContext,
  keys: SiteKeys,
  chunks: () => Iterable<Chunk>,
  products: readonly Product[],
  dryRun: boolean,
): Promise<UpsertResult> {
  const { merging } = keys;
  if (
    (await ctx.countKeys([
      keys.products,
      keys.skus,
      keys.skuOf,
      keys.lock,
      merging.products,
      merging.skus,
      merging.skuOf,
    ])) === 0
  ) {
    if (dryRun) return { applied: true, counts: { created: products.length, updated: 0, unchanged: 0 } };
    const result = await freshImport(ctx, keys, chunks(), products.length);
    if (result !== undefined) return result;
  }
  return lockedUpsert(ctx, keys, chunks(), products, dryRun);
}

async function lockedUpsert(
  ctx: StoreContext,
  keys: SiteKeys,
  chunks: Iterable<Chunk>,
  products: readonly Product[],
  dryRun: boolean,
): Promise<UpsertResult> {
  let inBatch: ReadonlySet<string> | undefined;
  const token = newToken();
  const stage = keys.stage(token);
  await acquire(ctx, keys, token);
  try {
    let total = 0;
    let created = 0;
    let unchanged = 0;
    let siteSize = 0;
    const conflicts: SkuConflict[] = [];
    const stageKeys = [keys.lock, keys.products, keys.skus, stage.products, stage.skus, stage.skuOf];
    await windowed(chunks, ctx.window, async (chunk) => {
      const reply = (await ctx.run(STAGE, stageKeys, [
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
    const { merging } = keys;
    const outcome = await ctx.run(
      COMMIT,
      [
        keys.lock,
        keys.products,
        keys.skus,
        keys.skuOf,
        stage.products,
        stage.skus,
        stage.skuOf,
        merging.products,
        merging.skus,
        merging.skuOf,
      ],
      replace ? [token, total, siteSize] : [token, changed, ""],
    );
    if (outcome === "lost") throw lostLock();
    if (outcome === "merge") {
      // Committed: readers see the whole batch already. If folding it in fails, the next
      // writer of the site finishes it, so the import has still succeeded.
      await mergeIds(ctx, keys, token, idsOf(products)).catch(() => {});
    }
    return { applied: true, counts };
  } finally {
    await release(ctx, keys, token).catch(() => {});
  }
}

function* idsOf(products: readonly Product[]): Generator<string> {
  for (const product of products) yield product.id;
}

async function backfill(ctx: StoreContext, keys: SiteKeys, token: string, ids: Iterable<string>): Promise<void> {
  const stage = keys.stage(token);
  const backfillKeys = [keys.lock, keys.products, keys.skuOf, stage.products, stage.skus, stage.skuOf];
  await windowed(slices(ids, ctx.chunkSize), ctx.window, async (slice) => {
    const copied = (await ctx.run(BACKFILL, backfillKeys, [
      token,
      ctx.lockTtlMs,
      2 * ctx.lockTtlMs,
      ...slice,
    ])) as number;
    if (copied < 0) throw lostLock();
  });
}
