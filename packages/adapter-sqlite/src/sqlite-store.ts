// The `CatalogStore` on SQLite through Node's built-in `node:sqlite`: one connection per store,
// every call one synchronous run of statements on it (a transaction where it reads and writes),
// so nothing else of this process runs on the connection in between, and SQLite's file locks
// order it against the other processes on the file.
import {
  type CatalogStore,
  DecodedBodies,
  decodeProduct,
  type KeyField,
  type Product,
  type Site,
  siteKey,
} from "@catalog-kit/catalog-core";
import { Connection } from "./connection.ts";
import { loadSqlite } from "./driver.ts";
import { unavailable } from "./errors.ts";
import { claimKey } from "./keys.ts";
import { LIST_AFTER, LIST_FIRST, MATCH } from "./lookup-sql.ts";
import { migrate } from "./schema.ts";
import { beginStagedImport } from "./staged-import.ts";

/** Options of `createSqliteStore`. */
export interface SqliteStoreOptions {
  /** The database file, created with its tables if missing; `":memory:"` for a database of this store alone, gone at `close`. */
  readonly path: string;
  /**
   * How long a call waits while another connection (another process on the file) writes, before
   * it fails with `STORAGE_UNAVAILABLE`. The wait blocks this process's thread. Default 5,000 ms.
   */
  readonly busyTimeoutMs?: number;
}

/** How long a call waits for another connection's write when `busyTimeoutMs` is not given. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

// What no product's id or sku holds (a lone surrogate, which SQLite would store as U+FFFD, a
// character a product may well hold): no statement needs to ask for it.
const unholdable = (key: string): boolean => !key.isWellFormed();

// Whether `error` is SQLite's (then a STORAGE_UNAVAILABLE), not a refusal of the store's own.
const fromSqlite = (error: unknown): boolean => (error as { code?: unknown } | undefined)?.code === "ERR_SQLITE_ERROR";

function open(path: string, busyTimeoutMs: number): Connection {
  const { DatabaseSync } = loadSqlite();
  let connection: Connection | undefined;
  try {
    connection = new Connection(new DatabaseSync(path));
    // First, so that the pragmas below and the migration wait for another process too. WAL:
    // readers never wait for a writer, and a commit is one append to the log. NORMAL: a commit
    // survives the process being killed at any point (the log is the operating system's once
    // written); only a power loss or a kernel crash may lose the last commits, never corrupt the file.
    connection.db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    connection.db.exec("PRAGMA journal_mode = WAL");
    connection.db.exec("PRAGMA synchronous = NORMAL");
    // Staging tables in a file of their own, whatever SQLite was built to prefer: an import's
    // size must not become this process's memory.
    connection.db.exec("PRAGMA temp_store = FILE");
    migrate(connection);
    return connection;
  } catch (error) {
    connection?.close();
    throw fromSqlite(error) ? unavailable(error, "open") : error;
  }
}

/**
 * Opens a `CatalogStore` on the SQLite file `path` (its tables created or migrated now). Several
 * processes on one machine may share the file. Throws `STORAGE_UNAVAILABLE` when it cannot be
 * opened, and a TypeError on a Node.js without `node:sqlite`.
 */
export function createSqliteStore(options: SqliteStoreOptions): CatalogStore {
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  if (!Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new TypeError(`busyTimeoutMs must be a whole number of milliseconds, got ${busyTimeoutMs}`);
  }
  const connection = open(options.path, busyTimeoutMs);
  const bodies = new DecodedBodies();

  function matched(site: Site, key: string, by: KeyField | undefined): { id: string; body: string } | undefined {
    return connection.statement(MATCH[by ?? "either"]).get(siteKey(site), key) as
      | { id: string; body: string }
      | undefined;
  }

  return {
    async beginImport(site, writeOptions) {
      return connection.use(
        "import",
        () => beginStagedImport({ connection, bodies }, siteKey(site), writeOptions),
        "nothing written",
      );
    },

    async find(site, key, by) {
      if (unholdable(key)) return connection.use("find", () => undefined);
      const row = connection.use("find", () => matched(site, key, by));
      return row === undefined ? undefined : bodies.decode(row.body);
    },

    async remove(site: Site, key: string, by?: KeyField, expected?: Product): Promise<Product | undefined> {
      const body = connection.use(
        "remove",
        () => {
          if (unholdable(key)) return undefined;
          return connection.transaction(() => {
            const row = matched(site, key, by);
            if (row === undefined) return undefined;
            if (expected === undefined || bodies.body(expected) === row.body) {
              connection.statement("DELETE FROM products WHERE site = ? AND id = ?").run(siteKey(site), row.id);
            }
            return row.body;
          });
        },
        "nothing written",
      );
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
      return connection.use(
        "idempotency key claim",
        () => claimKey(connection, siteKey(site), key, leaseMs),
        "nothing written",
      );
    },

    async ping() {
      // Reads the file's first page, so a file that failed or was replaced under the store is seen.
      connection.use("ping", () => connection.statement("SELECT count(*) FROM sqlite_schema").get());
    },

    async close() {
      connection.close();
    },
  };
}
