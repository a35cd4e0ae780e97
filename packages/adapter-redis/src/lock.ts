// The site lock that imports hold, released on every path, and the wait of one-call writes for a
// site an import holds (or, for a remove when Redis is out of memory, the way around it).
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { CatalogError } from "@catalog-kit/catalog-core";
import type { StoreContext } from "./context.ts";
import { outOfMemory } from "./errors.ts";
import type { SiteKeys } from "./keys.ts";
import type { Reply } from "./lua.ts";
import { mergeAll } from "./merge.ts";
import { ACQUIRE } from "./scripts/acquire.ts";
import { RELEASE } from "./scripts/release.ts";
import { REMOVE, type RemoveArgs } from "./scripts/remove.ts";
import { REMOVE_MERGING } from "./scripts/remove-merging.ts";

/**
 * The site lock. An import holds it from its first chunk to the end of its merge, so one-call
 * writes and other imports of the site wait meanwhile, and two imports are never judged
 * against the same state; readers never wait. The lock is a field of the site's products hash
 * (see `keys.ts`) holding the holder's token and its expiry on Redis's clock; each call of the
 * holder checks and renews it, so a holder that stopped loses it after `lockTtlMs`.
 */

/** A token naming one holder of a site lock. */
export function newToken(): string {
  return randomBytes(12).toString("hex");
}

function busy(ms: number): CatalogError {
  return new CatalogError("STORAGE_UNAVAILABLE", `The site stayed busy with another import for ${ms} ms`);
}

/**
 * Takes the lock; when it was free and a committed import is still merging (its writer stopped
 * half-way), finishes that merge first. Returns false when another import holds the site.
 */
async function tryAcquire(ctx: StoreContext, keys: SiteKeys, token: string): Promise<boolean> {
  const reply = await ctx.call(ACQUIRE, keys, { token, lockTtlMs: ctx.lockTtlMs });
  if (reply.outcome === "busy") return false;
  if (reply.merging) await mergeAll(ctx, keys, token);
  return true;
}

/** Waits for the site lock (polling, up to `busyTimeoutMs`) and takes it. */
async function acquire(ctx: StoreContext, keys: SiteKeys, token: string): Promise<void> {
  const deadline = Date.now() + ctx.busyTimeoutMs;
  for (let pause = 2; !(await tryAcquire(ctx, keys, token)); pause = Math.min(pause * 2, 50)) {
    if (Date.now() >= deadline) throw busy(ctx.busyTimeoutMs);
    await sleep(pause);
  }
}

/**
 * Gives the lock back if it is still `token`'s. Releasing is idempotent, so when Redis cannot
 * be reached now (the connection that lost a reply is still coming back), it is tried again in
 * the background until it succeeds or the lock would have expired anyway.
 */
async function release(ctx: StoreContext, keys: SiteKeys, token: string): Promise<void> {
  const deadline = Date.now() + ctx.lockTtlMs;
  try {
    await ctx.call(RELEASE, keys, { token });
  } catch {
    void (async () => {
      for (let pause = 50; Date.now() < deadline; pause = Math.min(pause * 2, 1_000)) {
        await sleep(pause, undefined, { ref: false });
        try {
          await ctx.call(RELEASE, keys, { token });
          return;
        } catch {
          // Still unreachable: the next pass tries again.
        }
      }
    })();
  }
}

/**
 * Runs `body` holding the site lock. The lock is released on every path, a failed or lost
 * acquisition included: a reply that never came may have taken it.
 */
export async function withLock<T>(ctx: StoreContext, keys: SiteKeys, body: (token: string) => Promise<T>): Promise<T> {
  const token = newToken();
  try {
    await acquire(ctx, keys, token);
    return await body(token);
  } finally {
    await release(ctx, keys, token);
  }
}

type Busy = { readonly outcome: "busy" };

function isFree<T extends { readonly outcome: string }>(reply: T | Busy): reply is T {
  return reply.outcome !== "busy";
}

/**
 * Runs a one-call write until it no longer answers busy (an import holds the site). If the
 * lock turns out free while a committed import is still merging, this caller finishes the
 * merge. Never waits past `busyTimeoutMs`.
 */
export async function whenFree<T extends { readonly outcome: string }>(
  ctx: StoreContext,
  keys: SiteKeys,
  attempt: () => Promise<T | Busy>,
): Promise<T> {
  const deadline = Date.now() + ctx.busyTimeoutMs;
  for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
    const reply = await attempt();
    if (isFree(reply)) return reply;
    const token = newToken();
    let merged = false;
    try {
      merged = await tryAcquire(ctx, keys, token);
    } finally {
      await release(ctx, keys, token);
    }
    if (Date.now() >= deadline) throw busy(ctx.busyTimeoutMs);
    if (!merged) await sleep(pause);
  }
}

/**
 * Runs REMOVE as a one-call write. When Redis refuses, for memory, what finishing an unfinished
 * merge first takes (the lock is an HSET), the remove goes through the merge instead
 * (REMOVE_MERGING, which only deletes): the one write that frees memory must not wait for
 * memory. An import holding the site still refuses it, with Redis's refusal.
 */
export async function removeWhenFree(
  ctx: StoreContext,
  keys: SiteKeys,
  args: RemoveArgs,
): Promise<Exclude<Reply<typeof REMOVE>, Busy>> {
  try {
    return await whenFree(ctx, keys, () => ctx.call(REMOVE, keys, args));
  } catch (error) {
    if (!outOfMemory(error)) throw error;
    const reply = await ctx.call(REMOVE_MERGING, keys, args);
    if (reply.outcome === "busy") throw error;
    return reply;
  }
}
