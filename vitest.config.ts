import { configDefaults, defineConfig } from "vitest/config";

const conditions = ["@catalog-kit/source"];

// Test files that measure the whole process (its peak memory), which the heap of files run before
// them in the same process would distort, and SQLite's, which start writer threads and kill some
// mid-call: a process they shared with other files once exited without a word on Node.js 24
// (not reproduced alone), so each runs in a process of its own.
const ISOLATED = ["packages/http-node/test/hostile.test.ts", "packages/adapter-sqlite/test/**/*.test.ts"];
const ALL = [
  "test/**/*.test.ts",
  "packages/*/test/**/*.test.ts",
  "examples/test/**/*.test.ts",
  "bench/test/**/*.test.ts",
];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: conditions } },
  test: {
    // One redis-server, Redis Cluster and PostgreSQL for the run, started when a file first asks.
    globalSetup: ["packages/test-support/src/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      // Files share their worker's modules, loaded once per worker rather than once per file (the
      // whole run's module loading fell from 122 s to 20 s). Each file keeps its own servers, ports,
      // key prefixes and schemas.
      {
        extends: true,
        test: { name: "shared", include: ALL, isolate: false, exclude: [...configDefaults.exclude, ...ISOLATED] },
      },
      { extends: true, test: { name: "isolated", include: ISOLATED } },
    ],
  },
});
