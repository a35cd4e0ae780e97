import type { UpsertResult } from "@catalog-kit/catalog-core";
import type { Chunk } from "./chunk.ts";
import type { SiteKeys } from "./keys.ts";
import { COMMIT_FRESH, STAGE_FRESH } from "./scripts.ts";
import { lostLock, newToken, release, type StoreContext } from "./site-lock.ts";
import { windowed } from "./windowed.ts";

/**
 * The first import into an empty site (the initial load of a catalog): nothing can conflict and
 * every product is new, so the chunks are written to staging hashes unchecked (one script call
 * per chunk, which also sets their TTL); then one script publishes them with RENAME, if the
 * site is still empty. No lock is needed: staging is private, and the publishing script
 * refuses when anything was written, locked or merged meanwhile, in which case the caller runs
 * the general, locked import instead. Returns `undefined` then.
 */
export async function freshImport(
  ctx: StoreContext,
  keys: SiteKeys,
  chunks: Iterable<Chunk>,
  total: number,
): Promise<UpsertResult | undefined> {
  const token = newToken();
  const stage = keys.stage(token);
  try {
    const stageKeys = [stage.products, stage.skus, stage.skuOf];
    await windowed(chunks, ctx.window, async (chunk) => {
      await ctx.run(STAGE_FRESH, stageKeys, [2 * ctx.lockTtlMs, ...chunk.args]);
    });
    const { merging } = keys;
    const outcome = await ctx.run(
      COMMIT_FRESH,
      [
        keys.lock,
        keys.products,
        keys.skus,
        keys.skuOf,
        merging.products,
        merging.skus,
        merging.skuOf,
        stage.products,
        stage.skus,
        stage.skuOf,
      ],
      [total],
    );
    if (outcome === "lost") throw lostLock();
    if (outcome === "taken") return undefined;
    return { applied: true, counts: { created: total, updated: 0, unchanged: 0 } };
  } finally {
    // Drops what is left of the staging (all of it, unless published); the lock is not ours.
    await release(ctx, keys, token).catch(() => {});
  }
}
