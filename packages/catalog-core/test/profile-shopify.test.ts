// The Shopify profile: files shaped as Shopify's exports, in both header sets, through the grouping
// stage to exact product records that the product schema accepts.
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import type { ProfileRow } from "../src/profiles/profile.ts";
import { shopify } from "../src/profiles/shopify.ts";
import {
  CURRENT_HEADER,
  decodeShopify,
  importShopify,
  LEGACY_HEADER,
  schemaProblems,
  shopifyCsv,
} from "./support/shopify-files.ts";
import { CDN, CURRENT_CSV, hoodie, LEGACY_CSV, SHOP, single } from "./support/shopify-samples.ts";

async function run(csv: string, parameters: Parameters<typeof importShopify>[1]) {
  const { header, rows } = decodeShopify(csv);
  const result = await importShopify([rows], parameters);
  return { ...result, schema: schemaProblems(result.records, result.positions, header) };
}

describe("Shopify profile: legacy header", () => {
  test("one product a handle: variants, image rows, positions, draft, unpublished, sold out", async () => {
    const { records, positions, problems, schema } = await run(LEGACY_CSV, { shopUrl: SHOP });
    expect(problems).toEqual([]);
    expect(records).toEqual([
      hoodie,
      single("mug", "Mug", "MUG-1", 12.5),
      single("cap", "Cap", "CAP-1", 15),
      // No variant has a SKU: the handle is the product's.
      single("scarf", "Scarf", "scarf", 9.99),
      single("beanie", "Beanie", "BEA-1", 20),
    ]);
    expect(positions).toEqual([2, 8, 9, 10, 11]);
    expect(schema).toEqual([]);
  });

  test("variants=items: one product a variant row, named by its SKU or by handle and row", async () => {
    const { records, positions, problems, schema } = await run(LEGACY_CSV, { shopUrl: SHOP, variants: "items" });
    expect(problems).toEqual([]);
    const { price_min: _min, price_max: _max, ...shared } = hoodie;
    const others = hoodie.images.filter((image) => !image.endsWith("-s.jpg") && !image.endsWith("-m.jpg"));
    const variant = (size: string, price: number, available: boolean, image: string, other: string) => ({
      ...shared,
      id: `HOOD-${size}`,
      sku: `HOOD-${size}`,
      title: `Zip Hoodie - ${size} / Grey`,
      price,
      available,
      images: [`${CDN}hoodie-${image}.jpg`, ...others, `${CDN}hoodie-${other}.jpg`],
      featured_image: `${CDN}hoodie-${image}.jpg`,
    });
    expect(records.slice(0, 3)).toEqual([
      variant("S", 40, true, "s", "m"),
      variant("M", 42, true, "m", "s"), // continue: on sale at 0
      variant("L", 45, false, "s", "m"), // deny at 0
    ]);
    // "Default Title" is no option name; a variant without SKU is the handle and its row.
    expect(records[3]).toEqual({ ...single("mug", "Mug", "MUG-1", 12.5), id: "MUG-1" });
    expect(records[5]).toEqual({ ...single("scarf", "Scarf", "scarf-10", 9.99), id: "scarf-10" });
    expect(positions).toEqual([2, 4, 5, 8, 9, 10, 11]);
    expect(schema).toEqual([]);
  });

  test("a price that does not read with the decimal separator is a problem at its row and column", async () => {
    const { records, problems } = await run(LEGACY_CSV, { shopUrl: SHOP, decimal: "," });
    expect(problems[0]).toEqual({
      row: 2,
      column: "Variant Price",
      message:
        '"40.00" is not a price with the decimal separator "," (give decimal=. if the file writes decimals with ".")',
    });
    expect(problems.map((problem) => problem.row)).toEqual([2, 4, 5, 8, 9, 10, 11]);
    expect(records.map((record) => record.id)).toEqual(["hoodie", "mug", "cap", "scarf", "beanie"]);
  });

  test("a stock quantity that is not a whole number is a problem; a row without handle is one", async () => {
    const csv = shopifyCsv(LEGACY_HEADER, [
      { Handle: "a", Title: "A", "Variant SKU": "A-1", "Variant Price": "1" },
      {
        Handle: "a",
        "Variant SKU": "A-2",
        "Variant Inventory Tracker": "shopify",
        "Variant Inventory Qty": "lots",
        "Variant Inventory Policy": "deny",
      },
      // Not tracked: its quantity is not read.
      { Handle: "a", "Variant SKU": "A-3", "Variant Inventory Policy": "deny", "Variant Inventory Qty": "x" },
      { Handle: " ", Title: "Nameless", "Variant SKU": "N-1" },
    ]);
    const { records, problems } = await run(csv, { shopUrl: SHOP });
    expect(problems).toEqual([
      { row: 3, column: "Variant Inventory Qty", message: '"lots" is not a whole number' },
      { row: 5, column: "Handle", message: "Required: the product's handle, which names it and its page" },
    ]);
    expect(records.map((record) => record.id)).toEqual(["a"]);
  });

  test("rows of one handle split by another: the located problem names both rows", async () => {
    const csv = shopifyCsv(LEGACY_HEADER, [
      { Handle: "a", Title: "A", "Variant SKU": "A-1", "Variant Price": "1" },
      { Handle: "b", Title: "B", "Variant SKU": "B-1", "Variant Price": "2" },
      { Handle: "a", "Variant SKU": "A-2", "Variant Price": "3" },
    ]);
    const { problems } = await run(csv, { shopUrl: SHOP });
    expect(problems).toEqual([
      {
        row: 4,
        column: "Handle",
        message:
          'The rows of "a" are apart: they begin at row 2 and start again here; write each product\'s rows together',
      },
    ]);
  });
});

