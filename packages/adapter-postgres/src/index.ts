// @catalog-kit/adapter-postgres: the catalog in PostgreSQL.
export { migrate } from "./migrate.ts";
export type { PoolStats } from "./pool.ts";
export { createPostgresStore, type PostgresStore, type PostgresStoreOptions } from "./postgres-store.ts";
export { SCHEMA_VERSION } from "./schema.ts";
