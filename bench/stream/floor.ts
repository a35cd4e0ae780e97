// The floor of an import into PostgreSQL: a bare `COPY ... FROM STDIN` of the same products, as
// the rows the adapter stores (site, id, sku, the canonical body), into a table like the
// adapter's (the same columns, collation, primary key and unique index), on the same server.
// The rows are generated while they are sent, by the generator the streamed bodies use, so the
// client costs what a streamed body's client costs; only the adapter's work is missing.
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { setImmediate } from "node:timers/promises";
import { encodeProduct } from "@catalog-kit/catalog-core";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { SEED } from "../body.ts";
import { generateProducts } from "../data.ts";
import { type BenchPostgres, type PostgresFigures, PostgresWatch } from "../postgres.ts";

/** Where the floor's rows go: a schema of their own beside the adapter's. */
const TABLE = "floor.products";
/** Products generated at a time, as the streamed bodies generate them. */
const BATCH = 1_000;
/** Bytes handed to the connection at a time, as the streamed bodies hand them to the socket. */
const WRITE_BYTES = 256 * 1024;

// COPY's text format: a backslash, tab or line break in a field is escaped (JSON has escaped the
// body's control characters already).
const SPECIALS = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };
const field = (text: string) => text.replace(SPECIALS, (c) => ESCAPES[c] as string);

/** The COPY text of the first `products` products, produced while it is read. */
async function* copyText(products: number, counted: { products: number }): AsyncGenerator<Buffer> {
  let parts: string[] = [];
  let pending = 0;
  for (let first = 0; first < products; first += BATCH) {
    for (const product of generateProducts(Math.min(BATCH, products - first), SEED, first)) {
      const line = `1\t${field(product.id)}\t${field(product.sku)}\t${field(encodeProduct(product))}\n`;
      parts.push(line);
      pending += line.length;
      counted.products++;
      if (pending >= WRITE_BYTES) {
        yield Buffer.from(parts.join(""));
        parts = [];
        pending = 0;
        await setImmediate();
      }
    }
  }
  if (parts.length > 0) yield Buffer.from(parts.join(""));
}

/** What the floor measured. */
export interface Floor {
  readonly products: number;
  readonly bytes: number;
  readonly seconds: number;
  readonly clientCpu: number;
  readonly postgres: PostgresFigures;
  /** Rows of the floor's table whose id, sku and body equal the adapter's row of the same id. */
  readonly matching: number | undefined;
}

/**
 * COPYs the first `products` products into a fresh table on `server`, in one statement, timed
 * from its start to its commit, with PostgreSQL's CPU and WAL; then (not timed) counts the rows
 * equal to the adapter's `catalog.products`, when that holds the same products.
 */
export async function copyFloor(server: BenchPostgres, products: number, compare: boolean): Promise<Floor> {
  await server.query(`
    CREATE SCHEMA IF NOT EXISTS floor;
    DROP TABLE IF EXISTS ${TABLE};
    CREATE TABLE ${TABLE} (
      site integer NOT NULL,
      id text COLLATE "C" NOT NULL,
      sku text COLLATE "C" NOT NULL,
      body text NOT NULL,
      PRIMARY KEY (site, id),
      UNIQUE (site, sku)
    )`);
  const client: pg.Client = await server.connect();
  const watch = new PostgresWatch(server);
  const counted = { products: 0 };
  let bytes = 0;
  try {
    await watch.start();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const sized = async function* (chunks: AsyncIterable<Buffer>) {
      for await (const chunk of chunks) {
        bytes += chunk.length;
        yield chunk;
      }
    };
    await pipeline(
      Readable.from(copyText(products, counted)),
      sized,
      client.query(copyFrom(`COPY ${TABLE} (site, id, sku, body) FROM STDIN`)),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const postgres = await watch.stop();
    let matching: number | undefined;
    if (compare) {
      const { rows } = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM ${TABLE} f JOIN catalog.products p ON p.id = f.id AND p.sku = f.sku AND p.body = f.body`,
      );
      matching = Number(rows[0]?.n);
    }
    return { products: counted.products, bytes, seconds, clientCpu: (cpu.user + cpu.system) / 1e6, postgres, matching };
  } finally {
    await client.end().catch(() => {});
  }
}
