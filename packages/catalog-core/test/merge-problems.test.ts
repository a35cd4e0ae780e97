// A merge's problems in the order of the import: those a record has on its own (an unknown field,
// null for a required one) and those of what it makes of the stored product, record by record.
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { CatalogError, createCatalog } from "@catalog-kit/catalog-core";
import { expect, it } from "vitest";

const site = { siteId: "shop-1", siteType: "shopify" };
const product = (id: string) => ({
  id,
  sku: `SKU-${id}`,
  title: `Product ${id}`,
  available: true,
  featured_image: "https://img.example/f.png",
  url: `https://shop.example/${id}`,
});

it("lists a merge's problems in request order, whichever check found them", async () => {
  const catalog = createCatalog({ store: createMemoryStore(), sites: [site] });
  await catalog.importProducts(site, [product("a"), product("b"), product("c")]);
  const patches = [
    { id: "a", price: -1 },
    { id: "b", title: null },
    { id: "c", url: "" },
    { id: "a", colour: 1 },
  ];
  const error = await catalog.importProducts(site, patches, { mode: "merge" }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(CatalogError);
  expect((error as CatalogError).problems.map((problem) => problem.pointer)).toEqual([
    "/products/0/price",
    "/products/1/title",
    "/products/2/url",
    "/products/3/colour",
  ]);
  expect((error as CatalogError).errorCount).toBe(4);
  await catalog.close();
});

it("counts every problem of a large merge and lists the first 100 in request order", async () => {
  const catalog = createCatalog({ store: createMemoryStore(), sites: [site] });
  await catalog.importProducts(site, [product("a")]);
  // Each other record has a problem of its own; "a" a problem of what it makes, first.
  const patches = [{ id: "a", price: -1 }, ...Array.from({ length: 150 }, (_, i) => ({ id: `x${i}`, title: null }))];
  const error = (await catalog
    .importProducts(site, patches, { mode: "merge" })
    .catch((e: unknown) => e)) as CatalogError;
  expect(error.errorCount).toBe(151);
  expect(error.problems).toHaveLength(100);
  expect(error.problems[0]?.pointer).toBe("/products/0/price");
  expect(error.problems[99]?.pointer).toBe("/products/99/title");
  await catalog.close();
});

// A merge reads and merges its records a chunk at a time: what each chunk finds lands in the order
// of the import.
it("lists problems found in different chunks of a merge in request order", async () => {
  const catalog = createCatalog({ store: createMemoryStore(), sites: [site] });
  await catalog.importProducts(
    site,
    Array.from({ length: 7_000 }, (_, i) => product(`p${i}`)),
  );
  const bad = new Set([2, 3_500, 6_999]);
  const patches = Array.from({ length: 7_000 }, (_, i) => ({ id: `p${i}`, price: bad.has(i) ? -1 : 1 }));
  const error = (await catalog
    .importProducts(site, patches, { mode: "merge" })
    .catch((e: unknown) => e)) as CatalogError;
  expect(error.problems.map((problem) => problem.pointer)).toEqual([
    "/products/2/price",
    "/products/3500/price",
    "/products/6999/price",
  ]);
  expect((await catalog.getProduct(site, "p0")).price).toBeUndefined();
  await catalog.close();
});

// Every read from the failing one on fails: no rejection may go unhandled.
it("fails a merge whose reads of a later chunk fail, with that error and nothing written", async () => {
  const store = createMemoryStore();
  const down = new CatalogError("STORAGE_UNAVAILABLE", "The store is down");
  const failing = {
    ...store,
    find: (s: typeof site, key: string, by?: "id" | "sku") =>
      Number(key.slice(1)) >= 3_500 ? Promise.reject(down) : store.find(s, key, by),
  };
  const catalog = createCatalog({ store: failing, sites: [site] });
  await catalog.importProducts(
    site,
    Array.from({ length: 7_000 }, (_, i) => product(`p${i}`)),
  );
  const patches = Array.from({ length: 7_000 }, (_, i) => ({ id: `p${i}`, price: 1 }));
  await expect(catalog.importProducts(site, patches, { mode: "merge" })).rejects.toBe(down);
  expect((await catalog.getProduct(site, "p0")).price).toBeUndefined();
  await catalog.close();
});
