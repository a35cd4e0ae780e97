// Profiles end to end through createCatalog and the memory store: generated Shopify and
// WooCommerce files in any byte chunks give exactly the products of their groups; a TSV's quoted
// tab, unknown columns, a native CSV's delimiter and a platform's header are located or refused;
// a parameter a profile needs is checked before a byte of the body is read.
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { type ByteSource, type Catalog, createCatalog, type Product } from "@catalog-kit/catalog-core";
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { byteChunks } from "../src/testing/profiles.ts";
import { LEGACY_HEADER, shopifyCsv } from "./support/shopify-files.ts";
import { wooFile } from "./support/woocommerce-file.ts";

const SHOP = "https://shop.example";
const CDN = "https://cdn.example/";
let sites = 0;

function open(): { catalog: Catalog; site: { siteType: string; siteId: string } } {
  const site = { siteType: "t", siteId: `s${++sites}` };
  return { catalog: createCatalog({ store: createMemoryStore(), sites: [site] }), site };
}

const all = async (catalog: Catalog, site: { siteType: string; siteId: string }) =>
  (await catalog.listProducts(site, { limit: 1_000 })).products;

// Titles that CSV must quote, and characters of several bytes that a chunk may cut.
const titleArb = fc
  .array(fc.constantFrom("a", "Z", "é", "😀", ",", '"', " ", "x"), { minLength: 1, maxLength: 8 })
  .map((chars) => `T${chars.join("")}.`);
const centsArb = fc.integer({ min: 0, max: 99_999 });
// Byte offsets, taken modulo the file's length: cuts anywhere, inside a character too.
const cutsArb = fc.array(fc.nat({ max: 100_000 }), { maxLength: 12 });
const cutAt = (text: string, cuts: readonly number[]) =>
  byteChunks(
    text,
    cuts.map((cut) => cut % (Buffer.byteLength(text) + 1)),
  );

/** Min and max only for several prices, as a group's product has them. */
function priced(prices: readonly number[]): Partial<Product> {
  const price = prices[0] as number;
  return prices.length > 1 ? { price, price_min: Math.min(...prices), price_max: Math.max(...prices) } : { price };
}

describe("a generated Shopify file in any byte chunks", () => {
  // A product: its handle, title, 1-4 variants' prices, and its images (the first row's, then
  // image-only rows) with positions in any order.
  const groupArb = fc.record({
    title: titleArb,
    prices: fc.array(centsArb, { minLength: 1, maxLength: 4 }),
    images: fc
      .integer({ min: 0, max: 3 })
      .chain((extra) => fc.shuffledSubarray([1, 2, 3, 4], { minLength: extra + 1, maxLength: extra + 1 })),
    order: fc.array(fc.nat(), { minLength: 6, maxLength: 6 }),
  });
  const fileArb = fc
    .uniqueArray(fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,9}$/), { minLength: 1, maxLength: 6 })
    .chain((handles) =>
      fc.tuple(fc.constant(handles), fc.array(groupArb, { minLength: handles.length, maxLength: handles.length })),
    );

  test.prop([fileArb, cutsArb], { numRuns: 80 })(
    "always the products of its groups, each variant once",
    async ([handles, groups], cuts) => {
      const rows: Record<string, string>[] = [];
      const expected: Product[] = [];
      handles.forEach((handle, g) => {
        const { title, prices, images, order } = groups[g] as (typeof groups)[number];
        const image = (position: number) => `${CDN}${handle}-${position}.jpg`;
        const [own, ...extra] = images as [number, ...number[]];
        const variant = (i: number) => ({
          Handle: handle,
          "Option1 Value": `V${i}`,
          "Variant SKU": `${handle}.${i}`,
          "Variant Price": ((prices[i] as number) / 100).toFixed(2),
        });
        // After the first row, the other variants and the image rows in any order.
        const rest: Record<string, string>[] = [
          ...prices.slice(1).map((_, i) => variant(i + 1)),
          ...extra.map((position) => ({
            Handle: handle,
            "Image Src": image(position),
            "Image Position": String(position),
          })),
        ];
        const shuffled = rest.map((row, i) => ({ row, key: order[i] as number })).sort((a, b) => a.key - b.key);
        rows.push(
          {
            ...variant(0),
            Title: title,
            "Option1 Name": "Size",
            "Image Src": image(own),
            "Image Position": String(own),
          },
          ...shuffled.map(({ row }) => row),
        );
        const sorted = [...images].sort((a, b) => a - b).map(image);
        expected.push({
          id: handle,
          sku: `${handle}.0`,
          title,
          ...priced(prices.map((cents) => cents / 100)),
          available: true,
          images: sorted,
          featured_image: sorted[0] as string,
          url: `${SHOP}/products/${handle}`,
        });
      });
      const text = shopifyCsv(LEGACY_HEADER, rows);
      const { catalog, site } = open();
      const summary = await catalog.importStream(site, cutAt(text, cuts), {
        format: "csv",
        profile: "shopify",
        shopUrl: SHOP,
      });
      expect(summary).toMatchObject({ total: handles.length, created: handles.length, profile: "shopify" });
      expect(await all(catalog, site)).toEqual(expected.sort((a, b) => (a.id < b.id ? -1 : 1)));
    },
  );
});

