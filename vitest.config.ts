import { defineConfig } from "vitest/config";

const conditions = ["@catalog-kit/source"];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: conditions } },
  test: {
    include: [
      "test/**/*.test.ts",
      "packages/*/test/**/*.test.ts",
      "examples/test/**/*.test.ts",
      "bench/test/**/*.test.ts",
    ],
    // One redis-server, Redis Cluster and PostgreSQL for the run, started when a file first asks.
    globalSetup: ["packages/test-support/src/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
