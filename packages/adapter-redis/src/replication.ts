// waitForReplicas: Redis WAIT on the primary that holds a site, after each write.
import { CatalogError } from "@catalog-kit/catalog-core";
import calculateSlot from "cluster-key-slot";
import { Cluster, type Redis } from "ioredis";
import { bounded, type Connection } from "./connection.ts";

/** How many replicas must have a write, and how long to wait for them (`waitForReplicas`). */
export interface Replication {
  readonly replicas: number;
  readonly timeoutMs: number;
}

/** The client that reaches the primary holding `key`. */
function primaryOf(client: Redis | Cluster, key: string): Redis | undefined {
  if (!(client instanceof Cluster)) return client;
  const owner = client.slots[calculateSlot(key)]?.[0];
  return client.nodes("master").find((node) => `${node.options.host}:${node.options.port}` === owner);
}

/**
 * Waits (Redis `WAIT`) until the replicas have every write made so far on the primary holding
 * `key`; fails when fewer confirm in time. The write is applied on the primary either way.
 */
export async function replicated(connection: Connection, replication: Replication, key: string): Promise<void> {
  const primary = primaryOf(connection.client, key);
  const acked = primary
    ? Number(await bounded(connection, primary.call("WAIT", replication.replicas, replication.timeoutMs)))
    : 0;
  if (acked < replication.replicas) {
    throw new CatalogError(
      "STORAGE_UNAVAILABLE",
      `The write is applied on the Redis primary, but ${acked} of ${replication.replicas} replicas confirmed it ` +
        `within ${replication.timeoutMs} ms; retrying is safe`,
    );
  }
}
