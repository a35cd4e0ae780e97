// Migrating ahead of a deploy: the same migration the store runs at start-up, on its own.
import type pg from "pg";
import { createPool, NO_TIMEOUT } from "./pool.ts";
import { checkSchemaName, DEFAULT_SCHEMA, migrateSchema } from "./schema.ts";

/**
 * Creates or migrates the store's tables in `schema` (default `catalog`) and resolves with the
 * versions before and after; safe while servers run or start (they wait on the same lock). A
 * schema name `schemaProblem` refuses is a TypeError.
 */
export async function migrate(options: {
  readonly url?: string;
  readonly pool?: pg.Pool;
  readonly schema?: string;
}): Promise<{ from: number; to: number }> {
  const schema = checkSchemaName(options.schema ?? DEFAULT_SCHEMA);
  // Run ahead of a deploy, it may build what takes long (an index on a large table): no timer.
  const pool = options.pool ?? createPool(options.url as string, 1, 30_000, NO_TIMEOUT);
  try {
    return await migrateSchema(pool, schema);
  } finally {
    if (options.pool === undefined) await pool.end();
  }
}
