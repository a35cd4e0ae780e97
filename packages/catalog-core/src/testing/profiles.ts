// The import profile clauses, registered by testCatalogStore beside the others: a platform's file
// read through a profile reaches the store as one all-or-nothing import, through `createCatalog`,
// whatever the store. The files and the products they hold are in profile-files.ts.
import { expect, test } from "vitest";
import { type Catalog, createCatalog } from "../catalog.ts";
import type { StreamImportOptions } from "../catalog-options.ts";
import type { Product } from "../product.ts";
import type { Site } from "../site.ts";
import type { CatalogStore } from "../store.ts";
import { sampleProduct, uniqueSite } from "./arbitraries.ts";
import {
  FEED_PRODUCTS,
  GOOGLE_ATOM,
  GOOGLE_PRODUCTS,
  GOOGLE_RSS,
  GOOGLE_SPLIT,
  GOOGLE_TSV,
  SHOP,
  SHOPIFY_BAD_PRICE,
  SHOPIFY_CSV,
  SHOPIFY_IGNORED,
  SHOPIFY_PRODUCTS,
  SHOPIFY_SPLIT,
  WOOCOMMERCE_CSV,
  WOOCOMMERCE_PRODUCTS,
} from "./profile-files.ts";

/** `text` as bytes cut at `cuts` (byte offsets, any order): a cut may fall inside a character. */
export function byteChunks(text: string, cuts: readonly number[]): Buffer[] {
  const bytes = Buffer.from(text);
  const at = [...new Set(cuts.map((cut) => Math.min(Math.max(cut, 0), bytes.length)))].sort((a, b) => a - b);
  return [0, ...at].map((from, i) => bytes.subarray(from, at[i] ?? bytes.length));
}

// Cuts through the header, a quoted cell, the two bytes of "é" and a line end.
const cuts = (text: string) => {
  const e = Buffer.from(text).indexOf(Buffer.from("é"));
  return [7, 40, e === -1 ? 60 : e + 1, Buffer.from(text).indexOf("\n") + 1, Buffer.byteLength(text) - 3];
};

const SHOPIFY = { format: "csv", profile: "shopify", shopUrl: SHOP } as const satisfies StreamImportOptions;
const WOOCOMMERCE = { format: "csv", profile: "woocommerce", shopUrl: SHOP } as const satisfies StreamImportOptions;
const GOOGLE = { format: "tsv", profile: "google", currency: "USD" } as const satisfies StreamImportOptions;

const created = (n: number) => ({ total: n, created: n, updated: 0, unchanged: 0, dryRun: false });

// A comma inside an image URL comes back percent-encoded: the same address, written as the feed needs it.
const FEED_BACK = FEED_PRODUCTS.map((p) => ({ ...p, images: p.images?.map((image) => image.replaceAll(",", "%2C")) }));

