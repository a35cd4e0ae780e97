import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { CatalogError } from "@catalog-kit/catalog-core";
import type { SiteKeys } from "./keys.ts";
import { ACQUIRE, MERGE, RELEASE, type Script } from "./scripts.ts";
import { windowed } from "./windowed.ts";

/** What the store's parts share: how to reach Redis, and the tuning. */
export interface StoreContext {
  run(script: Script, keys: readonly string[], args: readonly (string | Buffer | number)[]): Promise<unknown>;
  /** One HSCAN step: the next cursor and the fields it found. */
  scanFields(key: string, cursor: string, count: number): Promise<[cursor: string, fields: string[]]>;
  /** How many of `keys` exist. */
  countKeys(keys: readonly string[]): Promise<number>;
  readonly chunkSize: number;
  /** Calls in flight at once during a chunked import. */
  readonly window: number;
  readonly lockTtlMs: number;
  readonly busyTimeoutMs: number;
}

/** A token naming one holder of a site lock. */
export function newToken(): string {
  return randomBytes(12).toString("hex");
}

/** The error of a chunked import whose lock or staging expired: nothing of it was published. */
export function lostLock(): CatalogError {
  return new CatalogError("STORAGE_UNAVAILABLE", "The import took too long and expired; nothing was written");
}

function busy(ms: number): CatalogError {
  return new CatalogError("STORAGE_UNAVAILABLE", `The site stayed busy with another import for ${ms} ms`);
}

/**
 * Takes the lock; when it was free and a committed import is still merging (its writer stopped
 * half-way), finishes that merge first. Returns false when another import holds the site.
 */
async function tryAcquire(ctx: StoreContext, keys: SiteKeys, token: string): Promise<boolean> {
  const [taken, merging] = (await ctx.run(ACQUIRE, [keys.lock, keys.merging.products], [token, ctx.lockTtlMs])) as [
    number,
    number,
  ];
  if (taken === 0) return false;
  if (merging === 1) {
    try {
      await mergeAll(ctx, keys, token);
    } catch (error) {
      await release(ctx, keys, token).catch(() => {});
      throw error;
    }
  }
  return true;
}

/** Waits for the site lock (polling, up to `busyTimeoutMs`) and takes it. */
export async function acquire(ctx: StoreContext, keys: SiteKeys, token: string): Promise<void> {
  const deadline = Date.now() + ctx.busyTimeoutMs;
  for (let pause = 2; !(await tryAcquire(ctx, keys, token)); pause = Math.min(pause * 2, 50)) {
    if (Date.now() >= deadline) throw busy(ctx.busyTimeoutMs);
    await sleep(pause);
  }
}

/** Gives the lock back if it is still `token`'s, and drops the token's staging hashes. */
export async function release(ctx: StoreContext, keys: SiteKeys, token: string): Promise<void> {
  const stage = keys.stage(token);
  await ctx.run(RELEASE, [keys.lock, stage.products, stage.skus, stage.skuOf], [token]);
}

/**
 * Runs a one-call write until it no longer answers busy (a chunked import holds the site). If
 * the lock turns out free while a committed import is still merging, this caller finishes it.
 */
export async function whenFree<T>(
  ctx: StoreContext,
  keys: SiteKeys,
  attempt: () => Promise<T>,
  isBusy: (reply: T) => boolean,
): Promise<T> {
  const deadline = Date.now() + ctx.busyTimeoutMs;
  for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
    const reply = await attempt();
    if (!isBusy(reply)) return reply;
    const token = newToken();
    // Taking the lock finishes a merge left half-done; then the write is tried again at once.
    const merged = await tryAcquire(ctx, keys, token);
    if (merged) await release(ctx, keys, token);
    // Never unbounded, even if the write keeps answering busy while the lock is free.
    if (Date.now() >= deadline) throw busy(ctx.busyTimeoutMs);
    if (!merged) await sleep(pause);
  }
}

async function mergeChunk(ctx: StoreContext, keys: SiteKeys, token: string, ids: readonly string[]): Promise<number> {
  const { merging } = keys;
  const left = (await ctx.run(
    MERGE,
    [keys.lock, keys.products, keys.skus, keys.skuOf, merging.products, merging.skus, merging.skuOf],
    [token, ctx.lockTtlMs, ...ids],
  )) as number;
  if (left < 0) throw lostLock();
  return left;
}

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

/** Folds a just-committed import into the site, given its ids; ends with a scan for any rest. */
export async function mergeIds(ctx: StoreContext, keys: SiteKeys, token: string, ids: Iterable<string>): Promise<void> {
  let left = Number.POSITIVE_INFINITY;
  await windowed(slices(ids, ctx.chunkSize), ctx.window, async (slice) => {
    left = Math.min(left, await mergeChunk(ctx, keys, token, slice));
  });
  if (left > 0) await mergeAll(ctx, keys, token);
}

/** Folds whatever is merging into the site, finding the ids with HSCAN (a stopped writer's leftovers). */
export async function mergeAll(ctx: StoreContext, keys: SiteKeys, token: string): Promise<void> {
  // The lock keeps others from adding to the merging hashes, so a scan returns every field
  // that is there from start to end, which is all of them.
  let cursor = "0";
  do {
    const [next, fields] = await ctx.scanFields(keys.merging.products, cursor, ctx.chunkSize);
    if (fields.length > 0) await mergeChunk(ctx, keys, token, fields);
    cursor = next;
  } while (cursor !== "0");
}
