// vitest's `describe` for tests that need a PostgreSQL server, apart from the launcher so that
// the bench (no vitest there) never loads vitest.

import { describe, test } from "vitest";
import { havePostgres, POSTGRES_INSTALL_HINT } from "./postgres-server.ts";

/**
 * `describe` for tests that need a PostgreSQL server of their own. Without one, CI (`CI=true`)
 * fails with an install hint; elsewhere the block is skipped, loudly.
 */
export function describeWithPostgres(name: string, body: () => void): void {
  if (havePostgres) {
    describe(name, body);
  } else if (process.env.CI === "true") {
    describe(name, () => {
      test("PostgreSQL is installed", () => {
        throw new Error(POSTGRES_INSTALL_HINT);
      });
    });
  } else {
    console.warn(`\n!!! SKIPPING "${name}": ${POSTGRES_INSTALL_HINT}\n`);
    describe.skip(name, body);
  }
}
