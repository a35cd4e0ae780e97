// The `CatalogStore` on SQLite through Node's built-in `node:sqlite`, on two connections to the
// file. Reads (`find`, `list`, the registry, the import history, `ping`) run on the main thread,
// each one synchronous statement on a reading connection: quick, and in WAL mode never waiting
// for a writer. Writes (imports, removes, key claims, history saves, delivery claims and
// settles) go to a writer thread that owns the other connection, so that a commit of
// seconds, or a wait for another process's write lock, blocks that thread and not every request
// of the process. A reader sees each commit once it has committed: a `find` after `commit()`
// resolved sees it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type CatalogStore,
  checkUsageCounts,
  DecodedBodies,
  decodeProduct,
  encodeProduct,
  type KeyField,
  type Product,
  type Site,
  type StagedImport,
  siteKey,
} from "@catalog-kit/catalog-core";
import type { Connection } from "./connection.ts";
import { listImports, READ_PROBLEMS, READ_RECORD, readText } from "./history.ts";
import { LIST_AFTER, LIST_FIRST, MATCH } from "./lookup-sql.ts";
import { openConnection } from "./open.ts";
import { dataVersionSignal, ReadCache, walIndexSignal } from "./read-cache.ts";
import { readTenants } from "./tenants.ts";
import { WriterClient, writers } from "./writer-client.ts";

/** Options of `createSqliteStore`. */
export interface SqliteStoreOptions {
  /** The database file, created with its tables if missing; `":memory:"` for a database of this store alone, gone at `close`. */
  readonly path: string;
  /**
   * How long a write waits while another connection (another process on the file) writes, before
   * it fails with `STORAGE_UNAVAILABLE`. The wait blocks the store's writer thread, not the main
   * thread. Default 5,000 ms.
   */
  readonly busyTimeoutMs?: number;
}

/** How long a call waits for another connection's write when `busyTimeoutMs` is not given. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

// What no product's id or sku holds (a lone surrogate, which SQLite would store as U+FFFD, a
// character a product may well hold): no statement needs to ask for it.
const unholdable = (key: string): boolean => !key.isWellFormed();

// A database of the store alone needs a file all the same: two connections on two threads share
// no `:memory:` database. A directory of its own, removed at `close`.
function privateFile(): { path: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "catalog-sqlite-"));
  return { path: join(dir, "catalog.db"), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

// A slice of products as the writer thread writes them: strings, whose clone is a copy, where
// an object's is a walk of its fields on either side (the two and an encoding in the thread cost
// about 11 µs a product, the encoding here 2).
function encodedRows(products: readonly Product[], start: number, end: number): string[] {
  const rows: string[] = [];
  for (let i = start; i < end && i < products.length; i++) {
    const product = products[i] as Product;
    rows.push(product.id, product.sku, encodeProduct(product));
  }
  return rows;
}

/** Products an `add` sends to the writer thread at a time: at most about 90 MB of the largest products. */
const ADD_SLICE = 250;

// An import's calls on the main thread: the products go to the writer thread encoded, the bases
// as the bodies `find` read them, which only this thread knows.
function stagedImport(writer: WriterClient, bodies: DecodedBodies, number: number, generation: number): StagedImport {
  let ended = false;
  return {
    // Not async: the products are encoded and sent before it returns, and nothing holds them while
    // the thread writes them (an async function's frame would, a chunk of them for each add).
    add(products, positions, bases) {
      try {
        const baseBodies = bases?.map((base) => (base === null ? null : bodies.body(base)));
        // A slice a message, all sent at once (the thread takes them in order, one deserialized
        // at a time): its heap is kept small (see `WRITER_HEAP`), and a slice of the largest
        // products the catalog takes still fits in it.
        const sent: Promise<unknown>[] = [];
        for (let start = 0; start < products.length; start += ADD_SLICE) {
          const end = start + ADD_SLICE;
          const slice = {
            op: "add",
            import: number,
            rows: encodedRows(products, start, end),
            positions: positions.slice(start, end),
            bases: baseBodies?.slice(start, end),
          } as const;
          sent.push(writer.call(slice, "import", generation));
        }
        return Promise.all(sent).then(() => undefined);
      } catch (error) {
        return Promise.reject(error);
      }
    },
    async commit(key) {
      ended = true;
      return writer.call({ op: "commit", import: number, key }, "import", generation);
    },
    async abort() {
      if (ended) return;
      ended = true;
      // Never fails: a closed store or a stopped thread dropped the staging already.
      await writer.call({ op: "abort", import: number }, "import", generation).catch(() => undefined);
    },
  };
}

/**
 * Opens a `CatalogStore` on the SQLite file `path` (its tables created or migrated now, on this
 * thread). Several processes on one machine may share the file. Throws `STORAGE_UNAVAILABLE` when
 * it cannot be opened, and a TypeError on a Node.js without `node:sqlite`.
 */
