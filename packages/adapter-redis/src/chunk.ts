// A batch as script arguments: the JSON array of its canonical products, in chunks that keep each
// script call short.
import { PRODUCT_FIELDS, type Product } from "@catalog-kit/catalog-core";

/**
 * Part of a batch, as the script arguments that carry it (see `products` in `prelude.ts`):
 * how many products, the UTF-8 of the JSON array of their `encodeProduct` strings, then index,
 * id and sku of each product whose id or sku Lua cannot read from its JSON as it is.
 */
export interface Chunk {
  readonly args: readonly (string | Buffer)[];
  readonly count: number;
}

// With a list of property names, JSON.stringify writes exactly those, in that order, leaving out
// undefined ones: what `encodeProduct` writes, without an object per product to build and drop.
const FIELDS = [...PRODUCT_FIELDS];

// One JSON.stringify call per few dozen products costs less than one per product (each call
// has a fixed cost) and less than one per chunk (the string of a whole chunk, up to 2 MB, twice
// that once one character needs two bytes, is too large to die young).
const GROUP = 32;

/** Fewer characters of JSON than this per chunk, give or take one product. */
export const MAX_CHUNK_CHARS = 2_000_000;

// Each piece of JSON is written out as soon as it is made, so that it dies young; the
// buffer is kept for the next chunk unless one huge product made it grow past this. One buffer
// for the module, shared by every store, is safe: JavaScript runs one chunk builder at a time,
// and `chunksOf` fills the scratch and copies it out with `take()` before it yields, so no two
// writers ever interleave on it.
const SCRATCH_MAX = 8_000_000;
let scratch = Buffer.allocUnsafe(0);

// Whether JSON.stringify writes `s` unchanged between quotes, so that Lua can take it from the
// product's JSON. Surrogates count as not plain: only lone ones are escaped, but pairs are rare
// in ids and skus, and for them the raw value is sent instead.
function plain(s: unknown): boolean {
  if (typeof s !== "string") return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return false;
  }
  return true;
}

/**
 * The UTF-8 of JSON arrays written one after another as a single array: each later one's "["
 * takes the place of the previous one's "]" and becomes ",".
 */
class ArrayWriter {
  private buffer = scratch;
  private end = 0;
  chars = 0;

  append(json: string): void {
    // UTF-8 takes at most three bytes per UTF-16 unit.
    const need = this.end + 3 * json.length;
    if (need > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, 2 * this.buffer.length, 65_536));
      this.buffer.copy(grown, 0, 0, this.end);
      this.buffer = grown;
      if (grown.length <= SCRATCH_MAX) scratch = grown;
    }
    const at = this.end === 0 ? 0 : this.end - 1;
    this.end = at + this.buffer.write(json, at);
    if (at > 0) this.buffer[at] = 0x2c;
    this.chars += json.length;
  }

  /** A Buffer of its own holding what was written. */
  take(): Buffer {
    return Buffer.from(this.buffer.subarray(0, this.end));
  }
}

function chunk(products: readonly Product[], from: number, to: number, json: Buffer): Chunk {
  const args: (string | Buffer)[] = [String(to - from), json];
  for (let i = from; i < to; i++) {
    const { id, sku } = products[i] as Product;
    if (!plain(id) || !plain(sku)) args.push(String(i - from + 1), id, sku);
  }
  return { args, count: to - from };
}

/** `products` in chunks of at most `size` products and about `MAX_CHUNK_CHARS` of JSON. */
export function* chunksOf(products: readonly Product[], size: number): Generator<Chunk> {
  let from = 0;
  while (from < products.length) {
    const limit = Math.min(products.length, from + size);
    const writer = new ArrayWriter();
    let to = from;
    while (to < limit && writer.chars < MAX_CHUNK_CHARS) {
      const end = Math.min(limit, to + GROUP);
      const json = JSON.stringify(products.slice(to, end), FIELDS);
      if (writer.chars + json.length <= MAX_CHUNK_CHARS || end - to === 1) {
        writer.append(json);
        to = end;
        continue;
      }
      // Large products: one at a time, so that the chunk ends within one product of the limit.
      for (; to < end && writer.chars < MAX_CHUNK_CHARS; to++) writer.append(JSON.stringify([products[to]], FIELDS));
    }
    yield chunk(products, from, to, writer.take());
    from = to;
  }
}
