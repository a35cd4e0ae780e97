// What every part of the HTTP scenario shares: the options and sizes, the stored products, the
// paths and bodies the load sends, and the loads themselves.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateProducts, toBulkBody, toCsvContent } from "../data.ts";
import { benchOptions } from "../options.ts";
import { SITE } from "../servers/shared.ts";
import { haveWrk } from "../wrk.ts";

/** The command line of the scenario (options.ts). */
export const { quick, only } = benchOptions();
/** Products every server stores before it is loaded. */
export const stored = quick ? 1_000 : 10_000;
/** Seconds of one GET round, and of one POST round. */
export const getSeconds = quick ? 1 : 6;
const postSeconds = quick ? 1 : 5;
/** Timed rounds of every contender. */
export const rounds = quick ? 1 : 3;
/** Timed rounds of every contender run alone, each round a fresh process (see `alternateAlone`). */
export const aloneRounds = quick ? 1 : 5;
/** Products per POST. */
export const BATCH = 1_000;
/** The stored products. */
export const products = generateProducts(stored);

/** A folder for configuration files, access logs and wrk's script, removed on exit. */
export const work = mkdtempSync(join(tmpdir(), "catalog-bench-http-"));
process.once("exit", () => rmSync(work, { recursive: true, force: true }));
/** Whether wrk is installed (GETs fall back to autocannon without it). */
export const wrk = haveWrk();

/** The paths of the GETs: every stored product, in a scrambled order, as real traffic visits them. */
export const getPaths = products.map(
  (_, i) =>
    `/external/product/v1/${encodeURIComponent((products[(i * 7_919) % stored] as { id: string }).id)}?siteId=${SITE.siteId}&siteType=${SITE.siteType}`,
);

// Ten slices of 1,000 stored products, each in two price variants sent in turn, so that every
// request really updates 1,000 products instead of finding them unchanged.
function bodies(encode: (batch: typeof products) => string): Buffer[] {
  const out: Buffer[] = [];
  for (let variant = 0; variant < 2; variant++) {
    for (let first = 0; first + BATCH <= stored; first += BATCH) {
      const batch = products.slice(first, first + BATCH).map((p) => ({ ...p, price: (p.price ?? 0) + variant }));
      out.push(Buffer.from(encode(batch)));
    }
  }
  return out;
}
const bulkBodies = bodies(toBulkBody);
const csvBodies = bodies((batch) => JSON.stringify({ csvContent: toCsvContent(batch) }));

/** What a load sends to a server, how many at once, and for how long. */
export interface Load {
  readonly path: string;
  readonly method: "GET" | "POST";
  readonly connections: number;
  readonly seconds: number;
  readonly bodies?: readonly Buffer[];
  /** A fresh `Idempotency-Key` header on every request (a prefix of the run, then a counter). */
  readonly keyed?: boolean;
}

/** How the rows name the GETs' load generator. */
export const GENERATOR = wrk ? "wrk -t1" : "autocannon";

/** GET by id, 50 connections. */
export const GET: Load = { path: "", method: "GET", connections: 50, seconds: getSeconds };
/** POST bulk of 1,000 products, 10 connections. */
export const BULK: Load = {
  path: "/external/product/v1/bulk",
  method: "POST",
  connections: 10,
  seconds: postSeconds,
  bodies: bulkBodies,
};
/** POST bulk of 1,000 products, 10 connections, each request with an `Idempotency-Key` never sent before. */
export const BULK_KEYED: Load = { ...BULK, keyed: true };
/** POST CSV of 1,000 rows, 10 connections. */
export const CSV: Load = {
  path: "/external/product/v1/bulk/csv",
  method: "POST",
  connections: 10,
  seconds: postSeconds,
  bodies: csvBodies,
};
