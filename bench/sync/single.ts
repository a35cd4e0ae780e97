// The single part of the sync scenario: one-product imports (`POST /external/product/v1` with
// `{ siteId, siteType, product }`) one after another into a site of 1,000,000 products (5,000
// with --quick), loaded first by one streamed NDJSON import (not measured), through the standalone
// server on a SQLite file, against the same on the memory store holding the same site. Every other
// request creates a product the site did not hold, the others change the price of one it holds;
// each answer must count that one product created or updated.
import type { Product } from "@catalog-kit/catalog-core";
import { SEED } from "../body.ts";
import { Connection, quantile } from "../client.ts";
import { generateProducts } from "../data.ts";
import { emit, progress, type Row } from "../report.ts";
import { describeSqlite, SERVER, type SqliteFigures, sqliteFigures, startRig } from "../rig.ts";
import { cpuSecondsOf, peakRssOf, rssOf } from "../standalone.ts";
import {
  API,
  configOf,
  count,
  fixed,
  loadGenerated,
  median,
  megabytes,
  quick,
  SINGLE_PRODUCTS,
  SINGLE_SITE,
  type Summary,
  TOKEN,
} from "./setup.ts";

/** Timed one-product imports on each storage. */
const REQUESTS = quick ? 100 : 1_000;
/** One-product imports before them, not timed (updates of other products). */
const WARMUP = quick ? 20 : 200;
/** Products generated at a time, as the loaded site was: product `i` is the same everywhere. */
const BATCH = 1_000;
/** What the rows say of the target. */
const TARGET_NOTE = "the target: a one-product import into a site of 1,000,000 products in under 5 ms";

/** The storages of the part: SQLite, and memory as its baseline. */
type SingleStorage = "sqlite" | "memory";

/** One request: its body, and whether it creates the product (else it updates one the site holds). */
interface Request {
  readonly body: string;
  readonly creates: boolean;
}

/** A loaded product with a new price. */
function changed(index: number, v: number): Product {
  const first = Math.floor(index / BATCH) * BATCH;
  const product = generateProducts(BATCH, SEED, first)[index - first] as Product;
  return { ...product, price: Math.round((product.price as number) * 100 + v) / 100 };
}

/** The warm-up's requests, then the timed ones: a new product and an update in turn, spread over the site. */
function requests(): { warmup: Request[]; timed: Request[] } {
  const body = (product: Product) =>
    JSON.stringify({ siteId: SINGLE_SITE.siteId, siteType: SINGLE_SITE.siteType, product });
  const fresh = generateProducts(Math.ceil(REQUESTS / 2), SEED, SINGLE_PRODUCTS);
  const spread = (i: number) => (i * 7_919 + 13) % SINGLE_PRODUCTS;
  const warmup = Array.from({ length: WARMUP }, (_, i) => ({
    body: body(changed(spread(REQUESTS + i), 1)),
    creates: false,
  }));
  const timed = Array.from({ length: REQUESTS }, (_, i) =>
    i % 2 === 0
      ? { body: body(fresh[i / 2] as Product), creates: true }
      : { body: body(changed(spread(i), 2)), creates: false },
  );
  return { warmup, timed };
}

/** What one storage measured. */
interface Timed {
  /** Milliseconds of each timed request, as the client saw it (request sent to answer read). */
  readonly ms: number[];
  readonly createMs: number[];
  readonly updateMs: number[];
  readonly serverCpu: number;
  readonly rss: number;
  readonly peakRss: number | undefined;
  readonly loadSeconds: number;
  readonly sqlite?: SqliteFigures;
}

async function send(connection: Connection, request: Request, what: string): Promise<number> {
  const answer = await connection.send("POST", API, request.body);
  const summary = answer.status === 200 ? (JSON.parse(answer.body) as Summary) : undefined;
  const counted = request.creates ? summary?.created : summary?.updated;
  if (summary?.total !== 1 || counted !== 1) {
    throw new Error(
      `${what}: answer ${answer.status} ${answer.body.slice(0, 300)} (expected one ${request.creates ? "created" : "updated"})`,
    );
  }
  return answer.ms;
}

