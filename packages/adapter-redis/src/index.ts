export type { RedisConnection } from "./connection.ts";
export { createRedisStore, type RedisStoreOptions, type RedisStoreTuning } from "./redis-store.ts";
