// Merges end to end on the memory store: mode "merge" through every channel, records that name no
// product, request order, the retry of a stale commit, and the merge rule against a model.
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import {
  type Catalog,
  type CatalogStore,
  createCatalog,
  type Product,
  type StagedImport,
} from "@catalog-kit/catalog-core";
import { productArb } from "@catalog-kit/catalog-core/testing";
import { wrapStaged } from "@catalog-kit/test-support/staged";
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { failure, product } from "./support/catalog-calls.ts";
import { IMPORT_ID } from "./support/import-ids.ts";

const site = { siteId: "shop-1", siteType: "shopify" };

function newCatalog(store: CatalogStore = createMemoryStore()): Catalog {
  return createCatalog({ store, sites: [site] });
}

async function* chunks(text: string) {
  yield Buffer.from(text);
}

const merge = { mode: "merge" } as const;

describe("merge imports", () => {
  test("only the fields a record carries change; null removes an optional field", async () => {
    const catalog = newCatalog();
    await catalog.importProducts(site, [
      product("a", "sa", { price: 10, description: "d" }),
      product("b", "sb", { price: 20 }),
    ]);
    const summary = await catalog.importProducts(
      site,
      [
        { id: "a", price: 11, description: null },
        { sku: "sb", price: 20 },
      ],
      merge,
    );
    expect(summary).toEqual({
      total: 2,
      created: 0,
      updated: 1,
      unchanged: 1,
      dryRun: false,
      skipped: 0,
      skippedKeys: [],
      importId: IMPORT_ID,
    });
    expect(await catalog.getProduct(site, "a")).toEqual(product("a", "sa", { price: 11 }));
    expect(await catalog.getProduct(site, "b")).toEqual(product("b", "sb", { price: 20 }));
  });

  test("a record with id and sku names the product by id and gives it the sku, under the sku rules", async () => {
    const catalog = newCatalog();
    await catalog.importProducts(site, [product("a", "sa"), product("b", "sb")]);
    await catalog.importProducts(site, [{ id: "a", sku: "sa2" }], merge);
    expect((await catalog.getProduct(site, "sa2")).id).toBe("a");
    const error = await failure(catalog.importProducts(site, [{ id: "a", sku: "sb" }], merge));
    expect(error.code).toBe("SKU_CONFLICT");
    expect(error.problems).toEqual([
      { pointer: "/products/0/sku", message: 'sku "sb" is held by product "b"', sku: "sb", heldBy: "b" },
    ]);
  });

  test("a record that names no product is a located PRODUCT_NOT_FOUND, nothing written; skip and create", async () => {
    const catalog = newCatalog();
    await catalog.importProducts(site, [product("a", "sa")]);
    const records = [{ id: "a", price: 1 }, { id: "x", price: 2 }, { sku: "nope" }];
    const error = await failure(catalog.importProducts(site, records, merge));
    expect(error.code).toBe("PRODUCT_NOT_FOUND");
    expect(error.problems).toEqual([
      { pointer: "/products/1/id", message: 'No product with id "x" in this site', code: "PRODUCT_NOT_FOUND" },
      { pointer: "/products/2/sku", message: 'No product with sku "nope" in this site', code: "PRODUCT_NOT_FOUND" },
    ]);
    expect((await catalog.getProduct(site, "a")).price).toBeUndefined();

    const skipped = await catalog.importProducts(site, records, { ...merge, missing: "skip" });
    expect(skipped).toMatchObject({ updated: 1, skipped: 2, skippedKeys: ["x", "nope"] });

    const partial = await failure(
      catalog.importProducts(site, [{ id: "y", price: 2 }], { ...merge, missing: "create" }),
    );
    expect(partial.code).toBe("VALIDATION_FAILED");
    expect(partial.problems.map((p) => p.pointer)).toContain("/products/0/title");
    const created = await catalog.importProducts(site, [product("y", "sy")], { ...merge, missing: "create" });
    expect(created).toMatchObject({ created: 1, skipped: 0 });
  });

  test("null or blank for a required field, and a merge leaving a product invalid, are located problems", async () => {
    const catalog = newCatalog();
    await catalog.importProducts(site, [product("a", "sa", { price_min: 5 })]);
    const error = await failure(
      catalog.importProducts(
        site,
        [
          { id: "a", title: null },
          { id: "a", title: " " },
          { id: "a", price_max: 3 },
          { id: "a", color: "red" },
          { price: 1 },
        ],
        merge,
      ),
    );
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.problems.map((p) => p.pointer)).toEqual([
      "/products/0/title",
      "/products/1/title",
      "/products/2/price_min",
      "/products/3/color",
      "/products/4/id",
    ]);
    expect(await catalog.getProduct(site, "a")).toEqual(product("a", "sa", { price_min: 5 }));
  });

  test("mode merge is for every bulk channel; missing without it names the option", async () => {
    const catalog = newCatalog();
    await catalog.importProducts(site, [product("a", "sa", { price: 1 }), product("b", "sb", { price: 2 })]);
    await catalog.importCsv(site, "sku,price,available\nsa,3,false\nsb,,\n", merge);
    expect(await catalog.getProduct(site, "a")).toEqual(product("a", "sa", { price: 3, available: false }));
    expect(await catalog.getProduct(site, "b")).toEqual(product("b", "sb", { price: 2 }));
    await catalog.importStream(site, chunks('{"id":"b","price":null}\n'), { ...merge, format: "ndjson" });
    expect(await catalog.getProduct(site, "b")).toEqual(product("b", "sb"));
    await catalog.importStream(site, chunks("id\ttitle\na\tNew\n"), { ...merge, format: "tsv" });
    expect((await catalog.getProduct(site, "a")).title).toBe("New");

    const header = await failure(catalog.importCsv(site, "price,available\n3,true\n", merge));
    expect(header.problems).toEqual([
      { row: 1, column: "id", message: 'A merge needs an "id" or a "sku" column, naming the products to change' },
    ]);
    const unknown = await failure(catalog.importCsv(site, "sku,colour\nsa,red\n", merge));
    expect(unknown.problems).toEqual([{ row: 1, column: "colour", message: 'Unknown column "colour"' }]);
    const missing = await failure(catalog.importProducts(site, [], { missing: "skip" }));
    expect(missing.problems).toEqual([{ parameter: "missing", message: 'Only a merge (mode "merge") takes it' }]);
  });

  test("records naming one product more than once apply in request order, across chunks and keys", async () => {
    const catalog = newCatalog();
    const many = Array.from({ length: 7_000 }, (_, i) => product(`p${i}`, `s${i}`, { price: i }));
    await catalog.importProducts(site, many);
    const records: Record<string, unknown>[] = [
      { id: "p1", title: "first", price: 100 },
      ...Array.from({ length: 6_500 }, (_, i) => ({ sku: `s${i + 10}`, available: false })),
      { sku: "s1", price: 101 },
      { id: "p1", description: "third" },
      { id: "p20", available: true },
    ];
    const summary = await catalog.importProducts(site, records, merge);
    // p20 goes unavailable by its sku, then available again by its id: as it was.
    expect(summary).toMatchObject({ total: 6_501, updated: 6_500, unchanged: 1 });
    expect(await catalog.getProduct(site, "p1")).toEqual(
      product("p1", "s1", { title: "first", price: 101, description: "third" }),
    );
    expect(await catalog.getProduct(site, "p20")).toEqual(product("p20", "s20", { price: 20 }));
  });

  test("a dry run counts and writes nothing", async () => {
    const catalog = newCatalog();
    await catalog.importProducts(site, [product("a", "sa")]);
    const summary = await catalog.importProducts(site, [{ id: "a", price: 9 }], { ...merge, dryRun: true });
    expect(summary).toMatchObject({ updated: 1, dryRun: true });
    expect((await catalog.getProduct(site, "a")).price).toBeUndefined();
  });
});

