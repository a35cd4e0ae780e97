// The product schema: each rule and its message, the canonical encoding and the retrieval shape.
import {
  copyProduct,
  decodeProduct,
  encodeProduct,
  jsonString,
  PRODUCT_FIELDS,
  PRODUCT_LIMITS,
  type Product,
  ProductSchema,
  productTag,
  productViewJson,
  sameProduct,
  toProductView,
} from "@catalog-kit/catalog-core";
import { productArb } from "@catalog-kit/catalog-core/testing";
import { fc, test } from "@fast-check/vitest";
import * as v from "valibot";
import { describe, expect } from "vitest";

const valid: Product = {
  id: "p-1",
  sku: "SKU-1",
  title: "Blue mug",
  description: "A mug, blue",
  price: 12.5,
  price_min: 10,
  price_max: 15,
  available: true,
  images: ["https://img.example/1.png"],
  featured_image: "https://img.example/1.png",
  url: "https://shop.example/p-1",
};

function pointersOf(input: unknown): string[] {
  const result = v.safeParse(ProductSchema, input);
  return result.success
    ? []
    : result.issues.map((issue) => `/${issue.path?.map((p) => String(p.key)).join("/") ?? ""}`);
}

describe("ProductSchema", () => {
  test.prop([productArb()])("accepts every valid product and returns it unchanged", (product) => {
    expect(v.parse(ProductSchema, product)).toEqual(product);
    expect(decodeProduct(encodeProduct(product))).toEqual(product);
  });

  // encodeProduct is written field by field for speed; stored encodings must stay what they were.
  test.prop([productArb(), fc.double({ min: 0, max: Number.MAX_VALUE, noNaN: true })], { numRuns: 500 })(
    "encoding is JSON.stringify's of the fields in schema order, character for character",
    (product, price) => {
      for (const p of [product, { ...product, price, price_max: price, price_min: 0 }]) {
        expect(encodeProduct(p)).toBe(JSON.stringify(p, PRODUCT_FIELDS as string[]));
      }
    },
  );

  // Pairs that differ in one field, by one character or by where a text ends, as well as unrelated ones.
  const neighbours = productArb().chain((p) =>
    fc.tuple(
      fc.constant(p),
      fc.oneof(
        productArb(),
        fc
          .constantFrom<Partial<Product>>(
            { title: `${p.title}x` },
            { description: p.description === undefined ? "" : undefined },
            { price: (p.price ?? 0) + 1 },
            { images: [...(p.images ?? []), p.url] },
            { featured_image: p.url, url: p.featured_image },
            { id: `${p.id}${p.sku}`, sku: p.id === p.sku ? `${p.sku}s` : p.sku.slice(0, 0) || "s" },
          )
          .map((change) => ({ ...p, ...change }) as Product),
      ),
    ),
  );
  test.prop([neighbours], { numRuns: 500 })("entity tags are equal exactly when the products are", ([a, b]) => {
    expect(productTag(a) === productTag(b)).toBe(encodeProduct(a) === encodeProduct(b));
    expect(productTag(a)).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  });

  test.prop([productArb()])("encoding is canonical: key order and absent optionals do not matter", (product) => {
    const reversed = Object.fromEntries(Object.entries(product).reverse()) as Product;
    expect(encodeProduct(reversed)).toBe(encodeProduct(product));
  });

  // Each single invalid mutation of a valid product, and the pointer it must be reported at.
  const mutations: [string, (p: Record<string, unknown>) => void, string][] = [
    ["missing id", (p) => delete p.id, "/id"],
    ["number id", (p) => (p.id = 7), "/id"],
    ["blank sku", (p) => (p.sku = "  "), "/sku"],
    ["empty title", (p) => (p.title = ""), "/title"],
    ["id with leading space", (p) => (p.id = " x"), "/id"],
    ["sku with trailing tab", (p) => (p.sku = "x\t"), "/sku"],
    ["id with NUL", (p) => (p.id = "a\u0000b"), "/id"],
    ["sku with DEL", (p) => (p.sku = "a\u007fb"), "/sku"],
    ["id with a lone surrogate", (p) => (p.id = "a\ud800"), "/id"],
    ["title with a lone surrogate", (p) => (p.title = "\udc00"), "/title"],
    ["id too long", (p) => (p.id = "x".repeat(PRODUCT_LIMITS.keyLength + 1)), "/id"],
    ["title too long", (p) => (p.title = "t".repeat(PRODUCT_LIMITS.titleLength + 1)), "/title"],
    ["description too long", (p) => (p.description = "d".repeat(PRODUCT_LIMITS.descriptionLength + 1)), "/description"],
    ["url too long", (p) => (p.url = "u".repeat(PRODUCT_LIMITS.urlLength + 1)), "/url"],
    ["string price", (p) => (p.price = "12"), "/price"],
    ["negative price", (p) => (p.price = -1), "/price"],
    ["infinite price_max", (p) => (p.price_max = Number.POSITIVE_INFINITY), "/price_max"],
    ["NaN price_min", (p) => (p.price_min = Number.NaN), "/price_min"],
    ["price_min above price_max", (p) => (p.price_min = 20), "/price_min"],
    ["string available", (p) => (p.available = "true"), "/available"],
    ["null available", (p) => (p.available = null), "/available"],
    ["images not an array", (p) => (p.images = "https://img.example/1.png"), "/images"],
    ["empty image", (p) => (p.images = ["ok", ""]), "/images/1"],
    ["number image", (p) => (p.images = ["ok", "ok", 3]), "/images/2"],
    ["too many images", (p) => (p.images = Array.from({ length: PRODUCT_LIMITS.images + 1 }, () => "i")), "/images"],
    // Refused whole: a long list costs one problem, not one a bad entry.
    ["too many images, none a string", (p) => (p.images = Array(PRODUCT_LIMITS.images + 1).fill(0)), "/images"],
    ["missing featured_image", (p) => delete p.featured_image, "/featured_image"],
    ["unknown field", (p) => (p.colour = "blue"), "/colour"],
    [
      "__proto__ as a field",
      (p) => Object.defineProperty(p, "__proto__", { value: 1, enumerable: true }),
      "/__proto__",
    ],
    ["null description", (p) => (p.description = null), "/description"],
  ];

  test.each(mutations)("rejects %s at its pointer", (_, mutate, pointer) => {
    const product: Record<string, unknown> = structuredClone(valid);
    mutate(product);
    expect(pointersOf(product)).toEqual([pointer]);
  });

  test.prop([productArb(), fc.constantFrom(...mutations)])(
    "a single mutation of any valid product is rejected at its pointer",
    (product, [, mutate, pointer]) => {
      const copy: Record<string, unknown> = structuredClone(product);
      if (pointer === "/price_min") copy.price_max = 15;
      mutate(copy);
      expect(pointersOf(copy)).toContain(pointer);
    },
  );

  test("non-objects are rejected at the root", () => {
    for (const input of [null, 1, "x", true]) expect(pointersOf(input)).toEqual(["/"]);
  });

  test("toProductView keeps exactly id, sku, title, featured_image and url", () => {
    expect(toProductView(valid)).toEqual({
      id: "p-1",
      sku: "SKU-1",
      title: "Blue mug",
      featured_image: "https://img.example/1.png",
      url: "https://shop.example/p-1",
    });
  });

  // Every kind of character JSON.stringify treats apart: quotes, backslashes, control characters,
  // surrogates alone and in pairs, and text beyond Latin-1 that makes a string two-byte.
  const tricky = fc.string({
    unit: fc.constantFrom('"', "\\", "\u0000", "\u001f", "\u007f", "\ud800", "\udc00", "é", "😀", "a", "/"),
  });
  const anyText = fc.oneof(fc.string(), fc.string({ unit: "binary" }), tricky);
  test.prop([fc.record({ id: anyText, sku: anyText, title: anyText, featured_image: anyText, url: anyText })], {
    numRuns: 1_000,
  })("productViewJson is JSON.stringify of the view, character for character", (fields) => {
    const product = { ...valid, ...fields };
    expect(productViewJson(product)).toBe(JSON.stringify(toProductView(product)));
  });
  test.prop([anyText], { numRuns: 1_000 })("jsonString is JSON.stringify of a string", (text) => {
    expect(jsonString(text)).toBe(JSON.stringify(text));
  });
});

describe("sameProduct and copyProduct, field by field", () => {
  const one = productArb(fc.constant("p"));
  test.prop([one, one, fc.subarray([...PRODUCT_FIELDS])], { numRuns: 500 })(
    "sameProduct is true exactly when encodeProduct is equal; copyProduct gives the canonical product",
    (first, other, fields) => {
      // The second product takes some fields of another (an absent one given as undefined), keys reversed.
      const changed: Record<string, unknown> = { ...first };
      for (const field of fields) changed[field] = other[field];
      const second = Object.fromEntries(Object.entries(changed).reverse()) as Product;
      expect(sameProduct(first, second)).toBe(encodeProduct(first) === encodeProduct(second));
      const copy = copyProduct(second);
      const canonical = decodeProduct(encodeProduct(second));
      expect(copy).toStrictEqual(canonical);
      expect(Object.keys(copy)).toEqual(Object.keys(canonical));
      if (copy.images !== undefined) expect(copy.images).not.toBe(second.images);
    },
  );
});
