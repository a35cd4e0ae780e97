// Idempotency keys in Redis: claims (`CatalogStore.claimKey`), taken and given back by scripts on
// the key's own Redis keys (`idempotencyKeys`), and a key's record read ahead of a commit. The
// record itself is written only by the script that makes an import visible (`remember` in
// prelude.ts), which checks it first.
import { setTimeout as sleep } from "node:timers/promises";
import type { KeyClaim, KeyRecord, KeyToRecord } from "@catalog-kit/catalog-core";
import type { StoreContext } from "./context.ts";
import { idempotencyKeys, type SiteKeys } from "./keys.ts";
import { newToken } from "./lock.ts";
import type { RecordArgs, Reply } from "./lua.ts";
import { KEY_CLAIM } from "./scripts/key-claim.ts";
import { KEY_RECORD } from "./scripts/key-record.ts";
import { KEY_RELEASE } from "./scripts/key-release.ts";

/** An idempotency key to record, as the scripts take it, with its name and whether the import holds its claim. */
export type KeyArgs = RecordArgs & { readonly key: string; readonly claimed: boolean };

/** `ms` as whole milliseconds Redis takes for PX (rounded up); a TypeError, never sent, otherwise. */
export function wholeMs(name: string, ms: number): number {
  const whole = Math.ceil(ms);
  if (!Number.isSafeInteger(whole) || whole < 1) {
    throw new TypeError(`${name} must be a positive number of milliseconds, got ${ms}`);
  }
  return whole;
}

/** A key to record, its retention checked before anything is sent: a script must not fail on it once it wrote. */
export function checkedKey(key: KeyToRecord): KeyArgs {
  return {
    key: key.key,
    fingerprint: key.fingerprint,
    retainMs: wholeMs("retainMs", key.retainMs),
    claimed: key.claimed,
  };
}

/**
 * The record of `key` in the site of `keys`, if it lives; else, for an import without the key's
 * claim, "claimed" while another holds it.
 */
export async function recordOf(
  ctx: StoreContext,
  keys: SiteKeys,
  key: KeyArgs,
): Promise<KeyRecord | "claimed" | undefined> {
  const reply = await ctx.call(KEY_RECORD, idempotencyKeys(keys, key.key), { claimed: key.claimed });
  if (reply.outcome === "recorded") return reply.record;
  return reply.outcome === "claimed" ? "claimed" : undefined;
}

/**
 * Gives a claim back if it is still `token`'s. When Redis cannot be reached now, it is tried
 * again in the background until the claim would have lapsed anyway or the store is closed: a
 * claim left behind answers its key busy until then.
 */
async function release(
  ctx: StoreContext,
  keys: SiteKeys,
  key: string,
  token: string,
  until: number,
  isClosed: () => boolean,
): Promise<void> {
  const send = () => ctx.call(KEY_RELEASE, idempotencyKeys(keys, key), { token });
  if (isClosed()) return;
  try {
    await send();
  } catch {
    void (async () => {
      for (let pause = 50; Date.now() < until && !isClosed(); pause = Math.min(pause * 2, 5_000)) {
        await sleep(pause, undefined, { ref: false });
        try {
          await send();
          return;
        } catch {
          // Still unreachable: the next pass tries again.
        }
      }
    })();
  }
}

/**
 * `CatalogStore.claimKey` on Redis: one script reads the record and takes the claim (SET NX PX),
 * so that every process on the storage sees one answer. A claim whose reply was lost may have
 * been taken: it is given back, so that it does not hold the key for its whole lease.
 */
export async function claimKey(
  ctx: StoreContext,
  keys: SiteKeys,
  key: string,
  leaseMs: number,
  isClosed: () => boolean,
): Promise<KeyClaim> {
  const token = newToken();
  const until = Date.now() + leaseMs;
  let reply: Reply<typeof KEY_CLAIM>;
  try {
    reply = await ctx.call(KEY_CLAIM, idempotencyKeys(keys, key), { token, leaseMs });
  } catch (error) {
    void release(ctx, keys, key, token, until, isClosed);
    throw error;
  }
  if (reply.outcome === "recorded") return { state: "recorded", record: reply.record };
  if (reply.outcome === "busy") return { state: "busy" };
  let released = false;
  return {
    state: "claimed",
    async release() {
      if (released) return;
      released = true;
      await release(ctx, keys, key, token, until, isClosed);
    },
  };
}
