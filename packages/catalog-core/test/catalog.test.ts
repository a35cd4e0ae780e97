// The catalog's rules end to end, on the memory store: imports, dedupe, sku conflicts, lookups, limits.
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { type Catalog, CatalogError, createCatalog, type Product } from "@catalog-kit/catalog-core";
import { productArb } from "@catalog-kit/catalog-core/testing";
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { failure, product } from "./support/catalog-calls.ts";
import { encodeCsv } from "./support/csv-encode.ts";
import { IMPORT_ID } from "./support/import-ids.ts";

const site = { siteId: "shop-1", siteType: "shopify" };
const other = { siteId: "shop-1", siteType: "woo" };

function newCatalog(maxProductsPerRequest?: number): Catalog {
  return createCatalog({
    store: createMemoryStore(),
    sites: [site, other],
    ...(maxProductsPerRequest ? { limits: { maxProductsPerRequest } } : {}),
  });
}

describe("createCatalog", () => {
  test("an unknown site is SITE_NOT_FOUND on every operation, and imports never create one", async () => {
    const catalog = newCatalog();
    const nowhere = { siteId: "nope", siteType: "shopify" };
    for (const call of [
      () => catalog.importProducts(nowhere, [product("a", "s")]),
      () => catalog.importProduct(nowhere, product("a", "s")),
      () => catalog.importCsv(nowhere, "id,sku,title,available,featured_image,url\n"),
      () => catalog.getProduct(nowhere, "a"),
      () => catalog.deleteProduct(nowhere, "a"),
    ]) {
      expect((await failure(call())).code).toBe("SITE_NOT_FOUND");
    }
    expect(catalog.hasSite(nowhere)).toBe(false);
    catalog.addSite(nowhere);
    expect(await catalog.importProduct(nowhere, product("a", "s"))).toMatchObject({ created: 1 });
  });

  test("imports report total distinct ids and created / updated / unchanged; the later duplicate wins", async () => {
    const catalog = newCatalog();
    await catalog.importProducts(site, [product("a", "sa"), product("b", "sb")]);
    const summary = await catalog.importProducts(site, [
      product("a", "sa"),
      product("b", "sb", { title: "first" }),
      product("c", "sc"),
      product("b", "sb", { title: "later" }),
    ]);
    expect(summary).toEqual({ total: 3, created: 1, updated: 1, unchanged: 1, dryRun: false, importId: IMPORT_ID });
    expect((await catalog.getProduct(site, "b")).title).toBe("later");
  });

  test("validation lists every problem with its pointer, and writes nothing", async () => {
    const catalog = newCatalog();
    const error = await failure(
      catalog.importProducts(site, [product("ok", "s0"), { ...product("x", "s1"), price: -1 }, { id: "y" }, 5]),
    );
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.problems.map((p) => p.pointer)).toEqual([
      "/products/1/price",
      "/products/2/sku",
      "/products/2/title",
      "/products/2/available",
      "/products/2/featured_image",
      "/products/2/url",
      "/products/3",
    ]);
    expect((await failure(catalog.getProduct(site, "ok"))).code).toBe("PRODUCT_NOT_FOUND");
  });

  test("single and CSV imports point into their own request shapes", async () => {
    const catalog = newCatalog();
    const single = await failure(catalog.importProduct(site, { ...product("a", "s"), url: "" }));
    expect(single.problems).toEqual([{ pointer: "/product/url", message: "Must not be empty or blank" }]);
    const csv = await failure(catalog.importCsv(site, "id,sku,title,available,featured_image,url\n\na,s,T,yes,f,u\n"));
    expect(csv.problems).toEqual([{ row: 3, column: "available", message: "Must be true or false" }]);
    const notText = await failure(catalog.importCsv(site, 42));
    expect(notText.problems).toEqual([{ pointer: "/csvContent", message: "Must be a string holding the CSV text" }]);
    const notList = await failure(catalog.importProducts(site, { id: "a" }));
    expect(notList.problems[0]?.pointer).toBe("/products");
  });

  test("problems are capped at 100 with the full count", async () => {
    const catalog = newCatalog();
    const error = await failure(
      catalog.importProducts(
        site,
        Array.from({ length: 150 }, () => ({})),
      ),
    );
    expect(error.problems).toHaveLength(100);
    expect(error.errorCount).toBe(150 * 6);
  });

  test("two ids claiming one sku in a request is SKU_CONFLICT naming both, nothing written", async () => {
    const catalog = newCatalog();
    const error = await failure(
      catalog.importProducts(site, [product("a", "s"), product("z", "t"), product("b", "s")]),
    );
    expect(error.code).toBe("SKU_CONFLICT");
    expect(error.problems).toEqual([
      {
        pointer: "/products/2/sku",
        sku: "s",
        heldBy: "a",
        message: 'sku "s" is held by product "a"',
      },
    ]);
    expect((await failure(catalog.getProduct(site, "z"))).code).toBe("PRODUCT_NOT_FOUND");
  });

  test("a sku held by a stored product is SKU_CONFLICT naming the holder, at the claiming row", async () => {
    const catalog = newCatalog();
    await catalog.importProduct(site, product("a", "s"));
    const error = await failure(catalog.importCsv(site, encodeCsv([product("n", "new"), product("b", "s")])));
    expect(error.code).toBe("SKU_CONFLICT");
    expect(error.problems).toEqual([
      { row: 3, column: "sku", sku: "s", heldBy: "a", message: 'sku "s" is held by product "a"' },
    ]);
    expect((await failure(catalog.getProduct(site, "n"))).code).toBe("PRODUCT_NOT_FOUND");
  });

  test("skus can be swapped in one request, and a changed sku is freed", async () => {
    const catalog = newCatalog();
    await catalog.importProducts(site, [product("a", "s1"), product("b", "s2")]);
    await catalog.importProducts(site, [product("a", "s2"), product("b", "s1")]);
    expect((await catalog.getProduct(site, "s1")).id).toBe("b");
    await catalog.importProduct(site, product("a", "s3"));
    expect(await catalog.importProduct(site, product("c", "s2"))).toMatchObject({ created: 1 });
  });

  test("too many products is TOO_MANY_PRODUCTS with limit and received, for JSON and CSV", async () => {
    const catalog = newCatalog(2);
    const products = [product("a", "1"), product("b", "2"), product("c", "3")];
    for (const call of [
      () => catalog.importProducts(site, products),
      () => catalog.importCsv(site, encodeCsv(products)),
    ]) {
      const error = await failure(call());
      expect(error).toMatchObject({ code: "TOO_MANY_PRODUCTS", limit: 2, received: 3 });
    }
  });

  test("a CSV over the limit is TOO_MANY_PRODUCTS whatever cells its rows hold, blank lines not counted", async () => {
    const catalog = newCatalog(2);
    const csv = `${encodeCsv([product("a", "1")])}\n\ntoo,few\n\n"x",,,,,,,,,,,,,,,\n`;
    const error = await failure(catalog.importCsv(site, csv));
    expect(error).toMatchObject({ code: "TOO_MANY_PRODUCTS", limit: 2, received: 3 });
  });

  test("a lone surrogate in csvContent is VALIDATION_FAILED at its row and column, not stored as U+FFFD", async () => {
    const catalog = newCatalog();
    const csv = encodeCsv([
      product("ok", "s0"),
      product("a\ud800", "s", { title: "T", url: "https://u" }),
      product("b", "t", { title: "x\udc00y" }),
    ]);
    const error = await failure(catalog.importCsv(site, csv));
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.problems).toEqual([
      { row: 3, column: "id", message: expect.stringContaining("lone surrogates") },
      { row: 4, column: "title", message: expect.stringContaining("lone surrogates") },
    ]);
    expect((await failure(catalog.getProduct(site, "a\ufffd"))).code).toBe("PRODUCT_NOT_FOUND");
    expect((await failure(catalog.getProduct(site, "ok"))).code).toBe("PRODUCT_NOT_FOUND");
  });

  test.prop([
    fc.array(productArb(), { minLength: 1, maxLength: 8 }),
    fc.nat(),
    fc.constantFrom("title", "sku", "url", "description"),
    fc.constantFrom("\ud800", "\udbff", "\udc00", "\udfff"),
    fc.nat(),
  ])("any lone surrogate in a CSV cell is located at its row and column", async (products, pick, column, lone, at) => {
    const unique = products.map((p, i) => ({ ...p, id: `id-${i}`, sku: `sku-${i}` }));
    const index = pick % unique.length;
    const target = unique[index] as Product;
    const text = String(target[column as keyof Product] ?? "text");
    const cut = at % (text.length + 1);
    // Never split a surrogate pair: the only lone surrogate must be the one put in.
    const safeCut = cut > 0 && /[\ud800-\udbff]/.test(text[cut - 1] ?? "") ? cut - 1 : cut;
    unique[index] = { ...target, [column]: `${text.slice(0, safeCut)}${lone}${text.slice(safeCut)}` } as Product;
    const csv = encodeCsv(unique);
    const start = csv.indexOf(`\nid-${index},`) + 1;
    const row = (csv.slice(0, start).match(/\n/g)?.length ?? 0) + 1;
    const error = await failure(newCatalog().importCsv(site, csv));
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.problems).toContainEqual(expect.objectContaining({ row, column }));
    expect(error.problems.every((problem) => problem.pointer === undefined)).toBe(true);
  });

  test("dry run counts and checks but writes nothing", async () => {
    const catalog = newCatalog();
    await catalog.importProduct(site, product("a", "s"));
    expect(
      await catalog.importProducts(site, [product("a", "s", { price: 1 }), product("b", "t")], { dryRun: true }),
    ).toEqual({
      total: 2,
      created: 1,
      updated: 1,
      unchanged: 0,
      dryRun: true,
      importId: IMPORT_ID,
    });
    expect((await catalog.getProduct(site, "a")).price).toBeUndefined();
    expect((await failure(catalog.importProduct(site, product("c", "s"), { dryRun: true }))).code).toBe("SKU_CONFLICT");
  });

  test("get and delete match the id first, then the sku, or only the field named by `by`", async () => {
    const catalog = newCatalog();
    await catalog.importProducts(site, [product("k", "s1"), product("o", "k")]);
    expect((await catalog.getProduct(site, "k")).id).toBe("k");
    expect((await catalog.getProduct(site, "k", { by: "sku" })).id).toBe("o");
    expect((await failure(catalog.getProduct(site, "s1", { by: "id" }))).code).toBe("PRODUCT_NOT_FOUND");
    expect((await catalog.deleteProduct(site, "k", { by: "sku" })).id).toBe("o");
    expect((await failure(catalog.deleteProduct(site, "o"))).code).toBe("PRODUCT_NOT_FOUND");
    expect((await catalog.getProduct(site, "k")).id).toBe("k");
    expect((await failure(catalog.getProduct(other, "k"))).code).toBe("PRODUCT_NOT_FOUND");
  });

  test.prop([fc.array(fc.oneof(productArb(), fc.anything()), { maxLength: 6 })], { numRuns: 100 })(
    "a refused import leaves the catalog exactly as it was",
    async (items) => {
      const catalog = newCatalog();
      const seed = [product("a", "s1"), product("b", "s2")];
      await catalog.importProducts(site, seed);
      const error = await catalog.importProducts(site, items).then(
        () => undefined,
        (e: unknown) => e,
      );
      if (error === undefined) return;
      expect(error).toBeInstanceOf(CatalogError);
      for (const p of seed) expect(await catalog.getProduct(site, p.id)).toEqual(p);
      for (const item of items) {
        const id = (item as { id?: unknown })?.id;
        if (typeof id === "string" && id !== "a" && id !== "b") {
          expect((await failure(catalog.getProduct(site, id, { by: "id" }))).code).toBe("PRODUCT_NOT_FOUND");
        }
      }
    },
  );

  // Stores may keep the objects they are given (see `CatalogStore.upsert`): the catalog's copies make that safe.
  test.prop([productArb(), fc.boolean()], { numRuns: 50 })(
    "changing imported objects afterwards never changes the stored products",
    async (given, single) => {
      const catalog = newCatalog();
      const original = structuredClone(given);
      if (single) await catalog.importProduct(site, given);
      else await catalog.importProducts(site, [given]);
      const mutable = given as { title: string; images?: string[] };
      mutable.title = "changed after import";
      mutable.images?.push("https://img.example/extra.png");
      mutable.images?.fill("https://img.example/other.png");
      expect(await catalog.getProduct(site, original.id, { by: "id" })).toEqual(original);
    },
  );
});
