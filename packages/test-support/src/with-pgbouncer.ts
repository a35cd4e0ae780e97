// vitest's `describe` for tests that need PgBouncer in front of their own PostgreSQL.
import { describe, test } from "vitest";
import { havePgbouncer, PGBOUNCER_INSTALL_HINT } from "./pgbouncer.ts";
import { havePostgres, POSTGRES_INSTALL_HINT } from "./postgres-server.ts";

/**
 * `describe` for tests that need a PostgreSQL server and a PgBouncer of their own. Without
 * either, CI (`CI=true`) fails with an install hint; elsewhere the block is skipped, loudly.
 */
export function describeWithPgbouncer(name: string, body: () => void): void {
  const missing = [havePostgres ? [] : [POSTGRES_INSTALL_HINT], havePgbouncer ? [] : [PGBOUNCER_INSTALL_HINT]].flat();
  if (missing.length === 0) {
    describe(name, body);
  } else if (process.env.CI === "true") {
    describe(name, () => {
      test("PostgreSQL and PgBouncer are installed", () => {
        throw new Error(missing.join("; "));
      });
    });
  } else {
    console.warn(`\n!!! SKIPPING "${name}": ${missing.join("; ")}\n`);
    describe.skip(name, body);
  }
}
