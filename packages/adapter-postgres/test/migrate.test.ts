// Schema creation at start-up: servers starting at once on an empty database migrate once, a
// migration run ahead of a deploy leaves them nothing to do, and a schema newer than the code
// is refused rather than written to.
import { createPostgresStore, migrate, SCHEMA_VERSION } from "@catalog-kit/adapter-postgres";
import { isCatalogError } from "@catalog-kit/catalog-core";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { type PostgresServer, startPostgres } from "@catalog-kit/test-support";
import { describeWithPostgres } from "@catalog-kit/test-support/vitest";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { importInChunks, products } from "./support/fixtures.ts";

describeWithPostgres("PostgreSQL store: migrations", () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });

  test("eight stores starting at once on an empty schema all work, and the schema is migrated once", async () => {
    const schema = "racing start";
    const stores = Array.from({ length: 8 }, () => createPostgresStore({ url: server.url, schema }));
    const site = uniqueSite();
    try {
      await Promise.all(stores.map((store) => store.ping()));
      await Promise.all(stores.map((store, k) => importInChunks(store, site, products(k * 10, k * 10 + 10, "s"))));
      expect((await stores[0]?.list(site, undefined, 100))?.length).toBe(80);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    const { rows } = await client.query(`SELECT version FROM "racing start".schema_migrations ORDER BY version`);
    await client.end();
    expect(rows.map((r) => r.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
  });

  test("migrate ahead of a deploy, then again: the second finds nothing to do", async () => {
    expect(await migrate({ url: server.url, schema: "ahead" })).toEqual({ from: 0, to: SCHEMA_VERSION });
    expect(await migrate({ url: server.url, schema: "ahead" })).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
  });

  test("a schema newer than the code is refused with STORAGE_UNAVAILABLE", async () => {
    await migrate({ url: server.url, schema: "newer" });
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    await client.query(`INSERT INTO newer.schema_migrations (version) VALUES (${SCHEMA_VERSION + 1})`);
    await client.end();
    const store = createPostgresStore({ url: server.url, schema: "newer" });
    const error = await store.ping().catch((e) => e);
    await store.close();
    expect(isCatalogError(error, "STORAGE_UNAVAILABLE")).toBe(true);
    expect(error.cause.message).toMatch(/newer than this version of the store knows/);
  });
});
