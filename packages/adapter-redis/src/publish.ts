// The steps that publish a staged import, under the site lock: the site's size, the counts, and
// the two renaming scripts (COMMIT for the stage: keys, PUBLISH for an import's own keys).
import type { ImportCounts } from "@catalog-kit/catalog-core";
import type { StoreContext } from "./context.ts";
import { evictedStaging, lostLock, unavailable } from "./errors.ts";
import type { ImportKeys, ScriptKeys, SiteKeys } from "./keys.ts";
import { COMMIT, PUBLISH, SITE_SIZE } from "./scripts.ts";

/** What an import's adds counted, summed from their replies: numbers, never the ids. */
export interface Tally {
  /** Distinct ids staged: the entries of in:products, in:sku-of and in:ids. */
  ids: number;
  /** Skus some staged id claims: the entries of in:skus. */
  claimed: number;
  /** Skus more than one staged id claims. */
  contested: number;
  /** Skus one staged id claims whose entry in in:skus does not name it (`""`). */
  unheld: number;
  /** Chunks staged: the entries of in:pos. */
  chunks: number;
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
): ImportCounts {
  const counts = { created, updated: total - created - unchanged, unchanged };
  return replace ? { ...counts, deleted: siteSize - (total - created) } : counts;
}

/** How many products the site holds, read under the lock `token` holds. */
export async function siteSizeOf(ctx: StoreContext, keys: SiteKeys, token: string): Promise<number> {
  const size = (await ctx.run(SITE_SIZE, keys, [token, ctx.lockTtlMs])) as number;
  if (size < 0) throw lostLock();
  return size;
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

/**
 * Publishes the import by renaming its keys (PUBLISH), `dropped` of its products having been
 * taken out as unchanged; with `check`, only checks it (a dry run). A lost reply to a call that
 * may publish leaves the outcome unknown, and the error says so.
 */
export async function publish(
  ctx: StoreContext,
  keys: ScriptKeys,
  token: string,
  where: "empty" | "replace" | "merge",
  tally: Tally,
  { dropped = 0, siteSize = 0, check = false }: { dropped?: number; siteSize?: number; check?: boolean } = {},
): Promise<"done" | "merge" | "occupied"> {
  const kept = tally.ids - dropped;
  const args = [token, ctx.lockTtlMs, where, check ? "0" : "1", kept, tally.claimed - dropped, tally.chunks, siteSize];
  let outcome: unknown;
  try {
    outcome = await ctx.run(PUBLISH, keys, args);
  } catch (error) {
    throw unavailable(error, "commit of the import", check ? "nothing written" : "unknown");
  }
  if (outcome === "lost") throw lostLock();
  if (outcome === "evicted") throw evictedStaging();
  return outcome as "done" | "merge" | "occupied";
}