// A store whose next commits first let another writer change product "a" (a write that lands
// between the merge's read and its commit), `times` times.
function racingStore(times: number, change: (n: number) => Partial<Product>): CatalogStore {
  const store = createMemoryStore();
  let left = times;
  return {
    ...store,
    async beginImport(target, options) {
      const staged = await store.beginImport(target, options);
      let based = false;
      return {
        add: (products, positions, bases) => {
          based ||= bases !== undefined;
          return staged.add(products, positions, bases);
        },
        async commit(key) {
          if (based && left > 0) {
            const n = left--;
            const other: StagedImport = await store.beginImport(target, { dryRun: false });
            const current = (await store.find(target, "a", "id")) as Product;
            await other.add([{ ...current, ...change(n) }], [0]);
            await other.commit();
          }
          return staged.commit(key);
        },
        abort: () => staged.abort(),
      };
    },
  };
}

describe("merges under concurrent writes", () => {
  test("a merge whose products changed since it read them is merged anew: both writes land", async () => {
    const catalog = newCatalog(racingStore(2, (n) => ({ title: `other ${n}` })));
    await catalog.importProducts(site, [product("a", "sa"), product("b", "sb")]);
    const summary = await catalog.importProducts(
      site,
      [
        { id: "a", price: 5 },
        { id: "b", price: 6 },
      ],
      merge,
    );
    expect(summary).toMatchObject({ updated: 2 });
    expect(await catalog.getProduct(site, "a")).toEqual(product("a", "sa", { title: "other 1", price: 5 }));
    const csv = await catalog.importStream(site, chunks("id,price\na,7\n"), { ...merge, format: "csv" });
    expect(csv).toMatchObject({ updated: 1 });
    expect(await catalog.getProduct(site, "a")).toEqual(product("a", "sa", { title: "other 1", price: 7 }));
  });

  test("merged anew from its log: records of other fields, and rows that span lines, as they were sent", async () => {
    const catalog = newCatalog(racingStore(1, (n) => ({ title: `other ${n}` })));
    await catalog.importProducts(site, [product("a", "sa"), product("b", "sb", { price: 3 }), product("c", "sc")]);
    const csv = 'sku,price,description\nsa,7,"two\nlines"\nsb,,x\nsc,8,\n';
    const summary = await catalog.importStream(site, chunks(csv), { ...merge, format: "csv" });
    expect(summary).toMatchObject({ updated: 3 });
    expect(await catalog.getProduct(site, "a")).toEqual(
      product("a", "sa", { title: "other 1", price: 7, description: "two\nlines" }),
    );
    expect(await catalog.getProduct(site, "b")).toEqual(product("b", "sb", { price: 3, description: "x" }));
    expect(await catalog.getProduct(site, "c")).toEqual(product("c", "sc", { price: 8 }));
  });

  test("a merge that keeps meeting other writes is CONCURRENT_UPDATE, nothing written", async () => {
    const catalog = newCatalog(racingStore(1_000, (n) => ({ title: `other ${n}` })));
    await catalog.importProducts(site, [product("a", "sa")]);
    const error = await failure(catalog.importProducts(site, [{ id: "a", price: 5 }], merge));
    expect(error.code).toBe("CONCURRENT_UPDATE");
    expect((await catalog.getProduct(site, "a")).price).toBeUndefined();
  });

  test("a patch is merged anew after another write, unless it holds If-Match", async () => {
    const catalog = newCatalog(racingStore(1, () => ({ description: "other" })));
    await catalog.importProducts(site, [product("a", "sa")]);
    expect(await catalog.patchProduct(site, "a", { price: 3 })).toEqual(
      product("a", "sa", { price: 3, description: "other" }),
    );
    const { productTag } = await import("@catalog-kit/catalog-core");
    const tag = productTag(await catalog.getProduct(site, "a"));
    const raced = newCatalog(racingStore(1, () => ({ description: "again" })));
    await raced.importProducts(site, [product("a", "sa")]);
    const fresh = productTag(await raced.getProduct(site, "a"));
    expect((await failure(raced.patchProduct(site, "a", { price: 4 }, { ifMatch: [fresh] }))).code).toBe(
      "PRECONDITION_FAILED",
    );
    expect((await raced.getProduct(site, "a")).price).toBeUndefined();
    expect(tag).not.toBe(fresh);
  });
});

