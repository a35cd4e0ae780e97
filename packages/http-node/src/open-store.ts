// Opening the configured store; adapters are loaded on demand, so only the one in use must be
// installed.
import type { CatalogStore } from "@catalog-kit/catalog-core";
import type { StorageConfig } from "./config.ts";

/** The agreed factory of `@catalog-kit/adapter-redis`. */
type CreateRedisStore = (
  options: ({ readonly url: string } | { readonly cluster: readonly string[] }) & {
    readonly keyPrefix: string;
    readonly waitForReplicas?: { readonly replicas: number; readonly timeoutMs: number };
  },
) => CatalogStore | Promise<CatalogStore>;

async function importAdapter(name: string, adapter: string): Promise<Record<string, unknown>> {
  try {
    return (await import(name)) as Record<string, unknown>;
  } catch (error) {
    throw new Error(
      `The "${adapter}" storage needs the package ${name}, which could not be loaded (${(error as Error).message}). ` +
        `Install it next to @catalog-kit/http-node: npm install ${name}`,
    );
  }
}

/** Opens the configured store; adapters are loaded on demand, so only the one in use must be installed. */
export async function openStore(storage: StorageConfig): Promise<CatalogStore> {
  if (storage.adapter === "memory") {
    const { createMemoryStore } = await import("@catalog-kit/adapter-memory");
    return createMemoryStore();
  }
  // A variable specifier: the adapter is an optional peer, resolved only when configured.
  const name = "@catalog-kit/adapter-redis";
  const createRedisStore = (await importAdapter(name, "redis")).createRedisStore as CreateRedisStore | undefined;
  if (typeof createRedisStore !== "function") throw new Error(`${name} does not export createRedisStore`);
  const { keyPrefix, waitForReplicas } = storage;
  const tuning = waitForReplicas === undefined ? { keyPrefix } : { keyPrefix, waitForReplicas };
  return createRedisStore(
    storage.cluster === undefined ? { url: storage.url as string, ...tuning } : { cluster: storage.cluster, ...tuning },
  );
}
