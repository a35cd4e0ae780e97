// The product's and the import record's JSON Schemas, generated from its valibot schemas, for the OpenAPI document.
import { toJsonSchema } from "@valibot/to-json-schema";
import { ImportRecordSchema } from "./import-record.ts";
import { ProductSchema } from "./product.ts";
import { ProductViewSchema } from "./product-view.ts";

// White space as String.prototype.trim sees it, spelled out: regex dialects read `\s` apart.
const SPACE = "\\u0020\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff";
const CONTROL = "\\u0000-\\u001f\\u007f-\\u009f";

/**
 * An id or sku as a JSON Schema pattern: no control characters, and neither white space nor a
 * control at either end (so not blank). The key's valibot checks cannot be converted; a test
 * holds the two to the same answers.
 */
export const KEY_PATTERN = `^[^${CONTROL}${SPACE}](?:[^${CONTROL}]*[^${CONTROL}${SPACE}])?$`;

function withKeyPatterns(schema: object): object {
  const { properties } = schema as { properties: Record<string, object> };
  for (const key of ["id", "sku"]) properties[key] = { ...properties[key], pattern: KEY_PATTERN };
  return schema;
}

/**
 * JSON Schemas (draft 2020-12) of the product and its retrieval shape, generated from the same
 * valibot schemas the catalog validates with, ids and skus given `KEY_PATTERN`. Rules JSON
 * Schema cannot say (well-formed Unicode, `price_min <= price_max`) are enforced, not published.
 */
export function productJsonSchemas(): { Product: object; ProductView: object } {
  const options = { errorMode: "ignore", target: "draft-2020-12" } as const;
  return {
    Product: withKeyPatterns(toJsonSchema(ProductSchema, options)),
    ProductView: withKeyPatterns(toJsonSchema(ProductViewSchema, options)),
  };
}

/** The JSON Schema (draft 2020-12) of an import's record, generated from `ImportRecordSchema`. */
export function importRecordJsonSchema(): object {
  return toJsonSchema(ImportRecordSchema, { errorMode: "ignore", target: "draft-2020-12" });
}
