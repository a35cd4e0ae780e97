// Lookups asked together go to PostgreSQL as one statement: each still answers what it would
// alone (by id before sku, by the field asked, nothing for a missing key or an unknown site),
// whatever else is in its batch; and a failure reaches every lookup of the batch.
import { createPostgresStore, type PostgresStore } from "@catalog-kit/adapter-postgres";
import { isCatalogError, type KeyField } from "@catalog-kit/catalog-core";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { type PostgresServer, startPostgres } from "@catalog-kit/test-support";
import { describeWithPostgres } from "@catalog-kit/test-support/vitest";
import { afterAll, beforeAll, expect, test } from "vitest";
import { importInChunks, product, products } from "./support/fixtures.ts";

describeWithPostgres("PostgreSQL store: lookups asked together", () => {
  let server: PostgresServer;
  let store: PostgresStore;

  beforeAll(async () => {
    server = await startPostgres();
    store = createPostgresStore({ url: server.url });
    await store.ping();
  });
  afterAll(async () => {
    await store?.close();
    await server?.stop();
  });

  test("each lookup of a batch answers as it would alone", async () => {
    const site = uniqueSite();
    const other = uniqueSite();
    // p00003's sku is another product's id: by id first, so "p00005" finds p00005 itself.
    await importInChunks(store, site, [...products(0, 20, "a"), { ...product(3, "a"), sku: "p00005" }]);
    await importInChunks(store, other, products(0, 5, "b"));
    const asks: [typeof site, string, KeyField | undefined][] = [
      [site, "p00001", undefined],
      [site, "sku-2", undefined],
      [site, "p00005", undefined],
      [site, "p00005", "sku"],
      [site, "sku-7", "id"],
      [site, "sku-7", "sku"],
      [site, "p00008", "id"],
      [site, "p00001", undefined],
      [site, "missing", undefined],
      [other, "p00001", undefined],
      [uniqueSite(), "p00001", undefined],
    ];
    const together = await Promise.all(asks.map(([s, key, by]) => store.find(s, key, by)));
    const alone = [];
    for (const [s, key, by] of asks) alone.push(await store.find(s, key, by));
    expect(together).toEqual(alone);
    expect(together.map((p) => p?.title)).toEqual([
      "a 1",
      "a 2",
      "a 5",
      "a 3",
      undefined,
      "a 7",
      "a 8",
      "a 1",
      undefined,
      "b 1",
      undefined,
    ]);
  });

  test("more lookups than a statement takes, all answered; then a failure reaches each of a batch", async () => {
    const site = uniqueSite();
    await importInChunks(store, site, products(0, 1200, "c"));
    const found = await Promise.all(products(0, 1200, "c").map((p) => store.find(site, p.id)));
    expect(found.map((p) => p?.title)).toEqual(products(0, 1200, "c").map((p) => p.title));

    await server.halt();
    const failed = await Promise.allSettled([store.find(site, "p00001"), store.find(site, "p00002")]);
    await server.start();
    for (const result of failed) {
      expect(result.status).toBe("rejected");
      expect(isCatalogError((result as PromiseRejectedResult).reason, "STORAGE_UNAVAILABLE")).toBe(true);
    }
    expect((await store.find(site, "p00001"))?.title).toBe("c 1");
  });
});
