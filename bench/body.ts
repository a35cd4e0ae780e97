// Import bodies of the bench's products, produced while they are sent (never whole in the
// client's memory), and the POST that sends one: what the streamed-import and sync scenarios send.
import { request } from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { setImmediate } from "node:timers/promises";
import { createGzip } from "node:zlib";
import type { Product } from "@catalog-kit/catalog-core";
import { CSV_HEADER, generateProducts, toCsvRecord } from "./data.ts";
import type { Standalone } from "./standalone.ts";

/** The seed of every generated body: the same products for the same index, in every scenario. */
export const SEED = 42;
/** Products generated at a time. */
const BATCH = 1_000;
/** Bytes handed to the socket at a time. */
const WRITE_BYTES = 256 * 1024;

/** The formats of a raw import body. */
export type Format = "ndjson" | "csv";

const ENCODE: Readonly<Record<Format, (product: Product) => string>> = {
  ndjson: (product) => `${JSON.stringify(product)}\n`,
  csv: toCsvRecord,
};

/** What a body generator has produced so far. */
export interface Produced {
  products: number;
  bytes: number;
  /** The line (NDJSON) or row (CSV, header = 1) of the last record. */
  lastLine: number;
}

/** How much a body holds: products from index 0 while both bounds allow. */
export interface BodyShape {
  readonly maxBytes?: number;
  readonly maxProducts?: number;
  /** One more product priced -1 as the very last line (room is kept for it within `maxBytes`). */
  readonly badLast?: boolean;
}

/**
 * A body of the bench's products in `format`, produced while it is read: the header (CSV), then
 * one record per product while the next one fits the shape. Yields Buffers of about
 * `WRITE_BYTES`; counts into `produced`.
 */
export async function* bodyOf(format: Format, produced: Produced, shape: BodyShape): AsyncGenerator<Buffer> {
  const encode = ENCODE[format];
  const room = (shape.maxBytes ?? Number.POSITIVE_INFINITY) - (shape.badLast ? 16 * 1024 : 0);
  const most = shape.maxProducts ?? Number.POSITIVE_INFINITY;
  let parts: string[] = [];
  let pending = 0;
  const add = (text: string, size = Buffer.byteLength(text)) => {
    parts.push(text);
    pending += size;
    produced.bytes += size;
    produced.lastLine++;
  };
  if (format === "csv") add(CSV_HEADER);
  for (let first = 0; produced.products < most; first += BATCH) {
    for (const product of generateProducts(BATCH, SEED, first)) {
      const text = encode(product);
      const size = Buffer.byteLength(text);
      if (produced.products >= most || produced.bytes + size > room) {
        if (shape.badLast) add(encode({ ...product, price: -1 }));
        if (parts.length > 0) yield Buffer.from(parts.join(""));
        return;
      }
      add(text, size);
      produced.products++;
      if (pending >= WRITE_BYTES) {
        yield Buffer.from(parts.join(""));
        parts = [];
        pending = 0;
        // While the server keeps up, every write completes at once and the stream would pull the
        // next chunk without ever returning to the event loop: timers, probes and answers wait.
        await setImmediate();
      }
    }
  }
  if (parts.length > 0) yield Buffer.from(parts.join(""));
}

/** The answer to a POST, and when it came. */
export interface Answer {
  readonly status: number;
  readonly body: string;
  readonly seconds: number;
  /** Seconds between the last byte handed to the socket and the answer: the commit, mostly. */
  readonly afterLastByte: number;
  /** Bytes on the wire (compressed, with gzip), chunk framing aside. */
  readonly wireBytes: number;
}

/**
 * POSTs a body with the access token (and `extra.headers`): a Buffer with its Content-Length, or
 * chunks produced while they are sent (chunked transfer encoding), gzipped on the way when asked.
 */
export function post(
  server: Standalone,
  token: string,
  path: string,
  contentType: string,
  body: Buffer | AsyncIterable<Buffer>,
  extra: { readonly gzip?: boolean; readonly headers?: Readonly<Record<string, string>> } = {},
): Promise<Answer> {
  const gzip = extra.gzip === true;
  const started = performance.now();
  let lastByte = Number.NaN;
  let wireBytes = 0;
  let answered = false;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = {
      ...extra.headers,
      "x-service-access-token": token,
      "content-type": contentType,
    };
    if (gzip) headers["content-encoding"] = "gzip";
    if (Buffer.isBuffer(body) && !gzip) headers["content-length"] = body.length;
    const req = request(new URL(path, server.url), { method: "POST", headers }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      res.on("end", () => {
        const done = performance.now();
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString("utf8"),
          seconds: (done - started) / 1000,
          afterLastByte: (done - lastByte) / 1000,
          wireBytes,
        });
      });
    });
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    const counted = async function* (chunks: AsyncIterable<Buffer>) {
      for await (const chunk of chunks) {
        wireBytes += chunk.length;
        yield chunk;
      }
    };
    const source = Readable.from(Buffer.isBuffer(body) ? [body] : body, { objectMode: false });
    const sent = gzip ? pipeline(source, createGzip({ level: 1 }), counted, req) : pipeline(source, counted, req);
    sent.then(
      () => {
        lastByte = performance.now();
      },
      // A server that answers before reading the whole body (a refusal) may close the socket.
      (error: unknown) => {
        if (!answered) reject(error);
      },
    );
  });
}