describe("a generated WooCommerce file, variations anywhere after their parent", () => {
  // A simple product (no variations) or a variable one of 1-3; each variation's place is drawn.
  const productArb = fc.record({
    title: titleArb,
    cents: centsArb,
    variations: fc.array(fc.record({ cents: centsArb, place: fc.nat() }), { maxLength: 3 }),
    bySku: fc.boolean(),
  });

  test.prop([fc.array(productArb, { minLength: 1, maxLength: 6 }), cutsArb], { numRuns: 80 })(
    "always the products of its parents, each variation once",
    async (products, cuts) => {
      const n = products.length;
      // Parents at odd keys 2i+1, a variation at an even key after its parent's: stable sort keeps draws in order.
      const placed: { key: number; row: Record<string, string> }[] = [];
      const expected: Product[] = products.map(({ title, cents, variations, bySku }, i) => {
        const id = String(100 + 10 * i);
        const image = `${SHOP}/img/${id}.jpg`;
        const url = `${SHOP}/?p=${id}`;
        if (variations.length === 0) {
          const row = { ID: id, Type: "simple", SKU: `S${i}`, Name: title, "Regular price": String(cents / 100) };
          placed.push({ key: 2 * i + 1, row: { ...row, Images: image } });
          return {
            id,
            sku: `S${i}`,
            title,
            price: cents / 100,
            available: true,
            images: [image],
            featured_image: image,
            url,
          };
        }
        placed.push({ key: 2 * i + 1, row: { ID: id, Type: "variable", SKU: `P${i}`, Name: title, Images: image } });
        const rows = variations.map(({ cents: price, place }, j) => ({
          key: 2 * (i + 1 + (place % (n - i))),
          price: price / 100,
          sku: `P${i}-${j}`,
          image: `${SHOP}/img/${id}-${j}.jpg`,
          row: {
            ID: String(100 + 10 * i + j + 1),
            Type: "variation",
            SKU: `P${i}-${j}`,
            "Regular price": String(price / 100),
            Images: `${SHOP}/img/${id}-${j}.jpg`,
            Parent: bySku ? `P${i}` : `id:${id}`,
          },
        }));
        placed.push(...rows);
        const inFile = [...rows].sort((a, b) => a.key - b.key);
        const first = inFile[0] as (typeof inFile)[number];
        return {
          id,
          sku: first.sku,
          title,
          ...priced(inFile.map((v) => v.price)),
          available: true,
          images: [image, ...inFile.map((v) => v.image)],
          featured_image: image,
          url,
        };
      });
      const text = wooFile(placed.sort((a, b) => a.key - b.key).map(({ row }) => row));
      const { catalog, site } = open();
      const summary = await catalog.importStream(site, cutAt(text, cuts), {
        format: "csv",
        profile: "woocommerce",
        shopUrl: SHOP,
      });
      expect(summary).toMatchObject({ total: n, created: n, profile: "woocommerce" });
      expect(await all(catalog, site)).toEqual(expected.sort((a, b) => (a.id < b.id ? -1 : 1)));
    },
  );
});

// A body that fails the test if anything reads it.
const unread: ByteSource = {
  [Symbol.asyncIterator]() {
    throw new Error("the body was read");
  },
};
const NATIVE = "id\tsku\ttitle\tavailable\tfeatured_image\turl";
const GOOGLE = "id\ttitle\tlink\timage_link\tavailability\tprice";

