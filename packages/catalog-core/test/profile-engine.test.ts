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
