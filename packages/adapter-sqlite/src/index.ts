// @catalog-kit/adapter-sqlite: the catalog in a SQLite file, on Node's built-in node:sqlite.
export { SCHEMA_VERSION } from "./schema.ts";
export { createSqliteStore, DEFAULT_BUSY_TIMEOUT_MS, type SqliteStoreOptions } from "./sqlite-store.ts";
