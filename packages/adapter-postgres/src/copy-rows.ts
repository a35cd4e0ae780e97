// Products as the rows of COPY's text format, one line per product, tab between columns, written
// into a Buffer a few dozen rows at a time, and sent with `COPY ... FROM STDIN`.
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { encodeProduct, PRODUCT_FIELDS, type Product } from "@catalog-kit/catalog-core";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";

const ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };
const SPECIAL = /[\\\t\n\r]/;
const SPECIALS = /[\\\t\n\r]/g;

// Ids and skus hold no control characters, so most are copied as they are.
function field(text: string): string {
  return SPECIAL.test(text) ? text.replace(SPECIALS, (c) => ESCAPES[c] as string) : text;
}

// With a list of property names, JSON.stringify writes exactly those, in that order, leaving out
// undefined ones: what `encodeProduct` writes.
const FIELDS = [...PRODUCT_FIELDS];
// Rows are made a few dozen at a time: one JSON.stringify call for all of them costs less than
// one a product, and one write into the buffer less than one a row; a string of a whole chunk (a
// few MB) would be too large to die young.
const GROUP = 32;
// Every product's JSON starts with its id (the first field), and this can only be the boundary
// between two of them: inside a JSON string every quote is escaped, and a quote that ends a
// string is never followed by a letter.
const BOUNDARY = '},{"id":"';

/**
 * The canonical JSON of `products[from..to)`, escaped for COPY: JSON escapes every control
 * character, so of COPY's specials only the backslash is left, and most bodies hold one.
 */
function bodiesOf(products: readonly Product[], from: number, to: number): string[] {
  const json = JSON.stringify(products.slice(from, to), FIELDS).replaceAll("\\", "\\\\");
  const bodies: string[] = [];
  let start = 1;
  for (let next = json.indexOf(BOUNDARY, start); next !== -1; next = json.indexOf(BOUNDARY, start)) {
    bodies.push(json.slice(start, next + 1));
    start = next + 2;
  }
  bodies.push(json.slice(start, json.length - 1));
  if (bodies.length === to - from) return bodies;
  // A field of objects whose first key is "id" would split more often: one product at a time then.
  return products.slice(from, to).map((product) => encodeProduct(product).replaceAll("\\", "\\\\"));
}

// Reused from chunk to chunk (JavaScript runs one builder at a time, and each copies its rows
// out before it returns), unless one huge chunk made it grow past this.
const SCRATCH_MAX = 8_000_000;
let scratch = Buffer.allocUnsafe(0);

// The COPY text of `products`, as UTF-8: per product, the columns `head` gives, then id, sku,
// body, and its base when `bases` is given.
function rowsOf(products: readonly Product[], head: (i: number) => string, bases?: readonly string[]): Buffer {
  let buffer = scratch;
  let end = 0;
  for (let from = 0; from < products.length; from += GROUP) {
    const to = Math.min(from + GROUP, products.length);
    const bodies = bodiesOf(products, from, to);
    let text = "";
    for (let i = from; i < to; i++) {
      const { id, sku } = products[i] as Product;
      const base = bases ? `\t${bases[i]}` : "";
      text += `${head(i)}\t${field(id)}\t${field(sku)}\t${bodies[i - from]}${base}\n`;
    }
    // UTF-8 takes at most three bytes per UTF-16 unit.
    const need = end + 3 * text.length;
    if (need > buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, 2 * buffer.length, 65_536));
      buffer.copy(grown, 0, 0, end);
      buffer = grown;
      if (grown.length <= SCRATCH_MAX) scratch = grown;
    }
    end += buffer.write(text, end);
  }
  return Buffer.from(buffer.subarray(0, end));
}

/**
 * The staging's COPY text of a chunk: `seq, position, id, sku, body` per product, `seq` counting
 * on from `firstSeq`, then `base` when `bases` is given (texts COPY takes as they are: digests).
 */
export function copyRows(
  products: readonly Product[],
  positions: readonly number[],
  firstSeq: number,
  bases?: readonly string[],
): Buffer {
  return rowsOf(products, (i) => `${firstSeq + i}\t${positions[i]}`, bases);
}

/** The products table's COPY text of a chunk: `site, id, sku, body` per product. */
export function productRows(products: readonly Product[], siteNo: number): Buffer {
  return rowsOf(products, () => String(siteNo));
}

/** The COPY text of where a chunk's products came: `seq, position, id` per product, as `copyRows` numbers them. */
export function orderRows(products: readonly Product[], positions: readonly number[], firstSeq: number): string {
  let text = "";
  for (let i = 0; i < products.length; i++) {
    text += `${firstSeq + i}\t${positions[i]}\t${field((products[i] as Product).id)}\n`;
  }
  return text;
}

/** Sends `rows` with the statement `copy` (`COPY ... FROM STDIN`) on `client`. */
export async function copyIn(client: pg.ClientBase, copy: string, rows: Buffer | string): Promise<void> {
  await pipeline(Readable.from([rows]), client.query(copyFrom(copy)));
}
