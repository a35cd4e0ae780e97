// Streamed imports (catalog.importStream): NDJSON and CSV bodies in chunks of any size, located
// problems, all-or-nothing, limits, and the same answers as the buffered imports.
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import {
  type ByteSource,
  type Catalog,
  CatalogError,
  type CatalogStore,
  createCatalog,
  type Product,
  type StreamFormat,
} from "@catalog-kit/catalog-core";
import { productArb } from "@catalog-kit/catalog-core/testing";
import { wrapStaged } from "@catalog-kit/test-support/staged";
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { sampleProduct } from "../src/testing/arbitraries.ts";
import { encodeCsv } from "./support/csv-encode.ts";
import { IMPORT_ID, withoutId } from "./support/import-ids.ts";

const SITE = { siteId: "s1", siteType: "t" };

function open(limits = {}, store: CatalogStore = createMemoryStore()): Catalog {
  return createCatalog({ store, sites: [SITE], limits });
}

// The bytes of `text` cut at the given offsets (each taken modulo the length), as a stream would deliver them.
async function* pieces(text: string | Buffer, cuts: readonly number[] = []): AsyncGenerator<Buffer> {
  const bytes = typeof text === "string" ? Buffer.from(text) : text;
  const at = [...new Set(cuts.map((cut) => (bytes.length === 0 ? 0 : cut % bytes.length)))].sort((a, b) => a - b);
  let from = 0;
  for (const cut of at) {
    yield bytes.subarray(from, cut);
    from = cut;
  }
  yield bytes.subarray(from);
}

const ndjson = (products: readonly unknown[]) => products.map((p) => JSON.stringify(p)).join("\n");

async function failure(run: Promise<unknown>): Promise<CatalogError> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof CatalogError)) throw new Error(`expected a CatalogError, got ${String(error)}`);
  return error;
}

const stream = (catalog: Catalog, body: ByteSource, format: StreamFormat, dryRun = false) =>
  catalog.importStream(SITE, body, { format, dryRun });

// CSV cannot tell an empty description from an absent one.
const csvProductArb = productArb().map((p) => {
  if (p.description !== "") return p;
  const { description: _, ...rest } = p;
  return rest as Product;
});
const batchArb = fc
  .uniqueArray(csvProductArb, { maxLength: 12, selector: (p) => p.id })
  .filter((products) => new Set(products.map((p) => p.sku)).size === products.length);
const cutsArb = fc.array(fc.nat(), { maxLength: 8 });

