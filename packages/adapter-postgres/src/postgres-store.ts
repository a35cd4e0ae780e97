// The `CatalogStore` on PostgreSQL: lookups and pages are single statements on any connection
// of the pool (readers never wait for an import, whose writes they see only once committed),
// removes and commits lock their site's row, and imports stage on a connection of their own.
import { type CatalogStore, decodeProduct, type KeyField, type Product, type Site } from "@catalog-kit/catalog-core";
import type pg from "pg";
import { BaseDigests } from "./base-digests.ts";
import { claimDeliveries, settleDelivery } from "./deliveries.ts";
import { serverAnswered, unavailable } from "./errors.ts";
import { listImports, readImport, saveImport } from "./history.ts";
import { claimKey } from "./keys.ts";
import { listSql, type Prepared, prepared } from "./lookup-sql.ts";
import { Lookups } from "./lookups.ts";
import {
  borrow,
  createPool,
  DEFAULT_POOL_SIZE,
  DEFAULT_QUERY_TIMEOUT_MS,
  giveBack,
  ImportSlots,
  importShare,
  MIN_POOL_SIZE,
  NO_TIMEOUT,
  type PoolStats,
  statsOf,
  type TimedQuery,
} from "./pool.ts";
import { checkSchemaName, DEFAULT_SCHEMA, migrateSchema, type Tables, tablesOf } from "./schema.ts";
import { beginStagedImport } from "./staged-import.ts";
import { DEFAULT_SWEEP_INTERVAL_MS, startSweep } from "./sweep.ts";
import { countUsage, readTenants, type Statement, writeTenant } from "./tenants.ts";
import { unholdable, unholdableSite, unholdableSiteError } from "./unholdable.ts";

/** Options of `createPostgresStore`: a URL (the store opens and closes its pool) or a pool you own; the schema of its tables. */
export interface PostgresStoreOptions {
  /** `postgres://user:password@host:5432/database`; the store opens a pool of `poolSize` connections. */
  readonly url?: string;
  /** A `pg` pool you own: the store never ends it, and takes its size from it. */
  readonly pool?: pg.Pool;
  /** The schema of the store's tables, created if missing; a TypeError when `schemaProblem` refuses it. Default `catalog`. */
  readonly schema?: string;
  /** Connections of the pool the store opens, at least 2 (imports hold all but a quarter). Default 10. */
  readonly poolSize?: number;
  /** How long a call waits for a free connection before it fails with `STORAGE_UNAVAILABLE`. Default 5,000 ms. */
  readonly acquireTimeoutMs?: number;
  /**
   * How long a statement may go unanswered before its call fails with `STORAGE_UNAVAILABLE` and
   * its connection is closed; not an import's commit, which may run long. Default 10,000 ms.
   */
  readonly queryTimeoutMs?: number;
  /** How often the store deletes expired idempotency records and claims, ended usage counters, and what imports that died wrote; 0 never (another store sweeps). Default 60,000 ms. */
  readonly sweepIntervalMs?: number;
}

/** A `CatalogStore` on PostgreSQL, with its pool's figures for metrics. */
export interface PostgresStore extends CatalogStore {
  /** Connections open, idle and lent out, calls waiting for one, and imports holding one or waiting. */
  poolStats(): PoolStats;
}

// The product `remove` addresses: by id first, then by sku, in one statement.
function matchSql(t: Tables, by: KeyField | undefined, columns: string): string {
  const site = `(SELECT site FROM ${t.sites} WHERE site_type = $1 AND site_id = $2)`;
  const arms = [];
  if (by !== "sku") arms.push(`SELECT ${columns}, 0 AS rank FROM ${t.products} WHERE site = ${site} AND id = $3`);
  if (by !== "id") arms.push(`SELECT ${columns}, 1 AS rank FROM ${t.products} WHERE site = ${site} AND sku = $3`);
  return `SELECT ${columns} FROM (${arms.join(" UNION ALL ")}) m ORDER BY rank LIMIT 1`;
}

