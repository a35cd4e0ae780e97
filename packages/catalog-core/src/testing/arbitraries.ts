// fast-check arbitraries of valid ids, skus, products and fresh sites, for the conformance suite
// and for adapters' own properties.
import fc from "fast-check";
import type { Product } from "../product.ts";
import type { Site } from "../site.ts";

// Ids and skus that have broken key layouts and URL handling elsewhere.
const ADVERSARIAL = [
  "{",
  "}",
  "{a}",
  "a:b",
  "::",
  "%",
  "%2F",
  "a/b",
  "?x=1",
  "😀",
  "é",
  "ÿ",
  "bulk",
  "x".repeat(256),
  "a b",
];

/** Valid ids and skus: adversarial ones, and random text trimmed and free of control characters. */
export const keyArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...ADVERSARIAL),
  fc
    .string({ unit: "grapheme", minLength: 1, maxLength: 40 })
    .map((s) => s.replace(/[\u0000-\u001f\u007f-\u009f]/g, "_").trim())
    .filter((s) => s.length > 0 && s.length <= 256),
);

/** A fresh site no other test uses, so tests never need to flush a shared store. */
export function uniqueSite(siteType = "test"): Site {
  return { siteType, siteId: `site-${crypto.randomUUID()}` };
}

const text = (maxLength: number) =>
  fc.string({ unit: "grapheme", minLength: 1, maxLength }).filter((s) => s.trim().length > 0);
const price = fc.integer({ min: 0, max: 10_000_000 }).map((cents) => cents / 100);

/** Valid products with the given ids and skus, each optional field present or not. */
export function productArb(
  ids: fc.Arbitrary<string> = keyArb,
  skus: fc.Arbitrary<string> = keyArb,
): fc.Arbitrary<Product> {
  return fc
    .record(
      {
        id: ids,
        sku: skus,
        title: text(60),
        description: fc.string({ maxLength: 120 }).filter((s) => s.isWellFormed()),
        price,
        price_min: price,
        price_max: price,
        available: fc.boolean(),
        images: fc.array(text(60), { maxLength: 4 }),
        featured_image: text(60),
        url: text(60),
      },
      { requiredKeys: ["id", "sku", "title", "available", "featured_image", "url"] },
    )
    .map((p) => {
      if (p.price_min !== undefined && p.price_max !== undefined && p.price_min > p.price_max) {
        return { ...p, price_min: p.price_max, price_max: p.price_min };
      }
      return p;
    }) as fc.Arbitrary<Product>;
}

/** A small valid product, with `extra` fields. */
export const sampleProduct = (id: string, sku: string, extra: Partial<Product> = {}): Product => ({
  id,
  sku,
  title: `Product ${id}`,
  available: true,
  featured_image: `https://img.example/${encodeURIComponent(id)}.png`,
  url: `https://shop.example/p/${encodeURIComponent(id)}`,
  ...extra,
});

/** A valid product with every optional field, its strings holding quotes and newlines. */
export const fullProduct = (id: string, sku: string): Product =>
  sampleProduct(id, sku, {
    description: 'Line one, "quoted"\nline two',
    price: 19.99,
    price_min: 10,
    price_max: 25.5,
    images: ["https://img.example/1.png", "https://img.example/2.png"],
  });
