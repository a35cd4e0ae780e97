// Moved to @catalog-kit/test-support; this re-export stays only until http-node's cli-redis test
// imports from there, and then goes.
export * from "@catalog-kit/test-support";