describe("patchProduct and conditional deletes", () => {
  test("a patch answers the product after it; id cannot change; If-Match must name the stored product", async () => {
    const { productTag } = await import("@catalog-kit/catalog-core");
    const catalog = newCatalog();
    await catalog.importProducts(site, [product("a", "sa", { price: 1 })]);
    expect(await catalog.patchProduct(site, "sa", { price: null, title: "T" })).toEqual(
      product("a", "sa", { title: "T" }),
    );
    const bad = await failure(catalog.patchProduct(site, "a", { id: "b", url: null, size: 1 }));
    expect(bad.problems.map((p) => p.pointer)).toEqual(["/url", "/size"]);
    const id = await failure(catalog.patchProduct(site, "a", { id: "b" }));
    expect(id.problems).toEqual([{ pointer: "/id", message: 'The id names the product: it stays "a"' }]);
    expect((await failure(catalog.patchProduct(site, "zz", {}))).code).toBe("PRODUCT_NOT_FOUND");
    const stored = await catalog.getProduct(site, "a");
    expect((await failure(catalog.patchProduct(site, "a", { price: 2 }, { ifMatch: ['"old"'] }))).code).toBe(
      "PRECONDITION_FAILED",
    );
    const patched = await catalog.patchProduct(site, "a", { price: 2 }, { ifMatch: [productTag(stored)] });
    expect(patched.price).toBe(2);
    expect(await catalog.patchProduct(site, "a", { price: 9 }, { ifMatch: "*", dryRun: true })).toMatchObject({
      price: 9,
    });
    expect((await catalog.getProduct(site, "a")).price).toBe(2);
  });

  test("a delete with If-Match removes only the copy it names", async () => {
    const { productTag } = await import("@catalog-kit/catalog-core");
    const catalog = newCatalog();
    await catalog.importProducts(site, [product("a", "sa")]);
    const tag = productTag(await catalog.getProduct(site, "a"));
    await catalog.patchProduct(site, "a", { price: 1 });
    expect((await failure(catalog.deleteProduct(site, "a", { ifMatch: [tag] }))).code).toBe("PRECONDITION_FAILED");
    const now = productTag(await catalog.getProduct(site, "a"));
    expect(await catalog.deleteProduct(site, "sa", { ifMatch: [tag, now] })).toEqual(product("a", "sa", { price: 1 }));
    expect((await failure(catalog.deleteProduct(site, "a", { ifMatch: "*" }))).code).toBe("PRODUCT_NOT_FOUND");
  });
});

