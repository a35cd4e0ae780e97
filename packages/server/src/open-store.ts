// Opening the configured store: every adapter is a dependency of the server, so whichever a
// configuration names is there.
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { createPostgresStore } from "@catalog-kit/adapter-postgres";
import { createRedisStore, type RedisStoreOptions } from "@catalog-kit/adapter-redis";
import type { CatalogStore } from "@catalog-kit/catalog-core";
import type { StorageConfig } from "./config.ts";

/** Opens the configured store: memory, Redis (one server, or a Cluster) under its key prefix, or PostgreSQL. */
export function openStore(storage: StorageConfig): CatalogStore {
  if (storage.adapter === "memory") return createMemoryStore();
  if (storage.adapter === "postgres") {
    const { url, schema, poolSize, queryTimeoutMs } = storage;
    return createPostgresStore({ url, schema, poolSize, queryTimeoutMs });
  }
  const { keyPrefix, waitForReplicas } = storage;
  const tuning = waitForReplicas === undefined ? { keyPrefix } : { keyPrefix, waitForReplicas };
  const options: RedisStoreOptions =
    storage.cluster === undefined ? { url: storage.url as string, ...tuning } : { cluster: storage.cluster, ...tuning };
  return createRedisStore(options);
}
