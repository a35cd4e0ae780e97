// Moved to @catalog-kit/test-support/vitest; this re-export stays only until http-node's
// cli-redis test imports from there, and then goes.
export { describeWithRedis } from "@catalog-kit/test-support/vitest";
