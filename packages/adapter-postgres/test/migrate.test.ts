// Schema creation at start-up: servers starting at once on an empty database migrate once, a
// migration run ahead of a deploy leaves them nothing to do, tables of the previous version are
// migrated with their products kept, and a schema newer than the code is refused rather than
// written to.
import { createPostgresStore, migrate, SCHEMA_VERSION } from "@catalog-kit/adapter-postgres";
import { encodeProduct, isCatalogError, type Product } from "@catalog-kit/catalog-core";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { type PostgresServer, startPostgres } from "@catalog-kit/test-support";
import { describeWithPostgres } from "@catalog-kit/test-support/vitest";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { migrateSchema } from "../src/schema.ts";
import { importInChunks, products, titles } from "./support/fixtures.ts";

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

  test("tables of version 1 (before idempotency keys) are migrated; their products stay, and keys work", async () => {
    const schema = "from one";
    const pool = new pg.Pool({ connectionString: server.url });
    const site = uniqueSite();
    try {
      expect(await migrateSchema(pool, schema, 1)).toEqual({ from: 0, to: 1 });
      await pool.query(`INSERT INTO "${schema}".sites (site_type, site_id) VALUES ($1, $2)`, [
        site.siteType,
        site.siteId,
      ]);
      // A product as version 1 kept it, written without the store (which would migrate first).
      const old = products(0, 1, "old")[0] as Product;
      await pool.query(
        `INSERT INTO "${schema}".products SELECT site, $1, $2, $3 FROM "${schema}".sites WHERE site_id = $4`,
        [old.id, old.sku, encodeProduct(old), site.siteId],
      );
    } finally {
      await pool.end();
    }
    expect(await migrate({ url: server.url, schema })).toEqual({ from: 1, to: SCHEMA_VERSION });
    const store = createPostgresStore({ url: server.url, schema });
    try {
      expect(await titles(store, site)).toEqual(new Map([["p00000", "old 0"]]));
      const key = { key: "k", fingerprint: "f", retainMs: 60_000, claimed: false };
      expect(await importInChunks(store, site, products(0, 2, "new"), { key })).toEqual({
        applied: true,
        counts: { created: 1, updated: 1, unchanged: 0 },
      });
      expect((await store.claimKey(site, "k", 60_000)).state).toBe("recorded");
    } finally {
      await store.close();
    }
  });

  test("tables of version 4 (before the import history) are migrated; the tenants registry stays, and history and deliveries work", async () => {
    const schema = "from four";
    const pool = new pg.Pool({ connectionString: server.url });
    const site = uniqueSite();
    try {
      expect(await migrateSchema(pool, schema, 4)).toEqual({ from: 0, to: 4 });
      // Written without the store, which would migrate first.
      await pool.query(`INSERT INTO "${schema}".tenants (key, value) VALUES ('site:a', '{}')`);
      await pool.query(`UPDATE "${schema}".tenants_version SET version = 1`);
    } finally {
      await pool.end();
    }
    expect(await migrate({ url: server.url, schema })).toEqual({ from: 4, to: SCHEMA_VERSION });
    const store = createPostgresStore({ url: server.url, schema });
    try {
      expect(await store.readTenants()).toEqual({ version: 1, entries: [{ key: "site:a", value: "{}" }] });
      const delivery = { id: "d1", dueAt: 1_000, value: "{}" };
      await store.saveImport(site, { id: "000000000001a", value: "{}" }, { problems: "p", deliveries: [delivery] });
      expect(await store.listImports(site, undefined, 10)).toEqual([{ id: "000000000001a", value: "{}" }]);
      expect(await store.readImportProblems(site, "000000000001a")).toBe("p");
      expect(await store.claimDeliveries(1_000, 60_000, 10)).toEqual([{ ...delivery, lease: expect.any(String) }]);
    } finally {
      await store.close();
    }
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
