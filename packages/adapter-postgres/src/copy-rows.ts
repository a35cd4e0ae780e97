// Staged products as the rows of COPY's text format: one line per product, tab between columns.
import { encodeProduct, type Product } from "@catalog-kit/catalog-core";

const ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };
const SPECIAL = /[\\\t\n\r]/;
const SPECIALS = /[\\\t\n\r]/g;

// Ids and skus hold no control characters, and JSON escapes them in the body, so only the
// backslash is common: most fields are copied as they are.
function field(text: string): string {
  return SPECIAL.test(text) ? text.replace(SPECIALS, (c) => ESCAPES[c] as string) : text;
}

/** The COPY text of a chunk: `seq, position, id, sku, body` per product, `seq` counting on from `firstSeq`. */
export function copyRows(products: readonly Product[], positions: readonly number[], firstSeq: number): string {
  let text = "";
  for (let i = 0; i < products.length; i++) {
    const product = products[i] as Product;
    text += `${firstSeq + i}\t${positions[i]}\t${field(product.id)}\t${field(product.sku)}\t${field(encodeProduct(product))}\n`;
  }
  return text;
}
