// The tenants registry and usage counters in Redis: the registry is one hash and its version, under
// one hash tag (`tenantKeys`), read and written only by scripts, so each read is one moment and
// each write one atomic step seen alike by every process; a poll while nothing changed is one
// script call that reads one small string. A counter is a key of its own (`usageKeys`), so that a
// Cluster spreads them: one script call a counter, all sent at once on the connection.
//
// A reply lost after Redis ran a write (a connection cut, a timeout) cannot be told from a write
// that never ran, so the call rejects with STORAGE_UNAVAILABLE saying it may have been applied;
// nothing is sent twice. A caller that sends a conditional write again is answered by the state
// the first left: a creation already made answers false, as does a deletion already done, and a
// change applies again (its version grows twice). Each is what a second writer would be told, and
// leaves the registry as asked: the caller can read the entry to learn which happened. A lost add
// to a counter may have been counted: counters are estimates of use within a window anyway.
import type { TenantEntries, TenantWrite, UsageCount } from "@catalog-kit/catalog-core";
import type { StoreContext } from "./context.ts";
import { wholeMs } from "./idempotency.ts";
import { tenantKeys, usageKeys } from "./keys.ts";
import { TENANT_WRITE } from "./scripts/tenant-write.ts";
import { TENANTS_READ } from "./scripts/tenants-read.ts";
import { USAGE_COUNT } from "./scripts/usage-count.ts";

/** The three calls of `CatalogStore` on the registry and counters, for the store's facade to wrap. */
export interface TenantCalls {
  readTenants(since: number | undefined): Promise<TenantEntries | undefined>;
  writeTenant(change: TenantWrite): Promise<boolean>;
  countUsage(counts: readonly UsageCount[], ttlMs: number): Promise<number[]>;
}

/** A caller's mistake found before anything is sent: thrown as it is, never as STORAGE_UNAVAILABLE. */
export function checkCounts(counts: readonly UsageCount[], ttlMs: number): number {
  for (const { amount } of counts) {
    if (!Number.isSafeInteger(amount))
      throw new TypeError(`countUsage: an amount must be a whole number, got ${amount}`);
  }
  return wholeMs("ttlMs", ttlMs);
}

/** The registry and counters of the store whose keys start with `prefix` (checked by `checkKeyPrefix`). */
export function tenantCalls(ctx: StoreContext, prefix: string): TenantCalls {
  const registry = tenantKeys(prefix);
  return {
    async readTenants(since) {
      const { version, pairs } = await ctx.call(TENANTS_READ, registry, { since });
      if (pairs === undefined && version === since) return undefined;
      return {
        version,
        entries: (pairs ?? []).map(([key, value]) => ({ key, value }) as { key: string; value: string }),
      };
    },
    async writeTenant(change) {
      return (await ctx.call(TENANT_WRITE, registry, change)).outcome === "ok";
    },
    countUsage(counts, ttlMs) {
      // Calls on one connection run in the order sent, so a key given twice counts in order.
      return Promise.all(
        counts.map(
          async ({ key, amount }) => (await ctx.call(USAGE_COUNT, usageKeys(prefix, key), { amount, ttlMs })).total,
        ),
      );
    },
  };
}
