// The commit's shortcuts and their way back: an import into an empty site is inserted whole (its
// key recorded, or its record answered) and falls back to the general judgement when an id or a
// sku repeats; one that names every id once
// reads the staging through a view, dropped before the commit; the others are reduced; one with
// bases is judged in full. All on one import connection, which must be left clean for the next import.
import { createPostgresStore, type PostgresStore } from "@catalog-kit/adapter-postgres";
import type { CommitResult, Product, Site } from "@catalog-kit/catalog-core";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { type PostgresServer, startPostgres } from "@catalog-kit/test-support";
import { describeWithPostgres } from "@catalog-kit/test-support/vitest";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { importInChunks, product, products, titles } from "./support/fixtures.ts";

describeWithPostgres("PostgreSQL store: the commit's paths", () => {
  let server: PostgresServer;
  let store: PostgresStore;

  beforeAll(async () => {
    server = await startPostgres();
    // Two connections: one for imports, one for lookups, so that every import reuses the first.
    store = createPostgresStore({ url: server.url, poolSize: 2 });
    await store.ping();
  });
  afterAll(async () => {
    await store?.close();
    await server?.stop();
  });

  const created = (n: number) => ({ applied: true, counts: { created: n, updated: 0, unchanged: 0 } });

  test("into an empty site: inserted whole, or judged in full when an id or a sku repeats", async () => {
    const site = uniqueSite();
    expect(await importInChunks(store, site, [...products(0, 1500, "a"), product(7, "last")])).toEqual(created(1500));
    expect((await titles(store, site)).get("p00007")).toBe("last 7");

    const other = uniqueSite();
    const claim = { ...product(2, "b"), id: "q2", sku: "sku-1" };
    const refused = await importInChunks(store, other, [...products(0, 1200, "b"), claim]);
    expect(refused).toEqual({
      applied: false,
      conflicts: [{ sku: "sku-1", id: "q2", heldBy: "p00001", position: 1201 }],
    });
    expect((await titles(store, other)).size).toBe(0);

    const fresh = uniqueSite();
    expect(await importInChunks(store, fresh, products(0, 1200, "c"), { replace: true })).toEqual({
      applied: true,
      counts: { created: 1200, updated: 0, unchanged: 0, deleted: 0 },
    });
  });

  test("into a site with products: every id once, a repeated id, a sku claimed twice, one after another", async () => {
    const site = uniqueSite();
    await importInChunks(store, site, products(0, 1000, "a"));
    expect(await importInChunks(store, site, products(500, 1500, "b"))).toEqual({
      applied: true,
      counts: { created: 500, updated: 500, unchanged: 0 },
    });
    expect(await importInChunks(store, site, [...products(1400, 1600, "c"), product(1401, "d")])).toEqual({
      applied: true,
      counts: { created: 100, updated: 100, unchanged: 0 },
    });
    const claim = { ...product(9, "e"), id: "q9", sku: "sku-1700" };
    const refused = await importInChunks(store, site, [...products(1700, 1800, "e"), claim]);
    expect(refused).toEqual({
      applied: false,
      conflicts: [{ sku: "sku-1700", id: "q9", heldBy: "p01700", position: 101 }],
    });
    expect(await importInChunks(store, site, products(0, 1600, "f"), { replace: true })).toEqual({
      applied: true,
      counts: { created: 0, updated: 1600, unchanged: 0, deleted: 0 },
    });
    const found = await titles(store, site);
    expect(found.size).toBe(1600);
    expect(found.get("p01401")).toBe("f 1401");
  });

  test("into an empty site under a key: the key is recorded, and a site emptied since still answers its record", async () => {
    const site = uniqueSite();
    const key = { key: "k", fingerprint: "first", retainMs: 3_600_000, claimed: false };
    expect(await importInChunks(store, site, products(0, 1100, "a"), { key })).toEqual(created(1100));
    for (const p of products(0, 1100, "a")) await store.remove(site, p.id);
    expect(await importInChunks(store, site, products(0, 5, "b"), { key: { ...key, fingerprint: "second" } })).toEqual({
      applied: false,
      conflicts: [],
      recorded: { fingerprint: "first", counts: { created: 1100, updated: 0, unchanged: 0 } },
    });
    expect((await titles(store, site)).size).toBe(0);
  });

  // One import of `chunks`, each with its bases if any, positions counting on from 1.
  async function based(site: Site, chunks: [Product[], (Product | null)[]?][]): Promise<CommitResult> {
    const staged = await store.beginImport(site, { dryRun: false });
    let position = 1;
    for (const [part, bases] of chunks) {
      await staged.add(
        part,
        part.map(() => position++),
        bases,
      );
    }
    return staged.commit();
  }

  test("with bases, judged in full: into a new site (chunks written directly go back), and into an empty site", async () => {
    const stale = { applied: false, conflicts: [], stale: true };
    const site = uniqueSite();
    expect(await based(site, [[products(0, 1000, "a")], [[product(1000, "a")], [null]]])).toEqual(created(1001));
    expect((await titles(store, site)).size).toBe(1001);

    const fresh = uniqueSite();
    expect(await based(fresh, [[products(0, 1000, "b")], [[product(1000, "b")], [product(1000, "old")]]])).toEqual(
      stale,
    );
    expect((await titles(store, fresh)).size).toBe(0);

    const emptied = uniqueSite();
    await importInChunks(store, emptied, products(0, 1, "c"));
    await store.remove(emptied, "p00000");
    expect(await based(emptied, [[products(0, 2, "d"), [product(0, "c"), null]]])).toEqual(stale);
    expect(await based(emptied, [[products(0, 2, "d"), [null, null]]])).toEqual(created(2));
  });

  test("nothing of a commit's shortcuts outlives it: no view, no index on the staging", async () => {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ relname: string }>(
        "SELECT relname FROM pg_class WHERE relname IN ('catalog_import_id', 'catalog_import_sku', 'catalog_import_ids')",
      );
      expect(rows).toEqual([]);
    } finally {
      await client.end();
    }
  });
});
