// Folding a committed import's merging hashes into the site, chunk by chunk, without changing what
// readers see.
import type { StoreContext } from "./context.ts";
import { lostLock } from "./errors.ts";
import type { SiteKeys } from "./keys.ts";
import { MERGE } from "./scripts/merge.ts";
import { windowed } from "./windowed.ts";

/** `items` in arrays of `size` (the last may be shorter). */
export function* slices<T>(items: Iterable<T>, size: number): Generator<T[]> {
  let slice: T[] = [];
  for (const item of items) {
    slice.push(item);
    if (slice.length === size) {
      yield slice;
      slice = [];
    }
  }
  if (slice.length > 0) yield slice;
}

// Moves `ids` (those still merging) into the site; returns how many products are still merging.
async function mergeChunk(ctx: StoreContext, keys: SiteKeys, token: string, ids: readonly string[]): Promise<number> {
  const reply = await ctx.call(MERGE, keys, { token, lockTtlMs: ctx.lockTtlMs, ids });
  if (reply.outcome === "lost") throw lostLock();
  return reply.left;
}

/** Folds a just-committed import into the site, given its ids; ends with a scan for any rest. */
export async function mergeIds(ctx: StoreContext, keys: SiteKeys, token: string, ids: Iterable<string>): Promise<void> {
  let left = Number.POSITIVE_INFINITY;
  await windowed(slices(ids, ctx.chunkSize), ctx.window, async (slice) => {
    left = Math.min(left, await mergeChunk(ctx, keys, token, slice));
  });
  if (left > 0) await mergeAll(ctx, keys, token);
}

/**
 * Folds whatever is merging into the site, finding the ids with HSCAN (a stopped writer's
 * leftovers), then clears the site's merging mark. The caller holds the lock, which keeps
 * others from adding to the merging hashes, so the scan sees every field that is there.
 */
export async function mergeAll(ctx: StoreContext, keys: SiteKeys, token: string): Promise<void> {
  let cursor = "0";
  do {
    const [next, fields] = await ctx.scanFields(keys.mergingProducts, cursor, ctx.chunkSize);
    if (fields.length > 0) await mergeChunk(ctx, keys, token, fields);
    cursor = next;
  } while (cursor !== "0");
  await mergeChunk(ctx, keys, token, []);
}
