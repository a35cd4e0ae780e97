// The bundled `"adapter": "sqlite"`, and the storage of a configuration that names none: the
// catalog in a SQLite file beside the configuration file, kept across restarts with nothing to
// install. Loaded only when named, so that node:sqlite is never opened for another storage.

import { isAbsolute, resolve } from "node:path";
import { createSqliteStore, DEFAULT_BUSY_TIMEOUT_MS } from "@catalog-kit/adapter-sqlite";
import type { CatalogStore } from "@catalog-kit/catalog-core";
import * as v from "valibot";
import type { StorageContext } from "./contract.ts";
import { milliseconds } from "./milliseconds.ts";

/** Where the catalog lives when `storage.path` is not given: a file beside the configuration file. */
export const DEFAULT_SQLITE_PATH = "catalog-kit.db";

/** The options of a SQLite storage: the file (relative to the configuration file's directory) and the busy timeout. */
export const schema = v.strictObject({
  path: v.optional(v.pipe(v.string("Must be a string"), v.minLength(1, "Must not be empty")), DEFAULT_SQLITE_PATH),
  busyTimeoutMs: v.optional(milliseconds(0), DEFAULT_BUSY_TIMEOUT_MS),
});

/** Opens the SQLite file (created with its tables if missing). */
export function create(options: v.InferOutput<typeof schema>, { configDir }: StorageContext): CatalogStore {
  const path =
    options.path === ":memory:" || isAbsolute(options.path) ? options.path : resolve(configDir, options.path);
  return createSqliteStore({ path, busyTimeoutMs: options.busyTimeoutMs });
}
