// Behind PgBouncer: in session pooling the store works as on PostgreSQL itself; in transaction or
// statement pooling (a server process lent per transaction, so no temporary table, session lock
// or setting lasts) it refuses at start-up, saying why and what to do, and writes nothing.

import { setTimeout as sleep } from "node:timers/promises";
import { createPostgresStore, migrate } from "@catalog-kit/adapter-postgres";
import { isCatalogError } from "@catalog-kit/catalog-core";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { type Pgbouncer, type PostgresServer, startPgbouncer, startPostgres } from "@catalog-kit/test-support";
import { describeWithPgbouncer } from "@catalog-kit/test-support/vitest";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { importInChunks, products, titles } from "./support/fixtures.ts";

describeWithPgbouncer("PostgreSQL store behind PgBouncer", () => {
  let postgres: PostgresServer;
  const bouncers: Partial<Record<"session" | "transaction" | "statement", Pgbouncer>> = {};

  beforeAll(async () => {
    postgres = await startPostgres();
    for (const poolMode of ["session", "transaction", "statement"] as const) {
      bouncers[poolMode] = await startPgbouncer({ postgresPort: postgres.port, poolMode });
    }
  }, 60_000);
  afterAll(async () => {
    await Promise.all(Object.values(bouncers).map((bouncer) => bouncer.stop()));
    await postgres?.stop();
  });

  async function schemaExists(schema: string): Promise<boolean> {
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    try {
      const { rows } = await admin.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
      return rows.length > 0;
    } finally {
      await admin.end();
    }
  }

  test.each(["transaction", "statement"] as const)(
    "in %s pooling, the store and migrate refuse with STORAGE_UNAVAILABLE naming PgBouncer and what to do, and create nothing",
    async (mode) => {
      const url = (bouncers[mode] as Pgbouncer).url;
      const schema = `refused_${mode}`;
      const store = createPostgresStore({ url, schema });
      try {
        for (const call of [
          () => store.ping(),
          () => store.find(uniqueSite(), "p1"),
          () => store.list(uniqueSite(), undefined, 1),
        ]) {
          const error = await call().then(
            () => undefined,
            (caught: unknown) => caught,
          );
          expect(isCatalogError(error, "STORAGE_UNAVAILABLE"), String(error)).toBe(true);
          expect((error as Error).message).toMatch(/PgBouncer with pool_mode = transaction/);
          expect((error as Error).message).toMatch(/pool_mode = session .* or connect to PostgreSQL directly/);
        }
        const imported = await store.beginImport(uniqueSite(), { dryRun: false, replace: false }).then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(isCatalogError(imported, "STORAGE_UNAVAILABLE")).toBe(true);
        await expect(migrate({ url, schema })).rejects.toThrow(/PgBouncer/);
        expect(await schemaExists(schema)).toBe(false);
      } finally {
        await store.close();
      }
    },
  );

  test("in session pooling, imports (staged on one connection), lookups, removes and pages work", async () => {
    const url = (bouncers.session as Pgbouncer).url;
    expect(await migrate({ url, schema: "through_session" })).toMatchObject({ from: 0 });
    const store = createPostgresStore({ url, schema: "through_session", poolSize: 4 });
    try {
      const site = uniqueSite();
      // Chunks apart, so that the staging outlives many transactions of its connection.
      const result = await importInChunks(store, site, products(0, 300, "s"), { chunk: 50, pause: () => sleep(5) });
      expect(result).toMatchObject({ counts: { created: 300 } });
      const found = await Promise.all(products(0, 300, "s").map((p) => store.find(site, p.id)));
      expect(found.map((p) => p?.title)).toEqual(products(0, 300, "s").map((p) => p.title));
      expect((await store.remove(site, "sku-7"))?.id).toBe("p00007");
      expect((await titles(store, site)).size).toBe(299);
      // Two imports at once, each on its own connection and session.
      const [a, b] = [uniqueSite(), uniqueSite()];
      await Promise.all([
        importInChunks(store, a, products(0, 100, "a"), { chunk: 10, pause: () => sleep(2) }),
        importInChunks(store, b, products(0, 100, "b"), { chunk: 10, pause: () => sleep(2) }),
      ]);
      expect([...(await titles(store, a)).values()]).toEqual(products(0, 100, "a").map((p) => p.title));
      expect([...(await titles(store, b)).values()]).toEqual(products(0, 100, "b").map((p) => p.title));
    } finally {
      await store.close();
    }
  });
});
