// The feed export: one item a product in Google's or Meta's TSV, and a written feed imported back
// through either profile gives the same products.
import type { Product } from "@catalog-kit/catalog-core";
import { productArb } from "@catalog-kit/catalog-core/testing";
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { FEED_HEADER, feedAmount, feedLine } from "../src/feed-write.ts";
import { checkProducts } from "../src/parse.ts";
import { google } from "../src/profiles/google.ts";
import { meta } from "../src/profiles/meta.ts";
import { runProfile, tsvRows } from "./support/feed-rows.ts";

const shirt: Product = {
  id: "TS-1",
  sku: "TS-1-S",
  title: "Tee\tshirt",
  description: "Soft\r\ncotton",
  price: 15,
  available: true,
  images: ["https://img.example/a.jpg", "https://img.example/b,c.jpg", "https://img.example/d.jpg"],
  featured_image: "https://img.example/a.jpg",
  url: "https://shop.example/tee",
};

describe("feed export", () => {
  test("the header names Google's attributes, tab-separated", () => {
    expect(FEED_HEADER).toBe(
      "id\titem_group_id\ttitle\tdescription\tlink\timage_link\tadditional_image_link\tavailability\tprice",
    );
  });

  test("an item: sku as id, id as group, tabs and line ends as spaces, a comma in a URL as %2C", () => {
    expect(feedLine(shirt, "google", "eur").split("\t")).toEqual([
      "TS-1-S",
      "TS-1",
      "Tee shirt",
      "Soft  cotton",
      "https://shop.example/tee",
      "https://img.example/a.jpg",
      "https://img.example/b%2Cc.jpg,https://img.example/d.jpg",
      "in_stock",
      "15.00 EUR",
    ]);
  });

  test("availability as each platform spells it", () => {
    const out = { ...shirt, available: false };
    expect(feedLine(shirt, "google", "EUR").split("\t")[7]).toBe("in_stock");
    expect(feedLine(out, "google", "EUR").split("\t")[7]).toBe("out_of_stock");
    expect(feedLine(shirt, "meta", "EUR").split("\t")[7]).toBe("in stock");
    expect(feedLine(out, "meta", "EUR").split("\t")[7]).toBe("out of stock");
  });

  test("prices: two decimals at least, every further digit kept, none without a price", () => {
    expect([15, 15.5, 15.125, 0, 1e-7, 1e21].map(feedAmount)).toEqual([
      "15.00",
      "15.50",
      "15.125",
      "0.00",
      "0.0000001",
      "1000000000000000000000.00",
    ]);
    const { price: _, ...unpriced } = shirt;
    expect(feedLine(unpriced, "google", "EUR").split("\t")[8]).toBe("");
  });

  test("price_min and price_max have no feed attribute: the item is the same without them", () => {
    expect(feedLine({ ...shirt, price_min: 10, price_max: 20 }, "meta", "EUR")).toBe(feedLine(shirt, "meta", "EUR"));
  });

  test("a product with no description or no other image leaves those cells empty", () => {
    const { description: _, ...plain } = { ...shirt, images: ["https://img.example/a.jpg"] };
    const cells = feedLine(plain, "google", "EUR").split("\t");
    expect([cells[3], cells[6]]).toEqual(["", ""]);
  });
});

// Text a TSV item can hold: no tab, CR or LF (written as spaces, so not read back the same).
const noBreaks = (s: string) => s.replace(/[\t\r\n]/g, "x");
// Image URLs as feeds write them: no comma (it separates them), no white space at their ends.
const imageArb = fc
  .string({ minLength: 1, maxLength: 30 })
  .map((s) => noBreaks(s).replaceAll(",", "").trim())
  .filter((s) => s.length > 0)
  .map((s) => `https://img.example/${s}`);
const priceArb = fc.oneof(
  fc.integer({ min: 0, max: 10_000_000 }).map((cents) => cents / 100),
  fc.double({ min: 0, max: 1e12, noNaN: true }),
);

/** Products a feed item expresses: no price_min/price_max, the featured image first of its images. */
const feedProductArb = fc
  .tuple(
    productArb(),
    fc.uniqueArray(imageArb, { minLength: 1, maxLength: 4 }),
    fc.option(priceArb, { nil: undefined }),
  )
  .map(([p, images, price]) => {
    const product: Record<string, unknown> = {
      id: p.id,
      sku: p.sku,
      title: noBreaks(p.title),
      available: p.available,
      images,
      featured_image: images[0],
      url: noBreaks(p.url),
    };
    if (p.description !== undefined && p.description !== "") product.description = noBreaks(p.description);
    if (price !== undefined) product.price = price;
    return product as Product;
  });

describe("a written feed imports back", () => {
  for (const platform of ["google", "meta"] as const) {
    const profile = platform === "google" ? google : meta;
    test.prop([fc.uniqueArray(feedProductArb, { selector: (p) => p.id, maxLength: 8 })])(
      `through the ${platform} profile, every field and image order the same`,
      async (products) => {
        const text = [FEED_HEADER, ...products.map((p) => feedLine(p, platform, "EUR"))].join("\n");
        const { rows } = tsvRows(profile, text);
        const { records, problems } = await runProfile(profile, "tsv", { currency: "EUR" }, [rows]);
        expect(problems.list).toEqual([]);
        const back = checkProducts(records, () => ({}), problems);
        expect(problems.list).toEqual([]);
        expect(back).toEqual(products);
      },
    );
  }
});