/** Registers the profile clauses; `store()` gives the store under test once it is open. */
export function testProfiles(store: () => CatalogStore): void {
  // A catalog over the store under test that knows `sites`; never closed, for the store is shared.
  // These clauses are the profiles': the history's are apart (history.ts, and the catalog's tests).
  const catalogOf = (...sites: Site[]): Catalog => createCatalog({ store: store(), sites, history: false });
  const all = async (catalog: Catalog, site: Site) => (await catalog.listProducts(site, { limit: 1_000 })).products;
  const stream = (catalog: Catalog, site: Site, text: string, options: StreamImportOptions) =>
    catalog.importStream(site, byteChunks(text, cuts(text)), options);
  // A site that holds products already, to show that a refused import leaves them as they were.
  async function seeded(): Promise<{ catalog: Catalog; site: Site; before: Product[] }> {
    const site = uniqueSite();
    const catalog = catalogOf(site);
    const mug = SHOPIFY_PRODUCTS[0] as Product;
    await catalog.importProducts(site, [{ ...mug, price: 7 }, sampleProduct("zz-old", "OLD-1")]);
    return { catalog, site, before: await all(catalog, site) };
  }

  test("profiles: a Shopify file in byte chunks and as text is one product a handle, variants folded, images in order", async () => {
    const chunked = uniqueSite();
    const text = uniqueSite();
    const catalog = catalogOf(chunked, text);
    const report = { profile: "shopify", ignoredColumns: SHOPIFY_IGNORED };
    expect(await stream(catalog, chunked, SHOPIFY_CSV, SHOPIFY)).toEqual({ ...created(2), ...report });
    expect(await catalog.importCsv(text, SHOPIFY_CSV, SHOPIFY)).toEqual({ ...created(2), ...report });
    for (const site of [chunked, text]) {
      expect(await all(catalog, site)).toEqual(SHOPIFY_PRODUCTS);
      expect(await catalog.getProduct(site, "tee")).toEqual(SHOPIFY_PRODUCTS[1]);
      expect(await catalog.getProduct(site, "MUG-1", { by: "sku" })).toEqual(SHOPIFY_PRODUCTS[0]);
      // A variant is part of its product, never one of its own.
      await expect(catalog.getProduct(site, "TEE-M")).rejects.toMatchObject({ code: "PRODUCT_NOT_FOUND" });
    }
    const again = await catalog.importCsv(chunked, SHOPIFY_CSV, SHOPIFY);
    expect(again).toMatchObject({ total: 2, created: 0, updated: 0, unchanged: 2 });
  });

  test("profiles: WooCommerce variations apart from their parent are one product with it", async () => {
    const site = uniqueSite();
    const catalog = catalogOf(site);
    expect(await stream(catalog, site, WOOCOMMERCE_CSV, WOOCOMMERCE)).toEqual({
      ...created(2),
      profile: "woocommerce",
      ignoredColumns: ["Attribute 1 name", "Attribute 1 value(s)"],
    });
    expect(await all(catalog, site)).toEqual(WOOCOMMERCE_PRODUCTS);
    expect(await catalog.getProduct(site, "HOOD-S", { by: "sku" })).toEqual(WOOCOMMERCE_PRODUCTS[0]);
    for (const variation of ["11", "12", "HOOD-M"])
      await expect(catalog.getProduct(site, variation)).rejects.toMatchObject({ code: "PRODUCT_NOT_FOUND" });
  });

  test("profiles: a Google TSV feed's item groups are one product each", async () => {
    const site = uniqueSite();
    const catalog = catalogOf(site);
    expect(await stream(catalog, site, GOOGLE_TSV, GOOGLE)).toEqual({
      ...created(2),
      profile: "google",
      ignoredColumns: ["brand"],
    });
    expect(await all(catalog, site)).toEqual(GOOGLE_PRODUCTS);
    await expect(catalog.getProduct(site, "SHIRT-M")).rejects.toMatchObject({ code: "PRODUCT_NOT_FOUND" });
  });

  test("profiles: the same feed as RSS 2.0 and as Atom gives the same products", async () => {
    for (const feed of [GOOGLE_RSS, GOOGLE_ATOM]) {
      const site = uniqueSite();
      const catalog = catalogOf(site);
      expect(await stream(catalog, site, feed, { ...GOOGLE, format: "xml" })).toEqual({
        ...created(2),
        profile: "google",
        ignoredColumns: ["brand"],
      });
      expect(await all(catalog, site)).toEqual(GOOGLE_PRODUCTS);
    }
  });

  test("profiles: one value that does not read writes nothing, in upsert and replace mode", async () => {
    const { catalog, site, before } = await seeded();
    // The mug's "8,50" read with the decimal ".": never 8 nor 850, and the tee before it is not written either.
    const problem = { row: 6, column: "Variant Price" };
    for (const mode of ["upsert", "replace"] as const) {
      await expect(catalog.importCsv(site, SHOPIFY_BAD_PRICE, { ...SHOPIFY, mode })).rejects.toMatchObject({
        code: "VALIDATION_FAILED",
        problems: [expect.objectContaining(problem)],
      });
      await expect(stream(catalog, site, SHOPIFY_BAD_PRICE, { ...SHOPIFY, mode })).rejects.toMatchObject({
        code: "VALIDATION_FAILED",
        problems: [expect.objectContaining(problem)],
      });
      expect(await all(catalog, site)).toEqual(before);
    }
  });

  test("profiles: a group written apart writes nothing, never two products", async () => {
    const { catalog, site, before } = await seeded();
    for (const mode of ["upsert", "replace"] as const) {
      await expect(catalog.importCsv(site, SHOPIFY_SPLIT, { ...SHOPIFY, mode })).rejects.toMatchObject({
        code: "VALIDATION_FAILED",
        problems: expect.arrayContaining([expect.objectContaining({ row: 4, column: "Handle" })]),
      });
      await expect(stream(catalog, site, GOOGLE_SPLIT, { ...GOOGLE, mode })).rejects.toMatchObject({
        code: "VALIDATION_FAILED",
        problems: [expect.objectContaining({ row: 4 })],
      });
      expect(await all(catalog, site)).toEqual(before);
    }
  });

  test("profiles: a dry run counts, names the profile and the ignored columns, and writes nothing", async () => {
    const empty = uniqueSite();
    const catalog = catalogOf(empty);
    const report = { profile: "shopify", ignoredColumns: SHOPIFY_IGNORED };
    expect(await catalog.importCsv(empty, SHOPIFY_CSV, { ...SHOPIFY, dryRun: true })).toEqual({
      ...created(2),
      dryRun: true,
      ...report,
    });
    expect(await all(catalog, empty)).toEqual([]);
    const { catalog: other, site, before } = await seeded();
    // The mug is there at another price, "zz-old" is not in the file: a replace would delete it.
    expect(await stream(other, site, SHOPIFY_CSV, { ...SHOPIFY, dryRun: true, mode: "replace" })).toEqual({
      total: 2,
      created: 1,
      updated: 1,
      unchanged: 0,
      deleted: 1,
      dryRun: true,
      ...report,
    });
    expect(await all(other, site)).toEqual(before);
  });

  test("profiles: an import under an idempotency key, replayed, is not applied twice", async () => {
    const text = uniqueSite();
    const chunked = uniqueSite();
    const catalog = catalogOf(text, chunked);
    const first = { ...created(2), profile: "shopify", ignoredColumns: SHOPIFY_IGNORED };
    // importCsv commits its key with the products; importStream claims the key while it reads.
    const runs = [
      [text, () => catalog.importCsv(text, SHOPIFY_CSV, { ...SHOPIFY, idempotencyKey: "csv-1" })],
      [chunked, () => stream(catalog, chunked, SHOPIFY_CSV, { ...SHOPIFY, idempotencyKey: "stream-1" })],
    ] as const;
    for (const [site, run] of runs) {
      expect(await run()).toEqual(first);
      await catalog.deleteProduct(site, "mug");
      expect(await run()).toMatchObject({ total: 2, created: 2, replayed: true });
      await expect(catalog.getProduct(site, "mug")).rejects.toMatchObject({ code: "PRODUCT_NOT_FOUND" });
      expect(await all(catalog, site)).toEqual([SHOPIFY_PRODUCTS[1]]);
    }
    // The same key for another file, or the same file read for another shop, is refused.
    await expect(
      catalog.importCsv(text, WOOCOMMERCE_CSV, { ...WOOCOMMERCE, idempotencyKey: "csv-1" }),
    ).rejects.toMatchObject({ code: "IDEMPOTENCY_KEY_REUSED" });
    await expect(
      catalog.importCsv(text, SHOPIFY_CSV, { ...SHOPIFY, shopUrl: "https://other.example", idempotencyKey: "csv-1" }),
    ).rejects.toMatchObject({ code: "IDEMPOTENCY_KEY_REUSED" });
  });

  test("profiles: a feed exported for Google or Meta imports back as the same products", async () => {
    const from = uniqueSite();
    const catalog = catalogOf(from);
    await catalog.importProducts(from, FEED_PRODUCTS);
    for (const platform of ["google", "meta"] as const) {
      let feed = "";
      for await (const piece of catalog.exportProducts(from, platform, { currency: "EUR" })) feed += piece;
      const to = uniqueSite();
      catalog.addSite(to);
      const options = { format: "tsv", profile: platform, currency: "EUR" } as const;
      expect(await stream(catalog, to, feed, options)).toEqual({
        ...created(FEED_PRODUCTS.length),
        profile: platform,
        ignoredColumns: [],
      });
      expect(await all(catalog, to)).toEqual(FEED_BACK);
    }
  });
}
