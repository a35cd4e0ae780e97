// Whether the store's Redis serves every site: each slot's owner answers, and no eviction policy
// may delete products.
import { CatalogError } from "@catalog-kit/catalog-core";
import calculateSlot from "cluster-key-slot";
import { Cluster, type Redis } from "ioredis";
import { bounded, type Connection } from "./connection.ts";

/** The primaries: the client itself, or every master the Cluster is connected to. */
function primaries(client: Redis | Cluster): Redis[] {
  return client instanceof Cluster ? client.nodes("master") : [client];
}

// A key in each slot, found once and kept: how a probe reaches the owner of a slot through the
// Cluster's own routing (which connects to it again if need be). The keys are never written.
const probeKeys = new Map<number, string>();
let candidates = 0;
function keyInSlot(slot: number): string {
  while (!probeKeys.has(slot)) {
    const candidate = `catalog-health:{${candidates++}}`;
    const found = calculateSlot(candidate);
    if (!probeKeys.has(found)) probeKeys.set(found, candidate);
  }
  return probeKeys.get(slot) as string;
}

/**
 * Resolves when every slot is served: the server answers; on a Cluster, every slot has an
 * owner and each owner answers a read of a key in one of its slots. A plain PING would reach
 * any one live node while the sites of a failed master cannot be read.
 */
export async function probe(connection: Connection): Promise<void> {
  const { client } = connection;
  if (!(client instanceof Cluster)) {
    await bounded(connection, client.ping());
    return;
  }
  const owners = new Map<string, number>();
  for (let slot = 0; slot < 16_384; slot++) {
    const owner = client.slots[slot]?.[0];
    if (owner === undefined)
      throw new CatalogError("STORAGE_UNAVAILABLE", "The Redis Cluster does not serve every site");
    if (!owners.has(owner)) owners.set(owner, slot);
  }
  await Promise.all([...owners.values()].map((slot) => bounded(connection, client.exists(keyInSlot(slot)))));
}

/** Eviction policies under which Redis may delete products, not only the staging of imports. */
const EVICTS_PRODUCTS = /^allkeys-/;

/**
 * Refuses a Redis whose `maxmemory-policy` may evict products (`allkeys-*`). `volatile-*`
 * policies only evict keys with a TTL, the staging of imports, whose commit then fails whole.
 * A server that does not allow `CONFIG GET` (some managed offerings) is taken on trust.
 */
export async function checkEviction(connection: Connection): Promise<void> {
  await Promise.all(
    primaries(connection.client).map(async (node) => {
      let reply: unknown;
      try {
        reply = await bounded(connection, node.call("CONFIG", "GET", "maxmemory-policy"));
      } catch (error) {
        if (error instanceof Error && /unknown command|NOPERM|no permissions/i.test(error.message)) return;
        throw error;
      }
      const policy = Array.isArray(reply) ? String(reply[1]) : "";
      if (EVICTS_PRODUCTS.test(policy)) {
        throw new CatalogError(
          "STORAGE_UNAVAILABLE",
          `Redis's maxmemory-policy is ${policy}: it may evict products. Set it to noeviction`,
        );
      }
    }),
  );
}
