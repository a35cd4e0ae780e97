// The bundled `"adapter": "postgres"`: PostgreSQL through adapter-postgres (and so pg), loaded
// only when a configuration names it. Its defaults and limits are the adapter's own, so that the
// file cannot drift from them.
import {
  createPostgresStore,
  DEFAULT_POOL_SIZE,
  DEFAULT_QUERY_TIMEOUT_MS,
  DEFAULT_SCHEMA,
  MIN_POOL_SIZE,
  schemaProblem,
} from "@catalog-kit/adapter-postgres";
import type { CatalogStore } from "@catalog-kit/catalog-core";
import * as v from "valibot";
import { milliseconds } from "./milliseconds.ts";

/** The options of a PostgreSQL storage: its URL, and the schema, pool size and query timeout. */
export const schema = v.strictObject({
  url: v.pipe(
    v.string("Must be a string"),
    v.regex(/^postgres(?:ql)?:\/\//, "Must start with postgres:// or postgresql://"),
  ),
  schema: v.optional(
    v.pipe(
      v.string("Must be a string"),
      v.rawCheck(({ dataset, addIssue }) => {
        const problem = dataset.typed ? schemaProblem(dataset.value) : undefined;
        if (problem !== undefined) addIssue({ message: problem });
      }),
    ),
    DEFAULT_SCHEMA,
  ),
  poolSize: v.optional(
    v.pipe(
      v.number("Must be a number"),
      v.integer("Must be an integer"),
      v.minValue(MIN_POOL_SIZE, `Must be at least ${MIN_POOL_SIZE}`),
    ),
    DEFAULT_POOL_SIZE,
  ),
  queryTimeoutMs: v.optional(milliseconds(1), DEFAULT_QUERY_TIMEOUT_MS),
});

type PostgresOptions = v.InferOutput<typeof schema>;

/** Opens a PostgreSQL store, creating or migrating its schema on first use. */
export function create({ url, schema, poolSize, queryTimeoutMs }: PostgresOptions): CatalogStore {
  return createPostgresStore({ url, schema, poolSize, queryTimeoutMs });
}
