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
