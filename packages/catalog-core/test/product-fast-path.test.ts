// The fast path of validation restates the product schema's rules; this keeps the two from
// drifting, over every field of PRODUCT_FIELDS (a field added to the schema is tested here too).
import { fc, test } from "@fast-check/vitest";
import * as v from "valibot";
import { describe, expect } from "vitest";
import { checkProductFast, PRODUCT_FIELDS, PRODUCT_LIMITS, ProductSchema } from "../src/product.ts";
import { productArb } from "../src/testing/arbitraries.ts";
import { realisticProducts } from "./support/realistic-products.ts";

// Values that sit on the edges of the schema's rules.
const EDGES: readonly unknown[] = [
  undefined,
  null,
  "",
  " ",
  " a",
  "a ",
  "\u00a0a",
  "a\u2028",
  "\ufeffa",
  "a\u0000b",
  "a\u0085b",
  "a\u009fb",
  "\ud800",
  "a\udc00b",
  "x".repeat(257),
  "x".repeat(1_001),
  "x".repeat(2_049),
  "x".repeat(PRODUCT_LIMITS.descriptionLength + 1),
  "ok",
  "😀",
  0,
  -0,
  -1,
  0.5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  false,
  [],
  ["a"],
  [""],
  ["a", 1],
  new Array(101).fill("u"),
  {},
  "true",
];
const tricky = fc.oneof(
  fc.constantFrom<unknown>(...EDGES),
  fc.string(),
  fc.double(),
  fc.array(fc.string(), { maxLength: 3 }),
);

const mutated = fc
  .tuple(
    productArb(),
    fc.array(fc.tuple(fc.constantFrom<string>(...PRODUCT_FIELDS, "extra", "toString"), tricky), {
      maxLength: 3,
    }),
    fc.array(fc.constantFrom<string>(...PRODUCT_FIELDS), { maxLength: 2 }),
    // How far to push price_min past price_max, when at all.
    fc.option(fc.constantFrom(0, 0.01, 0.5, 1, 1e6)),
  )
  .map(([product, changes, removals, above]) => {
    const record: Record<string, unknown> = { ...product };
    if (above !== null && typeof product.price_max === "number") record.price_min = product.price_max + above;
    for (const [field, value] of changes) record[field] = value;
    for (const field of removals) delete record[field];
    return record;
  });

describe("checkProductFast", () => {
  test.prop([mutated], { numRuns: 2_000 })(
    "accepts only what the schema accepts, with the schema's output",
    (input) => {
      const fast = checkProductFast(input);
      const result = v.safeParse(ProductSchema, input);
      if (fast !== undefined) {
        expect(result.success).toBe(true);
        expect(fast).toStrictEqual(result.output);
      }
    },
  );

  test("agrees with the schema on every edge value in every field", () => {
    const [base] = realisticProducts(1);
    for (const field of PRODUCT_FIELDS) {
      for (const value of EDGES) {
        const input: Record<string, unknown> = { ...base, [field]: value };
        const fast = checkProductFast(input);
        const result = v.safeParse(ProductSchema, input);
        if (fast === undefined) continue;
        expect({ field, value, success: result.success }).toEqual({ field, value, success: true });
        expect(fast).toStrictEqual(result.output);
      }
    }
  });

  test("a featured image is checked even when it equals an image, or when there are no images", () => {
    const [base] = realisticProducts(1);
    for (const images of [[], ["x"], [" "]]) {
      for (const featured of [undefined, "", " ", images[0]]) {
        const input = { ...base, images, featured_image: featured };
        const result = v.safeParse(ProductSchema, input);
        const fast = checkProductFast(input);
        if (fast !== undefined) expect(fast).toStrictEqual(result.success ? result.output : "rejected by the schema");
      }
    }
  });

  test.prop([productArb()], { numRuns: 500 })("takes the shortcut for every valid plain product", (product) => {
    const input = JSON.parse(JSON.stringify(product)) as unknown;
    expect(checkProductFast(input)).toStrictEqual(v.parse(ProductSchema, input));
  });

  test.prop([fc.constantFrom<unknown>([], "x", 1, null, Object.create(null), new Map())])(
    "leaves what is not a plain object to the schema",
    (input) => {
      expect(checkProductFast(input)).toBeUndefined();
    },
  );

  test("takes the shortcut for realistic products", () => {
    for (const product of realisticProducts(200)) expect(checkProductFast(product)).toStrictEqual(product);
  });
});