// The merge rule against a model: records applied one by one, in order, onto the products.
const fieldValues = {
  title: fc.constantFrom("T1", "T2"),
  description: fc.constantFrom("D1", null),
  price: fc.constantFrom(1, 2.5, null),
  available: fc.boolean(),
  url: fc.constantFrom("https://u.example/1", "https://u.example/2"),
};
const recordArb = fc.record(
  {
    key: fc.integer({ min: 0, max: 4 }),
    by: fc.constantFrom("id", "sku"),
    fields: fc.record(fieldValues, { requiredKeys: [] }),
  },
  { requiredKeys: ["key", "by", "fields"] },
);

test.prop([fc.array(recordArb, { maxLength: 30 }), productArb()], { numRuns: 60 })(
  "merge imports agree with the records applied in order onto the products",
  async (records, template) => {
    const catalog = newCatalog();
    const start = Array.from({ length: 5 }, (_, i) => ({ ...template, id: `p${i}`, sku: `s${i}` }));
    await catalog.importProducts(site, start);
    const model = new Map(start.map((p) => [p.id, { ...p } as Record<string, unknown>]));
    const body = records.map(({ key, by, fields }) => ({ [by]: by === "id" ? `p${key}` : `s${key}`, ...fields }));
    for (const { key, fields } of records) {
      const target = model.get(`p${key}`) as Record<string, unknown>;
      for (const [name, value] of Object.entries(fields)) {
        if (value === null) delete target[name];
        else target[name] = value;
      }
    }
    const valid = [...model.values()].every(
      (p) =>
        p.price_min === undefined || p.price_max === undefined || (p.price_min as number) <= (p.price_max as number),
    );
    if (!valid) return;
    await catalog.importProducts(site, body, merge);
    for (const [id, expected] of model) expect(await catalog.getProduct(site, id)).toEqual(expected);
  },
);

describe("merges among the other options", () => {
  test("an Idempotency-Key replays a merge; the same key with another mode or missing is another call", async () => {
    const catalog = newCatalog();
    await catalog.importProducts(site, [product("a", "sa")]);
    const options = { ...merge, idempotencyKey: "k1" };
    const first = await catalog.importProducts(site, [{ id: "a", price: 1 }], options);
    await catalog.patchProduct(site, "a", { price: 2 });
    // A replay answers the counts its commit recorded (what the store keeps with the key).
    const { total, created, updated, unchanged } = first;
    expect(await catalog.importProducts(site, [{ id: "a", price: 1 }], options)).toEqual({
      total,
      created,
      updated,
      unchanged,
      dryRun: false,
      replayed: true,
      importId: IMPORT_ID,
    });
    expect((await catalog.getProduct(site, "a")).price).toBe(2);
    const other = await failure(catalog.importProducts(site, [{ id: "a", price: 1 }], { ...options, missing: "skip" }));
    expect(other.code).toBe("IDEMPOTENCY_KEY_REUSED");
  });

  test("a platform's file merges: the fields it has change, the others stay", async () => {
    const { LEGACY_CSV, SHOP, hoodie } = await import("./support/shopify-samples.ts");
    const catalog = newCatalog();
    await catalog.importCsv(site, LEGACY_CSV, { profile: "shopify", shopUrl: SHOP });
    await catalog.patchProduct(site, "hoodie", { description: null });
    // The legacy file has no description for the hoodie's other fields to keep: its own description comes back.
    const summary = await catalog.importCsv(site, LEGACY_CSV, { profile: "shopify", shopUrl: SHOP, ...merge });
    expect(summary).toMatchObject({ profile: "shopify", skipped: 0 });
    expect(await catalog.getProduct(site, "hoodie")).toEqual(hoodie);
  });
});

