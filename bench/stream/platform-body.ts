// A platform's product file made of the bench's products, produced while it is sent (never whole
// in the client's memory): a Shopify CSV or a Google RSS feed, several rows (items) a product. The
// files themselves are shopify-file.ts and google-rss-file.ts; this is what they share.
import { setImmediate } from "node:timers/promises";
import type { Product } from "@catalog-kit/catalog-core";
import { type Produced, SEED } from "../body.ts";
import { generateProducts } from "../data.ts";

/** Products generated at a time. */
const BATCH = 1_000;
/** Bytes handed to the socket at a time, as body.ts does. */
const WRITE_BYTES = 256 * 1024;

/** A platform's file: what comes before and after its records, and each product's records. */
export interface PlatformFile {
  /** How the rows name the file: "Shopify CSV". */
  readonly label: string;
  /** The body's media type, which tells `POST .../bulk` how to read it. */
  readonly contentType: string;
  /** The profile and its parameters, as query parameters of the import. */
  readonly query: Readonly<Record<string, string>>;
  readonly head: string;
  readonly tail: string;
  /** One product's rows (CSV) or items (XML), each a string with its line ends. */
  records(product: Product, index: number): readonly string[];
}

/** What a platform body has produced so far: `products` counts the catalog's products, `rows` the file's records. */
export interface PlatformProduced extends Produced {
  rows: number;
}

/** A fresh count for a body. */
export const nothingProduced = (): PlatformProduced => ({ products: 0, bytes: 0, lastLine: 0, rows: 0 });

/**
 * `file` of the bench's products from index 0, every product's records whole while they and the
 * tail fit in `maxBytes` (or `maxProducts` are written). Yields Buffers of about `WRITE_BYTES`.
 */
export async function* platformBody(
  file: PlatformFile,
  produced: PlatformProduced,
  shape: { readonly maxBytes?: number; readonly maxProducts?: number },
): AsyncGenerator<Buffer> {
  const room = (shape.maxBytes ?? Number.POSITIVE_INFINITY) - Buffer.byteLength(file.tail);
  const most = shape.maxProducts ?? Number.POSITIVE_INFINITY;
  let parts: string[] = [file.head];
  let pending = Buffer.byteLength(file.head);
  produced.bytes += pending;
  for (let first = 0; produced.products < most; first += BATCH) {
    const products = generateProducts(BATCH, SEED, first);
    for (let i = 0; i < products.length && produced.products < most; i++) {
      const records = file.records(products[i] as Product, first + i);
      const text = records.join("");
      const size = Buffer.byteLength(text);
      if (produced.bytes + size > room) {
        parts.push(file.tail);
        produced.bytes += Buffer.byteLength(file.tail);
        yield Buffer.from(parts.join(""));
        return;
      }
      parts.push(text);
      pending += size;
      produced.bytes += size;
      produced.products++;
      produced.rows += records.length;
      if (pending >= WRITE_BYTES) {
        yield Buffer.from(parts.join(""));
        parts = [];
        pending = 0;
        // A stream whose writes all complete at once never returns to the event loop otherwise.
        await setImmediate();
      }
    }
  }
  parts.push(file.tail);
  produced.bytes += Buffer.byteLength(file.tail);
  yield Buffer.from(parts.join(""));
}
