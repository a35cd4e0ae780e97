// Names no product or site can hold: a lookup by a key no product id or sku may be is a
// not-found before the store is asked, so that every store answers it alike (PostgreSQL cannot
// even receive a NUL); and a site whose names are not well-formed Unicode, or hold NUL, cannot
// be configured, for two such sites could be one site in a store that writes UTF-8.
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { type CatalogStore, createCatalog, isCatalogError, type Site, SiteSchema } from "@catalog-kit/catalog-core";
import * as v from "valibot";
import { describe, expect, test } from "vitest";

const site: Site = { siteId: "shop-1", siteType: "shopify" };
const stored = {
  id: "p1",
  sku: "SKU-1",
  title: "P",
  available: true,
  featured_image: "https://i.example/p1.png",
  url: "https://shop.example/p1",
};

// A memory store that counts the lookups and removes it is asked for.
function countingStore(): CatalogStore & { asked: string[] } {
  const inner = createMemoryStore();
  const asked: string[] = [];
  return {
    ...inner,
    beginImport: (s, options) => inner.beginImport(s, options),
    list: (s, after, limit) => inner.list(s, after, limit),
    claimKey: (s, key, leaseMs) => inner.claimKey(s, key, leaseMs),
    ping: () => inner.ping(),
    close: () => inner.close(),
    find(s, key, by) {
      asked.push(key);
      return inner.find(s, key, by);
    },
    remove(s, key, by) {
      asked.push(key);
      return inner.remove(s, key, by);
    },
    asked,
  };
}

const UNHOLDABLE_KEYS = [
  "p1\u0000",
  "\u0000",
  "p1\ud800",
  "\udfffp1",
  "p1\u0007",
  "p1\u009f",
  " p1",
  "p1 ",
  "",
  "   ",
  "p".repeat(257),
];

describe("a key no product can hold", () => {
  test.each(UNHOLDABLE_KEYS.map((key) => [JSON.stringify(key).slice(0, 40), key]))(
    "%s is PRODUCT_NOT_FOUND for get and delete, by any field, and the store is never asked",
    async (_, key) => {
      const store = countingStore();
      const catalog = createCatalog({ store, sites: [site] });
      await catalog.importProduct(site, stored);
      for (const by of [undefined, "id", "sku"] as const) {
        for (const call of [catalog.getProduct, catalog.deleteProduct]) {
          const error = await call(site, key, by === undefined ? {} : { by }).catch((caught: unknown) => caught);
          expect(isCatalogError(error, "PRODUCT_NOT_FOUND"), String(error)).toBe(true);
        }
      }
      expect(store.asked).toEqual([]);
      expect(await catalog.getProduct(site, "p1")).toEqual(stored);
    },
  );

  test("the longest key a product may have is still asked of the store", async () => {
    const store = countingStore();
    const catalog = createCatalog({ store, sites: [site] });
    const key = "k".repeat(256);
    await catalog.importProduct(site, { ...stored, id: key });
    expect(await catalog.getProduct(site, key)).toMatchObject({ id: key });
    expect(store.asked).toEqual([key]);
  });

  test("an unknown site is still SITE_NOT_FOUND, whatever the key", async () => {
    const catalog = createCatalog({ store: countingStore(), sites: [site] });
    const nowhere = { siteId: "nope", siteType: "shopify" };
    const error = await catalog.getProduct(nowhere, "p1\u0000").catch((caught: unknown) => caught);
    expect(isCatalogError(error, "SITE_NOT_FOUND")).toBe(true);
  });
});

describe("a site no store can hold", () => {
  const BAD: [string, Site, string][] = [
    ["a lone high surrogate in siteId", { siteId: "shop\ud800", siteType: "shopify" }, "/siteId"],
    ["a lone low surrogate in siteId", { siteId: "shop\udc00", siteType: "shopify" }, "/siteId"],
    ["NUL in siteId", { siteId: "shop\u0000", siteType: "shopify" }, "/siteId"],
    ["a lone surrogate in siteType", { siteId: "shop", siteType: "\udbffshopify" }, "/siteType"],
    ["NUL in siteType", { siteId: "shop", siteType: "shop\u0000ify" }, "/siteType"],
  ];

  test.each(BAD)("%s is refused by SiteSchema", (_, bad, pointer) => {
    const result = v.safeParse(SiteSchema, bad);
    expect(result.success).toBe(false);
    const keys = (result.issues ?? []).map((issue) => `/${issue.path?.map((item) => item.key).join("/")}`);
    expect(keys).toEqual([pointer]);
  });

  test.each(BAD)("%s cannot be added to a catalog, nor given to createCatalog", (_, bad, pointer) => {
    const catalog = createCatalog({ store: createMemoryStore(), sites: [site] });
    let error: unknown;
    try {
      catalog.addSite(bad);
    } catch (caught) {
      error = caught;
    }
    expect(isCatalogError(error, "VALIDATION_FAILED"), String(error)).toBe(true);
    expect((error as { problems: unknown[] }).problems).toEqual([{ pointer, message: expect.any(String) }]);
    expect(catalog.hasSite(bad)).toBe(false);
    expect(() => createCatalog({ store: createMemoryStore(), sites: [site, bad] })).toThrow(/site/i);
  });

  test("a request for such a site is SITE_NOT_FOUND before the store is asked", async () => {
    const store = countingStore();
    const catalog = createCatalog({ store, sites: [site] });
    for (const [, bad] of BAD) {
      const error = await catalog.getProduct(bad, "p1").catch((caught: unknown) => caught);
      expect(isCatalogError(error, "SITE_NOT_FOUND")).toBe(true);
    }
    expect(store.asked).toEqual([]);
  });

  test("well-formed names, non-ASCII and astral ones included, are sites like any other", () => {
    const catalog = createCatalog({ store: createMemoryStore(), sites: [site] });
    const fine = { siteId: "boutique-é-😀", siteType: "\u{1F6D2}" };
    catalog.addSite(fine);
    expect(catalog.hasSite(fine)).toBe(true);
  });
});
