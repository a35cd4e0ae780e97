// Bases are staged as digests: a digest made in this process must equal the one the commit makes
// of the stored body in SQL, for every product; a base `find` returned is hashed as the body it
// came from, unless it was changed since; any other base is encoded. Then the commit judges
// bases exactly as the contract's clause 7 says, whatever object the caller gives.
import { hash } from "node:crypto";
import { createPostgresStore, type PostgresStore } from "@catalog-kit/adapter-postgres";
import { type CommitResult, encodeProduct, type Product, type Site } from "@catalog-kit/catalog-core";
import { productArb, uniqueSite } from "@catalog-kit/catalog-core/testing";
import { type PostgresServer, startPostgres } from "@catalog-kit/test-support";
import { describeWithPostgres } from "@catalog-kit/test-support/vitest";
import { fc } from "@fast-check/vitest";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BaseDigests, digestSql, NO_BASE } from "../src/base-digests.ts";
import { importInChunks, product, products } from "./support/fixtures.ts";

const sha256 = (text: string) => hash("sha256", text);

describe("digests of bases", () => {
  test("a decoded product is hashed as its body, until it changes; any other product as its encoding", () => {
    fc.assert(
      fc.property(productArb(), productArb(), (stored, other) => {
        const digests = new BaseDigests();
        // Spaces no encoding writes: the digest is of the text as stored.
        const body = ` ${encodeProduct(stored)} `;
        const found = digests.decode(body);
        const copy = { ...found, images: found.images && [...found.images] };
        const [asFound, asCopy, none] = digests.of([found, copy, null]);
        expect(asFound).toBe(sha256(body));
        expect(asCopy).toBe(sha256(encodeProduct(copy)));
        expect(none).toBe(NO_BASE);

        found.title = other.title;
        if (found.images !== undefined && found.images.length > 0) found.images[0] = `${found.images[0]}x`;
        expect(digests.of([found])).toEqual([sha256(encodeProduct(found))]);
      }),
      { numRuns: 200 },
    );
  });
});

describeWithPostgres("PostgreSQL store: bases judged by digest", () => {
  let server: PostgresServer;
  let store: PostgresStore;
  let client: pg.Client;

  beforeAll(async () => {
    server = await startPostgres();
    store = createPostgresStore({ url: server.url });
    client = new pg.Client({ connectionString: server.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await store?.close();
    await server?.stop();
  });

  const stale = { applied: false, conflicts: [], stale: true };
  const updated = (n: number) => ({ applied: true, counts: { created: 0, updated: n, unchanged: 0 } });

  async function based(site: Site, items: Product[], bases: (Product | null)[]): Promise<CommitResult> {
    const staged = await store.beginImport(site, { dryRun: false });
    await staged.add(
      items,
      items.map((_, i) => i + 1),
      bases,
    );
    return staged.commit();
  }

  test("the SQL digest of a stored body is this process's digest of its product", async () => {
    const items = fc.sample(productArb(), 300).map((p, i) => ({ ...p, id: `${p.id}-${i}`, sku: `${p.sku}-${i}` }));
    const site = uniqueSite();
    await importInChunks(store, site, items);
    const { rows } = await client.query<{ id: string; digest: string }>(
      `SELECT p.id, ${digestSql("p.body")} AS digest FROM catalog.products p
       JOIN catalog.sites s ON s.site = p.site WHERE s.site_type = $1 AND s.site_id = $2`,
      [site.siteType, site.siteId],
    );
    const expected = new Map(items.map((p) => [p.id, sha256(encodeProduct(p))]));
    expect(rows.length).toBe(items.length);
    for (const row of rows) expect(row.digest).toBe(expected.get(row.id));
  });

  test("a base found, another object equal to it, and a null base apply while they hold", async () => {
    const site = uniqueSite();
    await importInChunks(store, site, products(0, 2, "a"));
    const found = (await store.find(site, "p00000")) as Product;
    const copy = { ...product(1, "a") };
    const result = await based(
      site,
      [{ ...found, title: "b" }, { ...copy, title: "b" }, product(2, "b")],
      [found, copy, null],
    );
    expect(result).toEqual({ applied: true, counts: { created: 1, updated: 2, unchanged: 0 } });
  });

  test("a base found, then changed in place by the caller, is judged as changed", async () => {
    const site = uniqueSite();
    await importInChunks(store, site, products(0, 1, "a"));
    const found = (await store.find(site, "p00000")) as Product;
    found.title = "not what is stored";
    expect(await based(site, [{ ...found, title: "b" }], [found])).toEqual(stale);
    found.title = "a 0";
    expect(await based(site, [{ ...found, title: "b" }], [found])).toEqual(updated(1));
  });

  test("a product written between the find and the commit makes it stale; written back as it was, it does not", async () => {
    const site = uniqueSite();
    await importInChunks(store, site, products(0, 1, "a"));
    const found = (await store.find(site, "p00000")) as Product;
    await importInChunks(store, site, [product(0, "other")]);
    expect(await based(site, [{ ...found, title: "b" }], [found])).toEqual(stale);
    expect(await based(site, [product(0, "b")], [null])).toEqual(stale);
    await importInChunks(store, site, [product(0, "a")]);
    expect(await based(site, [{ ...found, title: "b" }], [found])).toEqual(updated(1));
  });

  test("a base found is compared as the text the table holds, even one no encoding writes", async () => {
    const site = uniqueSite();
    await importInChunks(store, site, products(0, 1, "a"));
    await client.query(
      `UPDATE catalog.products p SET body = ' ' || p.body FROM catalog.sites s
       WHERE s.site = p.site AND s.site_type = $1 AND s.site_id = $2`,
      [site.siteType, site.siteId],
    );
    const found = (await store.find(site, "p00000")) as Product;
    expect(await based(site, [{ ...found, title: "b" }], [found])).toEqual(updated(1));
  });
});