describe("importStream", () => {
  test.prop([batchArb, cutsArb, fc.constantFrom("\n", "\r\n")])(
    "NDJSON cut anywhere imports what importProducts imports",
    async (products, cuts, eol) => {
      const streamed = open();
      const buffered = open();
      const body = products.map((p) => JSON.stringify(p)).join(eol) + eol;
      expect(withoutId(await stream(streamed, pieces(body, cuts), "ndjson"))).toEqual(
        withoutId(await buffered.importProducts(SITE, products)),
      );
      for (const p of products) expect(await streamed.getProduct(SITE, p.id)).toEqual(p);
    },
  );

  test.prop([batchArb, cutsArb, fc.constantFrom("\n", "\r\n")])(
    "CSV cut anywhere (inside quotes and multi-byte characters too) imports what importCsv imports",
    async (products, cuts, eol) => {
      const streamed = open();
      const buffered = open();
      const body = encodeCsv(products, { eol });
      expect(withoutId(await stream(streamed, pieces(body, cuts), "csv"))).toEqual(
        withoutId(await buffered.importCsv(SITE, body)),
      );
      for (const p of products) expect(await streamed.getProduct(SITE, p.id)).toEqual(p);
    },
  );

  test("CSV whose quoted cells hold line breaks and quotes, cut at every byte, imports whole", async () => {
    const products = ["a", "b", "c"].map((id) =>
      sampleProduct(id, `s${id}`, { description: `one\n"two", \r\nthree ${id}\n`, title: `T "${id}"` }),
    );
    const body = encodeCsv(products);
    for (let cut = 1; cut < Buffer.byteLength(body); cut++) {
      const catalog = open();
      expect(await stream(catalog, pieces(body, [cut, cut + 7]), "csv")).toMatchObject({ created: 3 });
      expect(await catalog.getProduct(SITE, "c")).toEqual(products[2]);
    }
  });

  test.prop([fc.array(fc.constantFrom("a", "b", "c", "d"), { minLength: 1, maxLength: 30 }), cutsArb])(
    "repeated ids across chunks: the later wins, counted once; invalid cells are located as importCsv locates them",
    async (ids, cuts) => {
      const products = ids.map((id, n) => sampleProduct(id, `sku-${id}`, { price: n % 3 === 0 ? -1 : n }));
      const body = encodeCsv(products);
      const streamed = await stream(open(), pieces(body, cuts), "csv").catch((e: unknown) => e);
      const buffered = await open()
        .importCsv(SITE, body)
        .catch((e: unknown) => e);
      if (buffered instanceof CatalogError) {
        expect(streamed).toBeInstanceOf(CatalogError);
        expect((streamed as CatalogError).code).toBe(buffered.code);
        expect((streamed as CatalogError).problems).toEqual(buffered.problems);
      } else expect(streamed).toEqual(buffered);
    },
  );

  test("NDJSON problems name the line and a pointer into that line's product; nothing is written", async () => {
    const catalog = open();
    const body = [
      JSON.stringify(sampleProduct("a", "sa")),
      "",
      JSON.stringify({ ...sampleProduct("b", "sb"), sku: "" }),
      "   ",
      JSON.stringify({ ...sampleProduct("c", "sc"), price: "12" }),
      JSON.stringify(sampleProduct("d", "sd")),
    ].join("\r\n");
    const error = await failure(stream(catalog, pieces(body, [7, 90]), "ndjson"));
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.problems.map(({ line, pointer }) => ({ line, pointer }))).toEqual([
      { line: 3, pointer: "/sku" },
      { line: 5, pointer: "/price" },
    ]);
    expect(error.errorCount).toBe(2);
    await expect(catalog.getProduct(SITE, "a")).rejects.toMatchObject({ code: "PRODUCT_NOT_FOUND" });
  });

  test("NDJSON: a line that is not JSON, or not UTF-8, is INVALID_JSON at its line, with the others' problems", async () => {
    const body = Buffer.concat([
      Buffer.from(`\ufeff${JSON.stringify(sampleProduct("a", "sa"))}\n{"id": \n`),
      Buffer.from([0xff, 0xfe, 0x0a]),
      Buffer.from(`${JSON.stringify({ ...sampleProduct("b", "sb"), extra: 1 })}\n`),
    ]);
    const error = await failure(stream(open(), pieces(body, [3, 40]), "ndjson"));
    expect(error.code).toBe("INVALID_JSON");
    expect(error.problems.map(({ line, pointer }) => ({ line, pointer }))).toEqual([
      { line: 2, pointer: undefined },
      { line: 3, pointer: undefined },
      { line: 4, pointer: "/extra" },
    ]);
    expect(error.problems[1]?.message).toMatch(/UTF-8/);
  });

  test("CSV: a bad header, bad quoting or bad UTF-8 is INVALID_CSV at its row", async () => {
    const header = "id,sku,title,available,featured_image,url";
    const row = (id: string) => `${id},s${id},T,true,f,u`;
    const cases: [string | Buffer, number][] = [
      [`id,sku,colour\n${row("1")}\n`, 1],
      [`${header}\n${row("1")}\n${row("2")}\n2,"a"b,T,true,f,u\n${row("3")}\n`, 4],
      [Buffer.concat([Buffer.from(`${header}\n${row("1")}\n`), Buffer.from([0xc3, 0x28, 0x0a])]), 3],
      ["", 1],
    ];
    for (const [body, row] of cases) {
      const error = await failure(stream(open(), pieces(body, [5]), "csv"));
      expect(error.code).toBe("INVALID_CSV");
      expect(error.problems[0]?.row).toBe(row);
    }
  });

  test("a sku claimed twice across chunks, and one held in the site, are both SKU_CONFLICT at the claimers' lines", async () => {
    const catalog = open();
    await catalog.importProducts(SITE, [sampleProduct("holder", "taken")]);
    const products = Array.from({ length: 2_500 }, (_, i) => sampleProduct(`p${i}`, `s${i}`));
    products.push(sampleProduct("late", "s7"), sampleProduct("other", "taken"));
    const error = await failure(stream(catalog, pieces(ndjson(products)), "ndjson"));
    expect(error.code).toBe("SKU_CONFLICT");
    expect(error.problems).toEqual([
      { line: 2_501, pointer: "/sku", message: 'sku "s7" is held by product "p7"', sku: "s7", heldBy: "p7" },
      {
        line: 2_502,
        pointer: "/sku",
        message: 'sku "taken" is held by product "holder"',
        sku: "taken",
        heldBy: "holder",
      },
    ]);
    products.pop();
    products[2_500] = sampleProduct("late", "s-late");
    products.push(sampleProduct("other", "taken"));
    const held = await failure(stream(catalog, pieces(ndjson(products)), "ndjson"));
    expect(held.problems).toMatchObject([{ line: 2_502, pointer: "/sku", sku: "taken", heldBy: "holder" }]);
    await expect(catalog.getProduct(SITE, "p0")).rejects.toMatchObject({ code: "PRODUCT_NOT_FOUND" });
  });

  test("dry run: same counts, nothing written", async () => {
    const catalog = open();
    const body = ndjson([sampleProduct("a", "sa"), sampleProduct("b", "sb")]);
    expect(await stream(catalog, pieces(body), "ndjson", true)).toEqual({
      total: 2,
      created: 2,
      updated: 0,
      unchanged: 0,
      dryRun: true,
      importId: IMPORT_ID,
    });
    await expect(catalog.getProduct(SITE, "a")).rejects.toMatchObject({ code: "PRODUCT_NOT_FOUND" });
  });

  test("more products than maxProductsPerStream is TOO_MANY_PRODUCTS, and reading stops", async () => {
    let delivered = 0;
    async function* endless(): AsyncGenerator<string> {
      for (let i = 0; ; i++) {
        delivered++;
        yield `${JSON.stringify(sampleProduct(`p${i}`, `s${i}`))}\n`;
      }
    }
    const error = await failure(stream(open({ maxProductsPerStream: 50 }), endless(), "ndjson"));
    expect(error).toMatchObject({ code: "TOO_MANY_PRODUCTS", limit: 50, received: 51 });
    expect(delivered).toBe(51);
  });

  test("a source that fails mid-stream leaves nothing visible, and the staging is aborted", async () => {
    const inner = createMemoryStore();
    let aborted = 0;
    const store = wrapStaged(inner, (staged) => ({
      abort: () => {
        aborted++;
        return staged.abort();
      },
    }));
    const catalog = open({}, store);
    async function* broken(): AsyncGenerator<string> {
      for (let i = 0; i < 3_000; i++) yield `${JSON.stringify(sampleProduct(`p${i}`, `s${i}`))}\n`;
      throw new Error("the client went away");
    }
    await expect(stream(catalog, broken(), "ndjson")).rejects.toThrow("the client went away");
    expect(aborted).toBe(1);
    await expect(catalog.getProduct(SITE, "p0")).rejects.toMatchObject({ code: "PRODUCT_NOT_FOUND" });
  });

  test("text chunks: a surrogate pair split between chunks is kept whole; a lone surrogate is refused where it is", async () => {
    const catalog = open();
    const line = JSON.stringify(sampleProduct("a", "sa", { title: "Mug 🌿" }));
    const split = line.indexOf("🌿") + 1;
    await stream(catalog, pieces(""), "ndjson");
    expect(await stream(catalog, [line.slice(0, split), line.slice(split)], "ndjson")).toMatchObject({
      created: 1,
    });
    expect((await catalog.getProduct(SITE, "a")).title).toBe("Mug 🌿");
    const lone = JSON.stringify(sampleProduct("b", "sb", { title: "x" })).replace('"x"', '"\ud800"');
    const error = await failure(stream(catalog, [`${line}\n`, lone.slice(0, 40), lone.slice(40)], "ndjson"));
    expect(error).toMatchObject({ code: "VALIDATION_FAILED", errorCount: 1 });
    expect(error.problems).toEqual([
      { line: 2, pointer: "/title", message: "Must be well-formed Unicode (no lone surrogates)" },
    ]);
    const csv = `id,sku,title,available,featured_image,url\nc,sc,"\udc00",true,f,u\n`;
    expect((await failure(stream(catalog, [csv], "csv"))).problems).toEqual([
      { row: 2, column: "title", message: "Must be well-formed Unicode (no lone surrogates)" },
    ]);
  });

  test("an unknown site is SITE_NOT_FOUND before anything is read", async () => {
    let read = false;
    async function* body(): AsyncGenerator<string> {
      read = true;
      yield "";
    }
    const error = await failure(open().importStream({ siteId: "x", siteType: "t" }, body(), { format: "csv" }));
    expect(error.code).toBe("SITE_NOT_FOUND");
    expect(read).toBe(false);
  });
});
