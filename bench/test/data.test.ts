import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { createCatalog, type Site } from "@catalog-kit/catalog-core";
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { generateProducts, makeDataset, toBulkBody, toCsvContent } from "../data.ts";

const site: Site = { siteType: "bench", siteId: "shop-1" };
const seeds = fc.integer({ min: 0, max: 2 ** 31 - 1 });
const counts = fc.integer({ min: 1, max: 60 });

function fresh() {
  const store = createMemoryStore();
  return { store, catalog: createCatalog({ store, sites: [site] }) };
}

describe("bench data generator", () => {
  test.prop([seeds, counts], { numRuns: 25 })(
    "the bulk body imports and every product is stored as generated",
    async (seed, count) => {
      const products = generateProducts(count, seed);
      const { store, catalog } = fresh();
      const summary = await catalog.importProducts(site, JSON.parse(toBulkBody(products)).products);
      expect(summary).toMatchObject({ total: count, created: count });
      for (const product of products) expect(await store.find(site, product.id, "id")).toEqual(product);
    },
  );

  test.prop([seeds, counts], { numRuns: 25 })(
    "the CSV imports to the same products as the JSON",
    async (seed, count) => {
      const products = generateProducts(count, seed);
      const { store, catalog } = fresh();
      const summary = await catalog.importCsv(site, toCsvContent(products));
      expect(summary).toMatchObject({ total: count, created: count });
      for (const product of products) expect(await store.find(site, product.sku, "sku")).toEqual(product);
    },
  );

  test.prop([seeds], { numRuns: 10 })("the same seed gives the same data", (seed) => {
    expect(toCsvContent(generateProducts(20, seed))).toBe(toCsvContent(generateProducts(20, seed)));
  });

  test("the data is realistic: quoted cells, several images, non-ASCII text, about 850 JSON bytes a product", () => {
    const { products, csvContent, jsonBytesPerProduct } = makeDataset(2_000);
    const nonAscii = products.filter((p) => /[^\x00-\x7f]/.test(JSON.stringify(p))).length / products.length;
    expect(nonAscii).toBeGreaterThan(0.35);
    expect(nonAscii).toBeLessThan(0.55);
    expect(products.some((p) => (p.images?.length ?? 0) > 1)).toBe(true);
    expect(products.every((p) => p.description?.includes("\n") && p.description.includes(","))).toBe(true);
    expect(csvContent).toContain('""');
    expect(jsonBytesPerProduct).toBeGreaterThan(700);
    expect(jsonBytesPerProduct).toBeLessThan(1_000);
  });
});
