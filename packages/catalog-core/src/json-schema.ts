// The product's JSON Schemas, generated from its valibot schemas, for the OpenAPI document.
import { toJsonSchema } from "@valibot/to-json-schema";
import { ProductSchema } from "./product.ts";
import { ProductViewSchema } from "./product-view.ts";

/**
 * JSON Schemas (draft 2020-12) of the product and its retrieval shape, generated from the same
 * valibot schemas the catalog validates with. Rules JSON Schema cannot say (non-blank strings,
 * no control characters, `price_min <= price_max`) are enforced, not published.
 */
export function productJsonSchemas(): { Product: object; ProductView: object } {
  const options = { errorMode: "ignore", target: "draft-2020-12" } as const;
  return {
    Product: toJsonSchema(ProductSchema, options),
    ProductView: toJsonSchema(ProductViewSchema, options),
  };
}
