// The vitest helpers of the workspace: `describe` for tests that need a server of their own.
export { describeWithPgbouncer } from "./with-pgbouncer.ts";
export { describeWithPostgres } from "./with-postgres.ts";
export { describeWithRedis } from "./with-redis.ts";
