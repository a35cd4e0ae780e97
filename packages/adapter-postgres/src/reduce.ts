// The staging reduced to the import's products, `pg_temp.catalog_import_ids`: the last product of
// each id and its base, with its first position (which orders claims of one sku) and its last
// (which a conflict names). Most imports name every id once; then the staging is its own
// reduction, and a view over it spares the sort and the copy of every body that the general
// reduction costs.
import type pg from "pg";
import { isUniqueViolation } from "./errors.ts";

/** The staging table of an import: one per connection, which holds one import at a time. */
export const STAGING = "pg_temp.catalog_import";
/** The `seq` and position of each product an import into a new site wrote directly (new-site.ts). */
export const ORDER = "pg_temp.catalog_import_order";
/** The import's products, one per id, as the commit's statements read them. */
export const IDS = "pg_temp.catalog_import_ids";

// The general case: a table dropped with the transaction; analysed, since autovacuum never looks
// at temporary tables and the plans of the commit depend on its size.
const REDUCE = `
  CREATE TEMP TABLE catalog_import_ids ON COMMIT DROP AS
    SELECT DISTINCT ON (id) id, sku, body, base, position AS last_position,
      min(position) OVER (PARTITION BY id) AS first_position
    FROM ${STAGING} ORDER BY id, seq DESC;
  CREATE UNIQUE INDEX ON ${IDS} (id);
  CREATE INDEX ON ${IDS} (sku);
  ANALYZE ${IDS}`;

// The unique index is the test: building it fails when an id repeats. Its name is fixed, so
// that the cleanup below can drop it.
const UNIQUE_IDS = `CREATE UNIQUE INDEX catalog_import_id ON ${STAGING} (id)`;
const UNIQUE_SKUS = `CREATE UNIQUE INDEX catalog_import_sku ON ${STAGING} (sku)`;
const SKUS = `CREATE INDEX catalog_import_sku ON ${STAGING} (sku)`;
const VIEW = `
  CREATE TEMP VIEW catalog_import_ids AS
    SELECT id, sku, body, base, position AS last_position, position AS first_position FROM ${STAGING};
  ANALYZE ${STAGING}`;
// Dropped before the transaction commits: the staging table outlives it, with the connection.
const CLEANUP = `DROP VIEW ${IDS}; DROP INDEX pg_temp.catalog_import_id, pg_temp.catalog_import_sku`;

/** How the staging was reduced. */
export interface Reduced {
  /** No sku is named by two of the import's products: no claim can conflict. */
  readonly skusUnique: boolean;
  /** What must run before the transaction commits, if anything. */
  readonly cleanup: string | undefined;
}

// Runs `sql` under a savepoint: false, with the transaction as before, when it breaks a unique index.
async function unlessRepeated(client: pg.ClientBase, sql: string): Promise<boolean> {
  await client.query("SAVEPOINT catalog_reduce");
  try {
    await client.query(sql);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    await client.query("ROLLBACK TO SAVEPOINT catalog_reduce");
    return false;
  }
  await client.query("RELEASE SAVEPOINT catalog_reduce");
  return true;
}

/** Makes `IDS` hold the import's products, inside the commit's transaction. */
export async function reduceStaging(client: pg.ClientBase): Promise<Reduced> {
  if (!(await unlessRepeated(client, UNIQUE_IDS))) {
    await client.query(REDUCE);
    return { skusUnique: false, cleanup: undefined };
  }
  const skusUnique = await unlessRepeated(client, UNIQUE_SKUS);
  if (!skusUnique) await client.query(SKUS);
  await client.query(VIEW);
  return { skusUnique, cleanup: CLEANUP };
}