describe("Shopify profile: current header", () => {
  test("decimal comma, Continue selling FALSE at 0, archived and unpublished products", async () => {
    const { records, positions, problems, schema } = await run(CURRENT_CSV, { shopUrl: SHOP, decimal: "," });
    expect(problems).toEqual([]);
    expect(records).toEqual([
      {
        id: "linen-shirt",
        sku: "SHIRT-S",
        title: "Linen Shirt",
        description: "<p>Light.</p>",
        price: 39.9,
        price_min: 39.9,
        price_max: 41.5,
        available: true,
        images: ["shirt-1", "shirt-2", "shirt-s", "shirt-m"].map((name) => `${CDN}${name}.jpg`),
        featured_image: `${CDN}shirt-1.jpg`,
        url: "https://shop.example/products/linen-shirt",
      },
      single("tote", "Tote", "TOTE-1", 10),
      single("pin", "Pin", "PIN-1", 3.5),
    ]);
    expect(positions).toEqual([2, 5, 6]);
    expect(schema).toEqual([]);
  });

  test("variants=items: each variant's own stock and image", async () => {
    const { records, schema } = await run(CURRENT_CSV, { shopUrl: SHOP, decimal: ",", variants: "items" });
    expect(
      records.slice(0, 2).map(({ id, title, price, available, images }) => ({ id, title, price, available, images })),
    ).toEqual([
      {
        id: "SHIRT-S",
        title: "Linen Shirt - S",
        price: 39.9,
        available: false,
        images: ["shirt-s", "shirt-1", "shirt-2", "shirt-m"].map((name) => `${CDN}${name}.jpg`),
      },
      {
        id: "SHIRT-M",
        title: "Linen Shirt - M",
        price: 41.5,
        available: true,
        images: ["shirt-m", "shirt-1", "shirt-2", "shirt-s"].map((name) => `${CDN}${name}.jpg`),
      },
    ]);
    expect(schema).toEqual([]);
  });
});

describe("Shopify profile: columns", () => {
  test("kept, ignored (both lists, markets, Google Shopping, metafields) and unknown", () => {
    for (const name of [...LEGACY_HEADER, ...CURRENT_HEADER]) expect(shopify.column(name)).toBeDefined();
    expect(shopify.column("Variant SKU")).toBe("kept");
    expect(shopify.column("  variant sku ")).toBe("kept");
    expect(shopify.column("Product image URL")).toBe("kept");
    expect(shopify.column("Compare At Price / South America")).toBe("ignored");
    expect(shopify.column("Price / South America")).toBe("ignored");
    expect(shopify.column("Included / South America")).toBe("ignored");
    expect(shopify.column("Fabric (product.metafields.custom.fabric)")).toBe("ignored");
    expect(shopify.column("Size chart (variant.metafields.custom.size_chart)")).toBe("ignored");
    expect(shopify.column("Google Shopping / Custom Label 4")).toBe("ignored");
    expect(shopify.column("Regular price")).toBeUndefined();
    expect(shopify.column("Price /")).toBeUndefined();
    expect(shopify.column("Fabric (metafields.custom.fabric)")).toBeUndefined();
  });

  test("a header written in another case is read as Shopify's", async () => {
    const header = LEGACY_HEADER.map((name) => (name === "Variant SKU" ? "variant sku" : name));
    const { header: read, rows } = decodeShopify(
      shopifyCsv(header, [{ Handle: "a", Title: "A", "variant sku": "A-1", "Variant Price": "2" }]),
    );
    const { records } = await importShopify([rows], { shopUrl: SHOP });
    expect(records.map((record) => record.sku)).toEqual(["A-1"]);
    expect(shopify.columnOf("sku", read)).toBe("variant sku");
  });

  test("detect: either header set; not a header that only shares a name", () => {
    expect(shopify.detect(LEGACY_HEADER)).toBe(true);
    expect(shopify.detect(CURRENT_HEADER)).toBe(true);
    expect(shopify.detect(["Title", "URL handle", "Price"])).toBe(true);
    expect(shopify.detect(["Handle", "Title", "Variant SKU"])).toBe(true);
    expect(shopify.detect(["id", "title", "price", "handle"])).toBe(false);
    expect(shopify.detect(["ID", "Type", "SKU", "Name", "Regular price", "Images"])).toBe(false);
  });

  test("columnOf: each field's column in the header set in use", () => {
    const fields = ["id", "sku", "title", "description", "price", "price_max", "images", "url"] as const;
    expect(fields.map((field) => shopify.columnOf(field, LEGACY_HEADER))).toEqual([
      "Handle",
      "Variant SKU",
      "Title",
      "Body (HTML)",
      "Variant Price",
      "Variant Price",
      "Image Src",
      "Handle",
    ]);
    expect(fields.map((field) => shopify.columnOf(field, CURRENT_HEADER))).toEqual([
      "URL handle",
      "SKU",
      "Title",
      "Description",
      "Price",
      "Price",
      "Product image URL",
      "URL handle",
    ]);
  });
});