export function createSqliteStore(options: SqliteStoreOptions): CatalogStore {
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  if (!Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new TypeError(`busyTimeoutMs must be a whole number of milliseconds, got ${busyTimeoutMs}`);
  }
  const file = options.path === ":memory:" ? privateFile() : { path: options.path, remove: () => {} };
  let connection: Connection;
  try {
    connection = openConnection(file.path, busyTimeoutMs);
  } catch (error) {
    file.remove();
    throw error;
  }
  const writer = new WriterClient({ path: file.path, busyTimeoutMs });
  const bodies = new DecodedBodies();
  const reads = new ReadCache(walIndexSignal(file.path) ?? dataVersionSignal(connection), bodies);
  let closing: Promise<void> | undefined;

  function matched(site: Site, key: string, by: KeyField | undefined): { id: string; body: string } | undefined {
    return connection.statement(MATCH[by ?? "either"]).get(siteKey(site), key) as
      | { id: string; body: string }
      | undefined;
  }

  const store: CatalogStore = {
    async beginImport(site, { dryRun, replace }) {
      const generation = writer.start();
      const options = replace === undefined ? { dryRun } : { dryRun, replace };
      const number = await writer.call({ op: "begin", site: siteKey(site), options }, "import", generation);
      return stagedImport(writer, bodies, number, generation);
    },

    async find(site, key, by) {
      if (unholdable(key)) return connection.use("find", () => undefined);
      // Unambiguous whatever the key and site hold: the key's length says where it ends.
      const lookup = `${by ?? "either"}:${key.length}:${key}:${siteKey(site)}`;
      return connection.use("find", () => reads.lookup(lookup, () => matched(site, key, by)?.body));
    },

    async remove(site: Site, key: string, by?: KeyField, expected?: Product): Promise<Product | undefined> {
      if (unholdable(key)) return connection.use("remove", () => undefined, "nothing written");
      const request = {
        op: "remove",
        site: siteKey(site),
        key,
        by,
        expected: expected && bodies.body(expected),
      } as const;
      const body = await writer.call(request, "remove");
      return body === undefined ? undefined : decodeProduct(body);
    },

    async list(site, after, limit) {
      const rows = connection.use("list", () =>
        after === undefined
          ? connection.statement(LIST_FIRST).all(siteKey(site), limit)
          : connection.statement(LIST_AFTER).all(siteKey(site), after, limit),
      ) as { body: string }[];
      return rows.map((row) => decodeProduct(row.body));
    },

    async claimKey(site, key, leaseMs) {
      const claim = await writer.call({ op: "claim", site: siteKey(site), key, leaseMs }, "idempotency key claim");
      if (claim.state !== "claimed") return claim;
      const { token } = claim;
      return {
        state: "claimed",
        release: () => writer.call({ op: "release", site: siteKey(site), key, token }, "idempotency key release"),
      };
    },

    async readTenants(since) {
      return connection.use("tenants read", () => readTenants(connection, since));
    },

    async writeTenant(change) {
      return writer.call({ op: "tenant", change }, "tenants write");
    },

    async countUsage(counts, ttlMs) {
      // A caller's mistake, thrown as it is: SQLite would keep a fraction, or a counter that never ends.
      checkUsageCounts(counts, ttlMs);
      return writer.call({ op: "usage", counts, ttlMs }, "usage count");
    },

    async saveImport(site, entry, save = {}) {
      await writer.call({ op: "saveImport", site: siteKey(site), entry, save }, "import history save");
    },

    async readImport(site, id) {
      return connection.use("import history read", () => readText(connection, READ_RECORD, siteKey(site), id));
    },

    async listImports(site, before, limit) {
      return connection.use("import history read", () => listImports(connection, siteKey(site), before, limit));
    },

    async readImportProblems(site, id) {
      return connection.use("import history read", () => readText(connection, READ_PROBLEMS, siteKey(site), id));
    },

    async claimDeliveries(now, leaseMs, limit) {
      return writer.call({ op: "claimDeliveries", now, leaseMs, limit }, "delivery claim");
    },

    async settleDelivery(id, lease, next) {
      const rescheduled = next && { dueAt: next.dueAt, value: next.value };
      return writer.call({ op: "settleDelivery", id, lease, next: rescheduled }, "delivery settle");
    },

    async ping() {
      // Reads the file's first page, so a file that failed or was replaced under the store is seen.
      connection.use("ping", () => connection.statement("SELECT count(*) FROM sqlite_schema").get());
    },

    close() {
      // The writer first: what it was sent is answered, then its connection closes.
      closing ??= writer.close().finally(() => {
        reads.close();
        connection.close();
        file.remove();
      });
      return closing;
    },
  };
  writers.set(store, writer);
  return store;
}
