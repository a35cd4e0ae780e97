// The public surface of @catalog-kit/adapter-redis.
export { clusterClientOptions, type RedisConnection, redisClientOptions } from "./connection.ts";
export { createRedisStore, type RedisStoreOptions, type RedisStoreTuning } from "./redis-store.ts";
