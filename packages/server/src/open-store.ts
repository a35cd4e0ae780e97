// Opening the configured store: both adapters are dependencies of the server, so whichever a
// configuration names is there.
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { createRedisStore, type RedisStoreOptions } from "@catalog-kit/adapter-redis";
import type { CatalogStore } from "@catalog-kit/catalog-core";
import type { StorageConfig } from "./config.ts";

/** Opens the configured store: memory, or Redis (one server, or a Cluster) under the configured key prefix. */
export function openStore(storage: StorageConfig): CatalogStore {
  if (storage.adapter === "memory") return createMemoryStore();
  const { keyPrefix, waitForReplicas } = storage;
  const tuning = waitForReplicas === undefined ? { keyPrefix } : { keyPrefix, waitForReplicas };
  const options: RedisStoreOptions =
    storage.cluster === undefined ? { url: storage.url as string, ...tuning } : { cluster: storage.cluster, ...tuning };
  return createRedisStore(options);
}
