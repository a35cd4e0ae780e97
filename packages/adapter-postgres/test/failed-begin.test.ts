// An import whose first statement fails (the database read-only for a moment, as a standby or a
// database switched to read-only is): each fails with STORAGE_UNAVAILABLE saying nothing was
// written, gives its connection and its import slot back, and once the database takes writes
// again an import runs at once and the store closes.
import { createPostgresStore, type PostgresStore } from "@catalog-kit/adapter-postgres";
import { isCatalogError } from "@catalog-kit/catalog-core";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { type PostgresServer, startPostgres } from "@catalog-kit/test-support";
import { describeWithPostgres } from "@catalog-kit/test-support/vitest";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { importInChunks, products } from "./support/fixtures.ts";

describeWithPostgres("PostgreSQL store: an import whose first statement fails", () => {
  let server: PostgresServer;
  let admin: pg.Client;

  beforeAll(async () => {
    server = await startPostgres();
    admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await server?.stop();
  });

  test("more failures than import slots: each says nothing was written, and nothing is leaked", async () => {
    // Four connections: three import slots.
    const store: PostgresStore = createPostgresStore({ url: server.url, poolSize: 4, acquireTimeoutMs: 3000 });
    let closed = false;
    try {
      await store.ping();
      await admin.query("ALTER DATABASE catalog SET default_transaction_read_only = on");
      // Connections opened from now on are read-only: the pool's open ones go.
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'catalog-kit'",
      );
      await expect.poll(() => store.poolStats().total).toBe(0);

      for (let k = 0; k < 5; k++) {
        const error = await store.beginImport(uniqueSite(), { dryRun: false }).catch((e: unknown) => e);
        expect(isCatalogError(error, "STORAGE_UNAVAILABLE")).toBe(true);
        expect((error as Error).message).toMatch(/read-only/);
        expect((error as Error).message).toMatch(/nothing was written/);
      }
      expect(store.poolStats()).toMatchObject({ imports: 0, importsWaiting: 0, inUse: 0 });

      await admin.query("ALTER DATABASE catalog RESET default_transaction_read_only");
      const started = Date.now();
      expect((await importInChunks(store, uniqueSite(), products(0, 10, "after"))).applied).toBe(true);
      expect(Date.now() - started).toBeLessThan(1500);

      const ended = await Promise.race([
        store.close().then(() => "closed"),
        new Promise((resolve) => setTimeout(resolve, 5000, "still open")),
      ]);
      closed = true;
      expect(ended).toBe("closed");
    } finally {
      await admin.query("ALTER DATABASE catalog RESET default_transaction_read_only");
      if (!closed) void store.close();
    }
  });
});
