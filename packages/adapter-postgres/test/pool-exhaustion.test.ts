// Slow imports holding connections: they may take all but a quarter of the pool, so lookups go
// on answering; an import past that share, or a call that finds no connection, fails fast with
// STORAGE_UNAVAILABLE instead of waiting for ever.
import { createPostgresStore, type PostgresStore } from "@catalog-kit/adapter-postgres";
import { isCatalogError, type StagedImport } from "@catalog-kit/catalog-core";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { describeWithPostgres, FILE_TAG, sharedPostgres } from "@catalog-kit/test-support/vitest";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { importInChunks, product, products } from "./support/fixtures.ts";

describeWithPostgres("PostgreSQL store: the pool taken by slow imports", () => {
  let url: string;
  let store: PostgresStore;
  const site = uniqueSite();

  beforeAll(async () => {
    url = await sharedPostgres();
    store = createPostgresStore({ url, schema: FILE_TAG, poolSize: 4, acquireTimeoutMs: 500 });
    await importInChunks(store, site, products(0, 100, "old"));
  });
  afterAll(async () => {
    await store?.close();
  });

  test("lookups answer while imports that stalled hold connections; one import too many fails fast", async () => {
    const stalled: StagedImport[] = [];
    for (let k = 0; k < 3; k++) {
      const staged = await store.beginImport(uniqueSite(), { dryRun: false });
      await staged.add([product(k, "slow")], [1]);
      stalled.push(staged);
    }
    expect(store.poolStats()).toMatchObject({ imports: 3, total: 3 });

    const started = Date.now();
    const refused = await store.beginImport(uniqueSite(), { dryRun: false }).catch((error) => error);
    expect(isCatalogError(refused, "STORAGE_UNAVAILABLE")).toBe(true);
    expect(refused.message).toMatch(/nothing was written/);
    expect(Date.now() - started).toBeLessThan(3000);

    // Twenty lookups at once share the connection left to them.
    const found = await Promise.all(Array.from({ length: 20 }, (_, i) => store.find(site, product(i, "old").id)));
    expect(found.map((p) => p?.title)).toEqual(Array.from({ length: 20 }, (_, i) => `old ${i}`));
    expect((await store.list(site, undefined, 10)).length).toBe(10);

    for (const staged of stalled) await staged.abort();
    expect(store.poolStats()).toMatchObject({ imports: 0, importsWaiting: 0 });
    expect((await importInChunks(store, uniqueSite(), products(0, 10, "after"))).applied).toBe(true);
  });

  test("a pool of one connection is refused, whether the store opens it or is given it", async () => {
    expect(() => createPostgresStore({ url, schema: FILE_TAG, poolSize: 1 })).toThrow(
      /at least 2 connections \(one for imports, one kept for lookups\), got 1/,
    );
    const own = new pg.Pool({ connectionString: url, max: 1 });
    try {
      expect(() => createPostgresStore({ pool: own, schema: FILE_TAG })).toThrow(/at least 2 connections/);
    } finally {
      await own.end();
    }
  });

  test("a pool of two: an import stalled mid-stream leaves a lookup its connection; a second import fails fast", async () => {
    const small = createPostgresStore({ url, schema: FILE_TAG, poolSize: 2, acquireTimeoutMs: 2000 });
    try {
      await small.ping();
      const staged = await small.beginImport(uniqueSite(), { dryRun: false });
      await staged.add([product(0, "slow")], [1]);
      const started = Date.now();
      expect((await small.find(site, "p00001"))?.title).toBe("old 1");
      expect(Date.now() - started).toBeLessThan(500);
      const refused = await small.beginImport(uniqueSite(), { dryRun: false }).catch((error) => error);
      expect(isCatalogError(refused, "STORAGE_UNAVAILABLE")).toBe(true);
      await staged.abort();
    } finally {
      await small.close();
    }
  });

  test("a lookup that finds no connection free fails fast", async () => {
    const own = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 300 });
    const small = createPostgresStore({ pool: own, schema: FILE_TAG, acquireTimeoutMs: 300 });
    try {
      await small.ping();
      const staged = await small.beginImport(uniqueSite(), { dryRun: false });
      // The connection left to lookups, taken by someone else.
      const taken = await own.connect();
      const started = Date.now();
      const error = await small.find(site, "p00001").catch((e) => e);
      expect(isCatalogError(error, "STORAGE_UNAVAILABLE")).toBe(true);
      expect(error.message).toMatch(/no connection of the pool was free in time/);
      expect(Date.now() - started).toBeLessThan(3000);
      taken.release();
      await staged.abort();
      expect((await small.find(site, "p00001"))?.title).toBe("old 1");
    } finally {
      await small.close();
      await own.end();
    }
  });
});
