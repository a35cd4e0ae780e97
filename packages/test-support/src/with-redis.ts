// vitest's `describe` for tests that need redis-server, apart from the launchers so that the
// bench (no vitest there) never loads vitest.

import { describe, test } from "vitest";
import { haveRedisServer, INSTALL_HINT } from "./redis-server.ts";

/**
 * `describe` for tests that need a real redis-server. Without one, CI (`CI=true`) fails with
 * an install hint; elsewhere the block is skipped, loudly.
 */
export function describeWithRedis(name: string, body: () => void): void {
  if (haveRedisServer) {
    describe(name, body);
  } else if (process.env.CI === "true") {
    describe(name, () => {
      test("redis-server is installed", () => {
        throw new Error(INSTALL_HINT);
      });
    });
  } else {
    console.warn(`\n!!! SKIPPING "${name}": ${INSTALL_HINT}\n`);
    describe.skip(name, body);
  }
}