/** Opens a `CatalogStore` on PostgreSQL; its tables are created or migrated before its first call. */
export function createPostgresStore(options: PostgresStoreOptions): PostgresStore {
  if ((options.url === undefined) === (options.pool === undefined)) {
    throw new TypeError("createPostgresStore needs exactly one of `url` and `pool`");
  }
  const tables = tablesOf(checkSchemaName(options.schema ?? DEFAULT_SCHEMA));
  const acquireTimeoutMs = options.acquireTimeoutMs ?? 5_000;
  const poolSize = options.pool?.options.max ?? options.poolSize ?? DEFAULT_POOL_SIZE;
  // With one connection, a stalled upload would leave lookups none: refused rather than starved.
  if (!Number.isSafeInteger(poolSize) || poolSize < MIN_POOL_SIZE) {
    throw new TypeError(
      `createPostgresStore needs a pool of at least ${MIN_POOL_SIZE} connections (one for imports, one kept for lookups), got ${poolSize}`,
    );
  }
  const queryTimeoutMs = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  // The driver takes 0 for "no timeout": refused rather than unbounded.
  if (!(queryTimeoutMs >= 1 && queryTimeoutMs <= NO_TIMEOUT)) {
    throw new TypeError(`queryTimeoutMs must be a number of milliseconds from 1 to 2^31 - 1, got ${queryTimeoutMs}`);
  }
  const pool = options.pool ?? createPool(options.url as string, poolSize, acquireTimeoutMs, queryTimeoutMs);
  const slots = new ImportSlots(importShare(poolSize), acquireTimeoutMs);
  const lists = { first: prepared(listSql(tables, false)), after: prepared(listSql(tables, true)) };
  let migration: Promise<unknown> | undefined;
  let migrated = false;
  let closing: Promise<void> | undefined;

  // Once per store; a failure is not kept, so that the next call tries again.
  function ready(): Promise<unknown> {
    migration ??= migrateSchema(pool, tables.schema).then(
      () => {
        migrated = true;
      },
      (error) => {
        migration = undefined;
        throw error;
      },
    );
    return migration;
  }
  const sweep = startSweep(pool, tables, options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS, () => migrated);

  async function read<R extends pg.QueryResultRow>(
    what: string,
    sql: string | Prepared,
    args: unknown[],
  ): Promise<R[]> {
    try {
      await ready();
      // The timeout is set here too for a pool the store was given: GET and `/healthz` are bounded whatever its settings.
      const query: TimedQuery =
        typeof sql === "string"
          ? { text: sql, values: args, query_timeout: queryTimeoutMs }
          : { ...sql, values: args, query_timeout: queryTimeoutMs };
      return (await pool.query<R>(query)).rows;
    } catch (error) {
      throw unavailable(error, what);
    }
  }

  // A write in one statement (its own transaction): refused by the server, it wrote nothing; its
  // answer lost, it may have committed.
  function write(what: string): Statement {
    return async <R extends object>(sql: string, args: unknown[]) => {
      try {
        await ready();
      } catch (error) {
        throw unavailable(error, what, "nothing written");
      }
      try {
        return (await pool.query({ text: sql, values: args, query_timeout: queryTimeoutMs } as TimedQuery)).rows as R[];
      } catch (error) {
        throw unavailable(error, what, serverAnswered(error) ? "nothing written" : "unknown");
      }
    };
  }
  const reader =
    (what: string): Statement =>
    async <R extends object>(sql: string, args: unknown[]) =>
      (await read(what, sql, args)) as R[];

  const lookups = new Lookups(tables, read);
  const digests = new BaseDigests();

  return {
    async beginImport(site, writeOptions) {
      if (unholdableSite(site)) throw unholdableSiteError(site);
      try {
        await ready();
      } catch (error) {
        throw unavailable(error, "import", "nothing written");
      }
      return beginStagedImport({ pool, slots, tables, digests }, site, writeOptions);
    },

    async find(site, key, by) {
      const body = await lookups.find(site, key, by);
      return body === undefined ? undefined : digests.decode(body);
    },

    async remove(site: Site, key: string, by?: KeyField, expected?: Product): Promise<Product | undefined> {
      if (unholdable(key) || unholdableSite(site)) return undefined;
      let client: pg.PoolClient | undefined;
      let broken: Error | undefined;
      let committing = false;
      try {
        await ready();
        client = await borrow(pool);
        await client.query("BEGIN");
        const locked = await client.query(
          `SELECT site FROM ${tables.sites} WHERE site_type = $1 AND site_id = $2 FOR UPDATE`,
          [site.siteType, site.siteId],
        );
        // Without `expected` ($5 NULL), whatever matched is removed.
        const { rows } =
          locked.rows.length === 0
            ? { rows: [] }
            : await client.query<{ body: string; removed: boolean }>(
                `WITH matched AS (${matchSql(tables, by, "id, body")}),
                   removed AS (DELETE FROM ${tables.products} WHERE site = $4 AND id = (SELECT id FROM matched)
                     AND ($5::text IS NULL OR body = $5) RETURNING 1)
                 SELECT body, EXISTS (SELECT 1 FROM removed) AS removed FROM matched`,
                [
                  site.siteType,
                  site.siteId,
                  key,
                  locked.rows[0].site,
                  expected === undefined ? null : digests.body(expected),
                ],
              );
        committing = rows[0]?.removed === true;
        await client.query(committing ? "COMMIT" : "ROLLBACK");
        return rows[0] && decodeProduct(rows[0].body);
      } catch (error) {
        broken = error as Error;
        const outcome = committing && !serverAnswered(error) ? "unknown" : "nothing written";
        throw unavailable(error, "remove", outcome);
      } finally {
        if (client !== undefined) giveBack(client, broken);
      }
    },

    async list(site, after, limit) {
      if (unholdableSite(site)) return [];
      const rows = await read<{ body: string }>(
        "list",
        after === undefined ? lists.first : lists.after,
        after === undefined ? [site.siteType, site.siteId, limit] : [site.siteType, site.siteId, limit, after],
      );
      return rows.map((row) => decodeProduct(row.body));
    },

    async claimKey(site, key, leaseMs) {
      if (unholdableSite(site)) throw unholdableSiteError(site);
      try {
        await ready();
      } catch (error) {
        throw unavailable(error, "idempotency key claim", "nothing written");
      }
      return claimKey(pool, tables, site, key, leaseMs);
    },

    readTenants: (since) => readTenants(reader("tenants read"), tables, since),

    writeTenant: (change) => writeTenant(write("tenants write"), tables, change),

    countUsage: (counts, ttlMs) => countUsage(write("usage count"), tables, counts, ttlMs),

    saveImport: (site, entry, save) => saveImport(write("import history save"), tables, site, entry, save),

    readImport: (site, id) => readImport(reader("import history read"), tables, site, id, "value"),

    listImports: (site, before, limit) => listImports(reader("import history read"), tables, site, before, limit),

    readImportProblems: (site, id) => readImport(reader("problem report read"), tables, site, id, "problems"),

    claimDeliveries: (now, leaseMs, limit) => claimDeliveries(write("delivery claim"), tables, now, leaseMs, limit),

    settleDelivery: (id, lease, next) => settleDelivery(write("delivery settle"), tables, id, lease, next),

    async ping() {
      await read("ping", "SELECT 1", []);
    },

    poolStats: () => statsOf(pool, slots),

    close() {
      closing ??= sweep.stop().then(() => (options.pool === undefined ? pool.end() : undefined));
      return closing;
    },
  };
}
