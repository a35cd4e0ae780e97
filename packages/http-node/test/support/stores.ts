// The stores the HTTP tests run on: memory, Redis, Redis Cluster, PostgreSQL and SQLite. The
// servers are the run's shared ones (a server or a cluster takes a second or two to start, a store
// on it a few milliseconds), and each test takes a store of its own on them, in a namespace no
// other test of any file uses: a key prefix on Redis, a schema on PostgreSQL, a file on SQLite.
// So tests stay independent, as they are on a memory store of their own.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { createPostgresStore } from "@catalog-kit/adapter-postgres";
import { createRedisStore } from "@catalog-kit/adapter-redis";
import type { CatalogStore } from "@catalog-kit/catalog-core";
import { FILE_TAG, sharedPostgres, sharedRedis, sharedRedisCluster } from "@catalog-kit/test-support/vitest";
import { afterAll, beforeAll, beforeEach, describe } from "vitest";

/** A running backend of one kind of store. */
export interface Backend {
  /** A store of its own, in a namespace of its own; `stop` closes it if its user has not. */
  fresh(): CatalogStore;
  /** Two stores over one namespace of their own, as two servers of a deployment open them. */
  twins(): [CatalogStore, CatalogStore];
  stop(): Promise<void>;
}

export interface StoreKind {
  readonly name: string;
  start(): Promise<Backend>;
}

// Each block of each file numbers its stores apart, the file's tag apart from other files'.
let blocks = 0;

// The stores a backend handed out, each closed at `stop` (closing twice is safe); the shared
// server itself outlives the block.
function backend(open: (namespace: string) => CatalogStore, cleanUp?: () => Promise<void>): Backend {
  const opened: CatalogStore[] = [];
  const block = ++blocks;
  let namespaces = 0;
  const openIn = (namespace: string) => {
    const store = open(namespace);
    opened.push(store);
    return store;
  };
  return {
    fresh: () => openIn(`${FILE_TAG}_${block}_${++namespaces}`),
    twins() {
      const namespace = `${FILE_TAG}_${block}_${++namespaces}`;
      return [openIn(namespace), openIn(namespace)];
    },
    async stop() {
      await Promise.allSettled(opened.map((store) => store.close()));
      await cleanUp?.();
    },
  };
}

// A memory store lives in its process: the servers of one "deployment" share the store itself.
function memoryBackend(): Backend {
  const byNamespace = new Map<string, CatalogStore>();
  return backend((namespace) => {
    const store = byNamespace.get(namespace) ?? createMemoryStore();
    byNamespace.set(namespace, store);
    return store;
  });
}

export const MEMORY: StoreKind = {
  name: "memory",
  start: async () => memoryBackend(),
};

const ALL_STORES: readonly StoreKind[] = [
  MEMORY,
  {
    name: "Redis",
    async start() {
      const url = await sharedRedis();
      return backend((keyPrefix) => createRedisStore({ url, keyPrefix }));
    },
  },
  {
    name: "Redis Cluster",
    async start() {
      const cluster = await sharedRedisCluster();
      return backend((keyPrefix) => createRedisStore({ cluster, keyPrefix }));
    },
  },
  {
    name: "PostgreSQL",
    async start() {
      const url = await sharedPostgres();
      return backend((schema) => createPostgresStore({ url, schema }));
    },
  },
  {
    name: "SQLite",
    // Imported here: node:sqlite is in Node.js 22.13 and later only, and the other stores' blocks
    // run on any Node.js. Each store is a file of its own, as users run it, in the block's directory.
    async start() {
      const { createSqliteStore } = await import("@catalog-kit/adapter-sqlite");
      const dir = await mkdtemp(join(tmpdir(), "catalog-http-sqlite-"));
      return backend(
        (name) => createSqliteStore({ path: join(dir, `${name}.db`) }),
        () => rm(dir, { recursive: true, force: true }),
      );
    },
  },
];

// CATALOG_TEST_STORES (names, comma-separated, any case) narrows a run to some stores: CI's runs
// on other Node.js lines test Node's own APIs on memory, and leave the backends to the full run.
const only = process.env.CATALOG_TEST_STORES?.toLowerCase().split(",");

/** The stores the HTTP tests run on: every kind, or those CATALOG_TEST_STORES names. */
export const STORES: readonly StoreKind[] = only
  ? ALL_STORES.filter((kind) => only.includes(kind.name.toLowerCase()))
  : ALL_STORES;

/** What a block run on one kind of store gets: its name, and fresh stores of that kind. */
export interface StoreUnderTest {
  readonly name: string;
  /** A store of its own; only within a test or a hook, once the backend has started. */
  fresh(): CatalogStore;
  /** Two stores over one namespace of their own (memory: one store twice), as two servers open them. */
  twins(): [CatalogStore, CatalogStore];
}

// Stands in for the stores of a backend that did not start, so that a block's own hooks still
// run and each of its tests fails with the reason, rather than being skipped.
function unstarted(reason: unknown): CatalogStore {
  const fail = async (): Promise<never> => {
    throw reason;
  };
  return {
    beginImport: fail,
    find: fail,
    remove: fail,
    list: fail,
    claimKey: fail,
    readTenants: fail,
    writeTenant: fail,
    countUsage: fail,
    saveImport: fail,
    readImport: fail,
    listImports: fail,
    readImportProblems: fail,
    claimDeliveries: fail,
    settleDelivery: fail,
    ping: fail,
    close: async () => {},
  };
}

/**
 * `describe(title, body)` once per kind of store, each block with its backend started before its
 * tests and stopped after them. A backend that does not start fails every test of its block.
 */
export function describeEachStore(
  title: string,
  body: (store: StoreUnderTest) => void,
  kinds: readonly StoreKind[] = STORES,
): void {
  for (const kind of kinds) {
    describe(`${title}, on ${kind.name}`, () => {
      let running: Backend | undefined;
      let failed: Error | undefined;
      beforeAll(async () => {
        try {
          running = await kind.start();
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          failed = new Error(`${kind.name} did not start: ${reason}`, { cause: error });
        }
      }, 60_000);
      beforeEach(() => {
        if (failed) throw failed;
      });
      afterAll(async () => {
        await running?.stop();
      });
      body({
        name: kind.name,
        fresh() {
          if (failed) return unstarted(failed);
          if (running === undefined) throw new Error(`${kind.name} has not started yet`);
          return running.fresh();
        },
        twins() {
          if (failed) return [unstarted(failed), unstarted(failed)];
          if (running === undefined) throw new Error(`${kind.name} has not started yet`);
          return running.twins();
        },
      });
    });
  }
}
