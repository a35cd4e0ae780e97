// The vitest helpers of the workspace: `describe` for tests that need a server of their own, and
// the servers a whole run shares, for tests that only need a working one.
export { FILE_TAG, sharedPostgres, sharedRedis, sharedRedisCluster } from "./shared.ts";
export { describeWithPgbouncer } from "./with-pgbouncer.ts";
export { describeWithPostgres } from "./with-postgres.ts";
export { describeWithRedis } from "./with-redis.ts";