describe("lookups read ahead", () => {
  // A memory store whose finds answer a turn of the event loop later (those of `failing` keys
  // fail after 20 ms), counting the finds asked and not yet answered.
  function slowFinds(failing: (key: string) => boolean = () => false, beginFails = false) {
    const store = createMemoryStore();
    const seen = { open: 0, most: 0 };
    const slow: CatalogStore = {
      ...store,
      async find(target, key, by) {
        seen.open++;
        seen.most = Math.max(seen.most, seen.open);
        try {
          if (failing(key)) {
            await new Promise((resolve) => setTimeout(resolve, 20));
            throw new Error("store down");
          }
          await new Promise((resolve) => setImmediate(resolve));
          return await store.find(target, key, by);
        } finally {
          seen.open--;
        }
      },
      beginImport: (target, options) =>
        beginFails ? Promise.reject(new Error("no staging")) : store.beginImport(target, options),
    };
    return { store, slow, seen };
  }
  const ids = Array.from({ length: 3_600 }, (_, i) => `p${i}`);

  test("the lookups of the next steps go out while one is merged; records apply in request order", async () => {
    const { store, slow, seen } = slowFinds();
    await newCatalog(store).importProducts(
      site,
      ids.map((id) => product(id, `s-${id}`)),
    );
    const catalog = newCatalog(slow);
    const records = ids.map((id, i) => (i % 2 === 0 ? { id, price: i } : { sku: `s-${id}`, price: i }));
    const summary = await catalog.importProducts(site, [...records, { id: "p5", description: "again" }], merge);
    expect(summary).toMatchObject({ updated: 3_600, unchanged: 0 });
    // One step is 500 records: more than that were asked at once.
    expect(seen.most).toBeGreaterThan(500);
    expect(await catalog.getProduct(site, "p5")).toEqual(product("p5", "s-p5", { price: 5, description: "again" }));
    expect((await catalog.getProduct(site, "p3599")).price).toBe(3_599);

    const bad = records.map((record, i) =>
      i === 100
        ? { ...record, color: "red" }
        : i === 700
          ? { id: "nope" }
          : i === 1_300
            ? { ...record, title: null }
            : record,
    );
    const error = await failure(catalog.importProducts(site, bad, merge));
    expect(error.problems.map((p) => p.pointer)).toEqual([
      "/products/100/color",
      "/products/700/id",
      "/products/1300/title",
    ]);
    expect((await catalog.getProduct(site, "p2")).price).toBe(2);
  });

  test("an import that fails with lookups of later steps still out leaves none of them unhandled", async () => {
    // The staging fails once 1,000 products are merged (its first chunk); the lookups read ahead fail after that.
    const { store, slow } = slowFinds((key) => Number(key.slice(1)) >= 1_000, true);
    await newCatalog(store).importProducts(
      site,
      ids.map((id) => product(id, `s-${id}`)),
    );
    const records = ids.map((id, i) => ({ id, price: i }));
    await expect(newCatalog(slow).importProducts(site, records, merge)).rejects.toThrow("no staging");
    // Long enough for the failing lookups to fail: an unhandled one fails the run.
    await new Promise((resolve) => setTimeout(resolve, 50));
  });

  test("a merge stages its products 1,000 at a time, each with its base, so that few wait at once", async () => {
    const store = createMemoryStore();
    await newCatalog(store).importProducts(
      site,
      ids.map((id) => product(id, `s-${id}`)),
    );
    const sizes: number[] = [];
    const counted = wrapStaged(store, (staged) => ({
      add: (products, positions, bases) => {
        sizes.push(products.length);
        expect(bases).toHaveLength(products.length);
        return staged.add(products, positions, bases);
      },
    }));
    const records = ids.map((id, i) => ({ sku: `s-${id}`, price: i }));
    expect(await newCatalog(counted).importProducts(site, records, merge)).toMatchObject({ updated: 3_600 });
    expect(sizes).toEqual([1_000, 1_000, 1_000, 600]);
  });
});
