// An import into a site that has no row yet writes its chunks into the products table as they
// arrive, under a number of its own: nothing of it is visible before its commit, the commit
// publishes it whole, a repeat sends it back to the staging with every position kept, and what
// an import that died or was aborted wrote is deleted by the sweep, never what a running one wrote.
import { createPostgresStore, type PostgresStore } from "@catalog-kit/adapter-postgres";
import { isCatalogError } from "@catalog-kit/catalog-core";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { type PostgresServer, startPostgres } from "@catalog-kit/test-support";
import { describeWithPostgres } from "@catalog-kit/test-support/vitest";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { tablesOf } from "../src/schema.ts";
import { sweepAbandonedSites } from "../src/sweep.ts";
import { importInChunks, product, products, titles } from "./support/fixtures.ts";

// Products under a number no site's row has: written by an import into a new site, not yet published.
const UNPUBLISHED = `SELECT count(*)::int AS n FROM catalog.products p
  WHERE NOT EXISTS (SELECT 1 FROM catalog.sites s WHERE s.site = p.site)`;

describeWithPostgres("PostgreSQL store: imports into a new site", () => {
  let server: PostgresServer;
  let store: PostgresStore;
  let admin: pg.Pool;
  const sweep = () => sweepAbandonedSites(admin, tablesOf("catalog"));
  const unpublished = async () => (await admin.query(UNPUBLISHED)).rows[0].n as number;
  const newSites = async () => (await admin.query("SELECT count(*)::int AS n FROM catalog.new_sites")).rows[0].n;
  const positions = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i + 1);

  beforeAll(async () => {
    server = await startPostgres();
    // No timer: the tests sweep when they mean to.
    store = createPostgresStore({ url: server.url, sweepIntervalMs: 0 });
    await store.ping();
    admin = new pg.Pool({ connectionString: server.url });
  });
  afterAll(async () => {
    await admin?.end();
    await store?.close();
    await server?.stop();
  });

  test("chunks are written as they arrive, seen by no one, and published whole by the commit", async () => {
    const site = uniqueSite();
    const staged = await store.beginImport(site, { dryRun: false });
    await staged.add(products(0, 1500, "a"), positions(0, 1500));
    await staged.add(products(1500, 3000, "a"), positions(1500, 1500));
    expect(await unpublished()).toBe(3000);
    expect(await store.find(site, "p00001")).toBeUndefined();
    // A running import holds its number's lock: the sweep leaves it.
    expect(await sweep()).toBe(0);
    expect(await staged.commit()).toEqual({ applied: true, counts: { created: 3000, updated: 0, unchanged: 0 } });
    expect([await unpublished(), await newSites()]).toEqual([0, 0]);
    expect((await titles(store, site)).size).toBe(3000);
  });

  test("a sku repeated in a later chunk: judged in full, the conflict at its own position, nothing left", async () => {
    const site = uniqueSite();
    const claim = { ...product(5, "b"), id: "q5" };
    const refused = await importInChunks(store, site, [...products(0, 1000, "b"), claim, product(1000, "b")], {
      chunk: 500,
    });
    expect(refused).toEqual({
      applied: false,
      conflicts: [{ sku: "sku-5", id: "q5", heldBy: "p00005", position: 1001 }],
    });
    expect((await titles(store, site)).size).toBe(0);
    // A repeated id is no conflict: the last product of the id wins.
    const again = await importInChunks(store, site, [...products(0, 1000, "c"), product(3, "last")], { chunk: 500 });
    expect(again).toEqual({ applied: true, counts: { created: 1000, updated: 0, unchanged: 0 } });
    expect((await titles(store, site)).get("p00003")).toBe("last 3");
    expect(await sweep()).toBe(0);
    expect(await unpublished()).toBe(0);
  });

  test("an import aborted, or whose backend died, leaves its rows unseen until the sweep deletes them", async () => {
    const aborted = uniqueSite();
    const staged = await store.beginImport(aborted, { dryRun: false });
    await staged.add(products(0, 700, "d"), positions(0, 700));
    await staged.abort();

    const killed = uniqueSite();
    const dying = await store.beginImport(killed, { dryRun: false });
    await dying.add(products(0, 400, "e"), positions(0, 400));
    await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objid = (SELECT max(site) FROM catalog.new_sites)",
    );
    const failed = await dying.add(products(400, 800, "e"), positions(400, 400)).catch((error: unknown) => error);
    expect(isCatalogError(failed, "STORAGE_UNAVAILABLE")).toBe(true);
    await dying.abort();

    expect(await unpublished()).toBe(1100);
    expect(await store.find(aborted, "p00001")).toBeUndefined();
    // The killed backend's lock goes once PostgreSQL has ended it.
    let swept = 0;
    await expect
      .poll(
        async () => {
          swept += await sweep();
          return unpublished();
        },
        { timeout: 5000 },
      )
      .toBe(0);
    expect([swept, await newSites()]).toEqual([1100, 0]);
    for (const site of [aborted, killed]) {
      expect((await importInChunks(store, site, products(0, 10, "f"))).applied).toBe(true);
    }
  });
});