describe("how a file is read", () => {
  test("a TSV cell holding a quoted tab is a wrong cell count at its row, and nothing is written", async () => {
    const { catalog, site } = open();
    const native = `${NATIVE}\na\tb\tT\ttrue\t${CDN}a.jpg\t${SHOP}/a\nc\td\t"x\ty"\ttrue\t${CDN}c.jpg\t${SHOP}/c\n`;
    await expect(catalog.importStream(site, [Buffer.from(native)], { format: "tsv" })).rejects.toMatchObject({
      code: "INVALID_CSV",
      problems: [{ row: 3, message: "Expected 6 cells, found 7" }],
    });
    const feed = `${GOOGLE}\nA\tT\t${SHOP}/a\t${CDN}a.jpg\tin_stock\t1.00\nB\t"x\ty"\t${SHOP}/b\t${CDN}b.jpg\tin_stock\t1.00\n`;
    await expect(
      catalog.importStream(site, byteChunks(feed, [30, 61]), { format: "tsv", profile: "google", currency: "USD" }),
    ).rejects.toMatchObject({
      code: "INVALID_CSV",
      problems: [{ row: 3, message: expect.stringMatching(/^Expected 6 cells, found 7 \(a TSV has no quoting/) }],
    });
    expect(await all(catalog, site)).toEqual([]);
  });

  test("an unknown column is a located problem, unless unknownColumns is ignore", async () => {
    const { catalog, site } = open();
    const native = `id,sku,title,available,featured_image,url,colour\na,b,T,true,${CDN}a.jpg,${SHOP}/a,red\n`;
    await expect(catalog.importCsv(site, native)).rejects.toMatchObject({
      code: "INVALID_CSV",
      problems: [{ row: 1, column: "colour", message: 'Unknown column "colour"' }],
    });
    const shopify = `Handle,Title,Variant SKU,Variant Price,Image Src,Frobnicate\nmug,Mug,M,1,${CDN}m.jpg,x\n`;
    const options = { profile: "shopify", shopUrl: SHOP } as const;
    await expect(catalog.importCsv(site, shopify, options)).rejects.toMatchObject({
      code: "INVALID_CSV",
      problems: [{ row: 1, column: "Frobnicate" }],
    });
    expect(await all(catalog, site)).toEqual([]);
    expect(await catalog.importCsv(site, native, { unknownColumns: "ignore" })).toMatchObject({
      created: 1,
      profile: "native",
      ignoredColumns: ["colour"],
    });
    expect(await catalog.importCsv(site, shopify, { ...options, unknownColumns: "ignore" })).toMatchObject({
      created: 1,
      profile: "shopify",
      ignoredColumns: ["Frobnicate"],
    });
    expect((await all(catalog, site)).map((p) => p.id)).toEqual(["a", "mug"]);
  });

  test('a native CSV with delimiter ";": commas are text', async () => {
    const { catalog, site } = open();
    const csv = `id;sku;title;available;featured_image;url;price\na;b;Lamp, brass;true;${CDN}a.jpg;${SHOP}/a;3.5\n`;
    expect(await catalog.importCsv(site, csv, { delimiter: ";" })).toMatchObject({ created: 1 });
    expect(await catalog.getProduct(site, "a")).toEqual({
      id: "a",
      sku: "b",
      title: "Lamp, brass",
      available: true,
      featured_image: `${CDN}a.jpg`,
      url: `${SHOP}/a`,
      price: 3.5,
    });
    // Read with the default comma, the same file is one column of an unknown name.
    await expect(catalog.importCsv(site, csv)).rejects.toMatchObject({ code: "INVALID_CSV" });
  });

  test.each([
    ["shopify", `Handle,Title,Variant SKU,Variant Price,Image Src\nmug,Mug,M,1,${CDN}m.jpg\n`],
    ["woocommerce", `ID,Type,SKU,Name,Regular price,Images,Parent\n1,simple,A,A,1,${CDN}a.jpg,\n`],
    ["google", `id,title,link,image_link,availability,price\nA,T,${SHOP}/a,${CDN}a.jpg,in_stock,1.00 USD\n`],
  ])("a native CSV whose header is %s's is refused, naming the profile", async (name, csv) => {
    const { catalog, site } = open();
    const refusal = {
      code: "INVALID_CSV",
      problems: [expect.objectContaining({ row: 1, message: expect.stringContaining(`profile=${name}`) })],
    };
    await expect(catalog.importCsv(site, csv)).rejects.toMatchObject(refusal);
    await expect(catalog.importStream(site, [Buffer.from(csv)], { format: "csv" })).rejects.toMatchObject(refusal);
    expect(await all(catalog, site)).toEqual([]);
  });

  test.each([
    ["shopify", "shopUrl", { format: "csv" }],
    ["woocommerce", "shopUrl", { format: "csv" }],
    ["google", "currency", { format: "tsv" }],
    ["meta", "currency", { format: "csv" }],
  ] as const)("the %s profile without %s is refused before the body is read", async (profile, parameter, rest) => {
    const { catalog, site } = open();
    await expect(catalog.importStream(site, unread, { ...rest, profile })).rejects.toMatchObject({
      code: "VALIDATION_FAILED",
      problems: [{ parameter, message: expect.stringContaining(`needs ${parameter}`) }],
    });
  });
});

describe("a group written apart", () => {
  // The problem names the column that ties the rows in this file's own header, not another set's.
  test.each([
    [
      "Shopify's current header",
      { format: "csv", profile: "shopify", shopUrl: SHOP },
      `Title,URL handle,SKU,Price,Product image URL\nTee,tee,T-S,1,${CDN}t.jpg\nMug,mug,M,1,${CDN}m.jpg\n,tee,T-M,2,\n`,
      "URL handle",
    ],
    [
      "a feed with item groups",
      { format: "tsv", profile: "google", currency: "USD" },
      `${GOOGLE}\titem_group_id\nS\tS\t${SHOP}/s\t${CDN}s.jpg\tin_stock\t1.00\tG\nM\tM\t${SHOP}/m\t${CDN}m.jpg\tin_stock\t1.00\t\nL\tL\t${SHOP}/l\t${CDN}l.jpg\tin_stock\t1.00\tG\n`,
      "item_group_id",
    ],
  ] as const)(
    "in %s is located at the grouping column, its only problem, and nothing is written",
    async (_, options, text, column) => {
      const { catalog, site } = open();
      await expect(catalog.importStream(site, [Buffer.from(text)], options)).rejects.toMatchObject({
        code: "VALIDATION_FAILED",
        problems: [{ row: 4, column, message: expect.stringContaining("are apart") }],
      });
      expect(await all(catalog, site)).toEqual([]);
    },
  );
});
