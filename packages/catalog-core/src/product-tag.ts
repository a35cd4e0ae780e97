// The entity tag of a stored product, which answers carry as `ETag` and preconditions compare.
import { hash } from "node:crypto";
import { encodeProduct, type Product } from "./product.ts";

/**
 * The strong entity tag of a stored product (quoted, as an `ETag` header carries it): a digest of
 * its canonical JSON, so the same in every view, changed by any change of any field, and
 * unchanged by a write that changes nothing.
 */
export function productTag(product: Product): string {
  // One call (no Hash object): a tag is made on every answer of a product.
  return `"${hash("sha256", encodeProduct(product), "base64url").slice(0, 27)}"`;
}

/** Whether `product` satisfies an `ifMatch` precondition: one of its tags, or `"*"` for any product. */
export function tagMatches(ifMatch: readonly string[] | "*", product: Product | undefined): boolean {
  if (product === undefined) return false;
  return ifMatch === "*" || ifMatch.includes(productTag(product));
}