async function timeOn(storage: SingleStorage, sent: { warmup: Request[]; timed: Request[] }): Promise<Timed> {
  const rigged = await startRig(storage, "single", configOf());
  try {
    const started = performance.now();
    await loadGenerated(rigged.server, storage, SINGLE_SITE, SINGLE_PRODUCTS);
    const loadSeconds = (performance.now() - started) / 1000;
    const connection = new Connection(rigged.server.url, TOKEN);
    try {
      progress(`${storage}: ${count(REQUESTS)} one-product imports one after another (after ${WARMUP} not timed)`);
      for (const request of sent.warmup) await send(connection, request, `${storage} warm-up`);
      const cpuBefore = await cpuSecondsOf(rigged.server.pid);
      const ms: number[] = [];
      const createMs: number[] = [];
      const updateMs: number[] = [];
      for (const request of sent.timed) {
        const took = await send(connection, request, storage);
        ms.push(took);
        (request.creates ? createMs : updateMs).push(took);
      }
      const serverCpu = (await cpuSecondsOf(rigged.server.pid)) - cpuBefore;
      const timed: Timed = {
        ms,
        createMs,
        updateMs,
        serverCpu,
        rss: await rssOf(rigged.server.pid),
        peakRss: await peakRssOf(rigged.server.pid),
        loadSeconds,
        ...(rigged.sqliteFile === undefined ? {} : { sqlite: await sqliteFigures(rigged.sqliteFile) }),
      };
      progress(
        `  median ${fixed(median(ms), 2)} ms, p99 ${fixed(quantile(ms, 0.99), 2)} ms, server CPU ${fixed((serverCpu * 1e6) / REQUESTS, 0)} µs a request`,
      );
      return timed;
    } finally {
      connection.close();
    }
  } finally {
    await rigged.stop();
  }
}

function describeTimed(t: Timed): string {
  return [
    `median ${fixed(median(t.createMs), 2)} ms creating a product, ${fixed(median(t.updateMs), 2)} ms updating one; p99 ${fixed(quantile(t.createMs, 0.99), 2)} and ${fixed(quantile(t.updateMs, 0.99), 2)} ms; longest ${fixed(Math.max(...t.ms), 2)} ms`,
    `server CPU ${fixed((t.serverCpu * 1e6) / t.ms.length, 0)} µs a request`,
    `server RSS ${fixed(megabytes(t.rss), 0)} MB after, peak ${t.peakRss === undefined ? "n/a" : fixed(megabytes(t.peakRss), 0)} MB`,
    `the site loaded in ${fixed(t.loadSeconds, 1)} s`,
    ...(t.sqlite === undefined ? [] : [describeSqlite(t.sqlite, SINGLE_PRODUCTS)]),
  ].join(", ");
}

/** The rows' short name, as `--only` and the A/B runner see it. */
export const singleName = (storage: string) =>
  `one-product import into ${count(SINGLE_PRODUCTS)}, npm start, ${storage}`;

/** The single part on SQLite against memory: the median and the p99 of a one-product import's time. */
export async function singlePart(): Promise<void> {
  const sent = requests();
  const sqlite = await timeOn("sqlite", sent);
  const memory = await timeOn("memory", sent);
  const scenario = (what: string) =>
    `${what} of a one-product import (POST ${API}, { siteId, siteType, product }), one after another on one keep-alive connection, ${count(REQUESTS)} timed after ${WARMUP}, half creating a product and half changing one's price, into a site of ${count(SINGLE_PRODUCTS)} products loaded by one streamed NDJSON import, sqlite, ${SERVER}, a fresh server and database file`;
  const baseline = {
    label: "memory",
    name: "the same requests through the same server on the memory store holding the same site, right after",
  };
  const row = (what: string, pick: (ms: number[]) => number, target: boolean): Row => ({
    name: `${what === "median" ? "" : `${what}, `}${singleName("sqlite")}`,
    scenario: scenario(what),
    figure: pick(sqlite.ms),
    unit: "ms",
    baseline: { ...baseline, figure: pick(memory.ms), unit: "ms" },
    ratio: pick(sqlite.ms) / pick(memory.ms),
    ...(target ? { target: { label: "< 5 ms", max: 5 } } : {}),
    note: `${target ? `${TARGET_NOTE}; ` : ""}SQLite: ${describeTimed(sqlite)}; memory: ${describeTimed(memory)}`,
  });
  emit(row("median", median, true));
  emit(row("p99", (ms) => quantile(ms, 0.99), false));
}
