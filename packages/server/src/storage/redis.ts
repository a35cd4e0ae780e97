// The bundled `"adapter": "redis"`: one Redis server or a Cluster, through adapter-redis (and so
// ioredis), loaded only when a configuration names it. Its defaults and shapes are the adapter's
// own, so that the file cannot drift from them.
import { createRedisStore, DEFAULT_KEY_PREFIX, type Replication } from "@catalog-kit/adapter-redis";
import type { CatalogStore } from "@catalog-kit/catalog-core";
import * as v from "valibot";

const Whole = v.pipe(
  v.number("Must be a number"),
  v.integer("Must be an integer"),
  v.minValue(1, "Must be at least 1"),
);

const RedisUrl = v.pipe(
  v.string("Must be a string"),
  v.regex(/^rediss?:\/\//, "Must start with redis:// or rediss://"),
);

// adapter-redis's `waitForReplicas`, checked against its type: a field it adds or renames fails to compile here.
const ReplicationSchema = v.strictObject({ replicas: Whole, timeoutMs: Whole }) satisfies v.GenericSchema<
  unknown,
  Replication
>;

/** The options of a Redis storage: exactly one of `url` and `cluster`, a key prefix, and replication. */
export const schema = v.pipe(
  v.strictObject({
    url: v.optional(RedisUrl),
    cluster: v.optional(v.pipe(v.array(RedisUrl), v.minLength(1, "Must list at least one node"))),
    keyPrefix: v.optional(
      v.pipe(v.string("Must be a string"), v.minLength(1, "Must not be empty")),
      DEFAULT_KEY_PREFIX,
    ),
    waitForReplicas: v.optional(ReplicationSchema),
  }),
  v.check(
    (options) => (options.url === undefined) !== (options.cluster === undefined),
    "A redis storage needs exactly one of url and cluster",
  ),
);

/** Opens a Redis store on one server or a Cluster, under its key prefix. */
export function create({ url, cluster, keyPrefix, waitForReplicas }: v.InferOutput<typeof schema>): CatalogStore {
  const tuning = waitForReplicas === undefined ? { keyPrefix } : { keyPrefix, waitForReplicas };
  return createRedisStore(cluster === undefined ? { url: url as string, ...tuning } : { cluster, ...tuning });
}
