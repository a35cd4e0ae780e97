// @catalog-kit/adapter-postgres: the catalog in PostgreSQL.
export { migrate } from "./migrate.ts";
export { DEFAULT_POOL_SIZE, DEFAULT_QUERY_TIMEOUT_MS, MIN_POOL_SIZE, type PoolStats } from "./pool.ts";
export { createPostgresStore, type PostgresStore, type PostgresStoreOptions } from "./postgres-store.ts";
export { DEFAULT_SCHEMA, SCHEMA_VERSION, schemaProblem } from "./schema.ts";
