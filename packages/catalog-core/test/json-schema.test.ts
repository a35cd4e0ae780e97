// The product's published JSON Schema says what the validation schema checks of ids and skus:
// its pattern and length take exactly the keys the catalog takes.
import fc from "fast-check";
import * as v from "valibot";
import { expect, it } from "vitest";
import { KEY_PATTERN } from "../src/json-schema.ts";
import { PRODUCT_LIMITS, ProductEntries } from "../src/product.ts";

const units = ["a", "Z", "0", "é", "漢", "😀", " ", "\t", "\n", "\r", "\u0000", "\u001f", "\u007f", "\u0085", "\u009f"];
const spaces = ["\u00a0", "\u1680", "\u2000", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff"];

it("KEY_PATTERN and the key's length take exactly what the sku's validation takes", () => {
  const pattern = new RegExp(KEY_PATTERN, "u");
  const key = fc.oneof(
    fc.array(fc.constantFrom(...units, ...spaces), { maxLength: 6 }).map((chars) => chars.join("")),
    fc.string({ unit: "grapheme", maxLength: 8 }),
    fc.string({ unit: "grapheme-ascii", minLength: 250, maxLength: 260 }),
  );
  fc.assert(
    fc.property(key, (value) => {
      const taken = v.safeParse(ProductEntries.sku, value).success;
      expect({ value, taken }).toEqual({
        value,
        taken: pattern.test(value) && value.length <= PRODUCT_LIMITS.keyLength,
      });
    }),
    { numRuns: 2_000 },
  );
});