// Shopify-shaped groups: unique handles, one to four variants (a SKU and a price each), each variant
// row followed by zero to two image-only rows.
const groupsArb = fc
  .uniqueArray(fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/), { minLength: 1, maxLength: 8 })
  .chain((handles) =>
    fc.tuple(
      ...handles.map((handle) =>
        fc
          .array(fc.tuple(fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 0, max: 2 })), {
            minLength: 1,
            maxLength: 4,
          })
          .map((variants) => ({
            handle,
            variants: variants.map(([cents, images], i) => ({ sku: `${handle}-${i}`, price: cents / 100, images })),
          })),
      ),
    ),
  );

function rowsOf(groups: readonly { handle: string; variants: { sku: string; price: number; images: number }[] }[]) {
  const rows: ProfileRow[] = [];
  let line = 2;
  for (const { handle, variants } of groups) {
    variants.forEach((variant, i) => {
      const title = i === 0 ? { Title: handle.toUpperCase() } : {};
      const cells = { Handle: handle, ...title, "Variant SKU": variant.sku, "Variant Price": variant.price.toFixed(2) };
      rows.push({ position: line++, cells });
      for (let k = 0; k < variant.images; k++) {
        rows.push({ position: line++, cells: { Handle: handle, "Image Src": `${CDN}${handle}-${i}-${k}.jpg` } });
      }
    });
  }
  return rows;
}

function cut(rows: readonly ProfileRow[], cuts: readonly number[]): ProfileRow[][] {
  const at = [...new Set(cuts.map((c) => c % (rows.length + 1)))].sort((a, b) => a - b);
  const parts: ProfileRow[][] = [];
  let from = 0;
  for (const to of [...at, rows.length]) {
    parts.push(rows.slice(from, to));
    from = to;
  }
  return parts;
}

describe("Shopify profile: grouping, however the rows come in parts", () => {
  test.prop([groupsArb, fc.array(fc.nat(), { maxLength: 6 })])(
    "one product a handle, every variant's SKU and price counted once",
    async (groups, cuts) => {
      const { records, problems } = await importShopify(cut(rowsOf(groups), cuts), { shopUrl: SHOP });
      expect(problems).toEqual([]);
      expect(records.map((record) => record.id)).toEqual(groups.map((group) => group.handle));
      records.forEach((record, i) => {
        const variants = groups[i]?.variants ?? [];
        const prices = variants.map((variant) => variant.price);
        expect(record.sku).toBe(variants[0]?.sku);
        expect(record.price).toBe(prices[0]);
        expect(record.price_min).toBe(prices.length > 1 ? Math.min(...prices) : undefined);
        expect(record.price_max).toBe(prices.length > 1 ? Math.max(...prices) : undefined);
      });
    },
  );

  test.prop([groupsArb, fc.array(fc.nat(), { maxLength: 6 })])(
    "variants=items: one product a variant, none lost or repeated",
    async (groups, cuts) => {
      const { records, problems } = await importShopify(cut(rowsOf(groups), cuts), {
        shopUrl: SHOP,
        variants: "items",
      });
      expect(problems).toEqual([]);
      const variants = groups.flatMap((group) => group.variants);
      expect(records.map((record) => [record.sku, record.price])).toEqual(
        variants.map((variant) => [variant.sku, variant.price]),
      );
    },
  );
});
