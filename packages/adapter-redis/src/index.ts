// The public surface of @catalog-kit/adapter-redis.
export { clusterClientOptions, type RedisConnection, redisClientOptions } from "./connection.ts";
export { DEFAULT_KEY_PREFIX } from "./keys.ts";
export { createRedisStore, type RedisStoreOptions, type RedisStoreTuning } from "./redis-store.ts";
export type { Replication } from "./replication.ts";
