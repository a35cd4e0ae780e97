// The delivery queue in Redis: one per store, under a hash tag of its own (`deliveryKeys`), so
// that a Cluster holds it in one slot and each step is one script: enqueue, claim, settle.
//
// A delivery is either due (a sorted set scored by `dueAt`) or leased (a sorted set scored by
// the lease's end), never both; its value is in a hash, and its lease in another. A claim first
// moves the leases that ended by its `now` back among the due, then takes the earliest due: the
// contract's order (earliest `dueAt` first, lapsed leases included) at O(log n + limit), each
// lapsed lease moved once. One sorted set scored by "available at" would claim in a single
// range too, but would order a lapsed delivery by its lease's end rather than its `dueAt`.
//
// The clock is the caller's (`now`), never Redis's: leases end when the callers' clocks say so.
// A claim or settle whose reply was lost rejects with STORAGE_UNAVAILABLE and is never sent
// again: a lost claim's leases lapse after `leaseMs` and the deliveries are claimed again (at
// least once, as the contract allows); a lost settle is answered false when the caller sends it
// again, the delivery having been settled.
import type { CatalogStore, Delivery } from "@catalog-kit/catalog-core";
import type { AfterWrite, Operation, StoreContext } from "./context.ts";
import { type DeliveryKeys, deliveryKeys } from "./keys.ts";
import { newToken } from "./lock.ts";
import { DELIVERIES_ADD } from "./scripts/deliveries-add.ts";
import { DELIVERIES_CLAIM } from "./scripts/deliveries-claim.ts";
import { DELIVERY_SETTLE } from "./scripts/delivery-settle.ts";

// Checks that a script must never meet half-way: ZADD refuses a score that is not a number
// after the script wrote the value.
function finite(what: string, value: number): void {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new TypeError(`${what} must be a finite number of milliseconds, got ${value}`);
  }
}

function whole(what: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new TypeError(`${what} must be a whole number, got ${value}`);
}

/** Throws a TypeError, before anything is sent, unless every delivery's `dueAt` is a finite number. */
export function checkDeliveries(deliveries: readonly Delivery[]): void {
  for (const { dueAt } of deliveries) finite("a delivery's dueAt", dueAt);
}

// Deliveries per script call: each carries up to 1 MiB of value, and a script blocks Redis.
const ENQUEUE_BATCH = 100;

/**
 * Puts the deliveries in the queue of `keys` (ids it holds left as they are), a script per
 * hundred; then, with `waitForReplicas`, waits for the replicas.
 */
export async function enqueue(
  ctx: StoreContext,
  keys: DeliveryKeys,
  deliveries: readonly Delivery[],
  afterWrite: AfterWrite,
): Promise<void> {
  for (let i = 0; i < deliveries.length; i += ENQUEUE_BATCH) {
    await ctx.call(DELIVERIES_ADD, keys, { deliveries: deliveries.slice(i, i + ENQUEUE_BATCH) });
  }
  await afterWrite(keys.deliveriesDue);
}

/** `claimDeliveries` and `settleDelivery` of the store whose keys start with `prefix`, each run in `operation`. */
export function deliveryCalls(
  ctx: StoreContext,
  prefix: string,
  operation: Operation,
  afterWrite: AfterWrite,
): Pick<CatalogStore, "claimDeliveries" | "settleDelivery"> {
  const keys = deliveryKeys(prefix);
  return {
    claimDeliveries(now, leaseMs, limit) {
      try {
        finite("claimDeliveries: now", now);
        finite("claimDeliveries: leaseMs", leaseMs);
        if (!(leaseMs > 0)) throw new TypeError(`claimDeliveries: leaseMs must be positive, got ${leaseMs}`);
        whole("claimDeliveries: limit", limit);
      } catch (error) {
        // A caller's mistake, not Redis's: thrown as it is, never as STORAGE_UNAVAILABLE.
        return Promise.reject(error);
      }
      return operation(
        "delivery claim",
        async () => {
          if (limit === 0) return [];
          const args = { now, until: now + leaseMs, token: newToken(), limit };
          const { claimed } = await ctx.call(DELIVERIES_CLAIM, keys, args);
          await afterWrite(keys.deliveriesDue);
          return claimed.map(([id, dueAt, value, lease]) => ({
            id: id as string,
            dueAt: Number(dueAt),
            value: value as string,
            lease: lease as string,
          }));
        },
        "unknown",
      );
    },

    settleDelivery(id, lease, next) {
      try {
        if (next !== undefined) finite("settleDelivery: next.dueAt", next.dueAt);
      } catch (error) {
        return Promise.reject(error);
      }
      return operation(
        "delivery settle",
        async () => {
          const reply = await ctx.call(DELIVERY_SETTLE, keys, { id, lease, next });
          await afterWrite(keys.deliveriesDue);
          return reply.outcome === "ok";
        },
        "unknown",
      );
    },
  };
}
