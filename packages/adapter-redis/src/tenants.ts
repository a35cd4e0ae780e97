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
import { type CatalogStore, checkUsageCounts, type TenantEntry, type UsageCount } from "@catalog-kit/catalog-core";
import type { Operation, StoreContext } from "./context.ts";
import { wholeMs } from "./idempotency.ts";
import { tenantKeys, usageKeys } from "./keys.ts";
import { TENANT_WRITE } from "./scripts/tenant-write.ts";
import { TENANTS_READ } from "./scripts/tenants-read.ts";
import { USAGE_COUNT } from "./scripts/usage-count.ts";

/** A caller's mistake found before anything is sent: thrown as it is, never as STORAGE_UNAVAILABLE. */
function checkCounts(counts: readonly UsageCount[], ttlMs: number): number {
  checkUsageCounts(counts, ttlMs);
  return wholeMs("ttlMs", ttlMs);
}

/**
 * `readTenants`, `writeTenant` and `countUsage` of the store whose keys start with `prefix`
 * (checked by `checkKeyPrefix`), each run in `operation`.
 */
export function tenantCalls(
  ctx: StoreContext,
  prefix: string,
  operation: Operation,
): Pick<CatalogStore, "readTenants" | "writeTenant" | "countUsage"> {
  const registry = tenantKeys(prefix);
  return {
    readTenants: (since) =>
      operation("tenants read", async () => {
        const { version, pairs } = await ctx.call(TENANTS_READ, registry, { since });
        if (pairs === undefined && version === since) return undefined;
        const entries = (pairs ?? []).map(([key, value]) => ({ key, value }) as TenantEntry);
        return { version, entries };
      }),
    writeTenant: (change) =>
      operation(
        "tenants write",
        async () => (await ctx.call(TENANT_WRITE, registry, change)).outcome === "ok",
        "unknown",
      ),
    countUsage(counts, ttlMs) {
      let ttl: number;
      try {
        ttl = checkCounts(counts, ttlMs);
      } catch (error) {
        return Promise.reject(error);
      }
      // Calls on one connection run in the order sent, so a key given twice counts in order.
      const add = async ({ key, amount }: UsageCount) =>
        (await ctx.call(USAGE_COUNT, usageKeys(prefix, key), { amount, ttlMs: ttl })).total;
      return operation("usage count", () => Promise.all(counts.map(add)), "unknown");
    },
  };
}
