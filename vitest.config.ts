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
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
