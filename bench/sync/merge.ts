// The merge part of the sync scenario: a site of 1,000,000 products (5,000 with --quick), loaded
// first (not measured), then, round after round against the same server, the full re-import of
// the whole site (every column, mode=upsert) and the merge of a price-and-stock CSV
// (`sku,price,available`, mode=merge), both streamed; every case changes every product's price
// and availability, so both answer `updated` for all of them.
import { request } from "node:http";
import { setImmediate } from "node:timers/promises";
import type { Product, Site } from "@catalog-kit/catalog-core";
import { type Answer, post, SEED } from "../body.ts";
import { Connection } from "../client.ts";
import { CSV_HEADER, generateProducts, toCsvRecord } from "../data.ts";
import { emit, type NamedBaseline, progress, type Row } from "../report.ts";
import { type Rig, SERVER, type Storage, startRig } from "../rig.ts";
import type { Standalone } from "../standalone.ts";
import {
  describe,
  hwmWasReset,
  longestCall,
  type Measured,
  measure,
  medianRun,
  rate,
  rounds,
  stderrNote,
} from "./measure.ts";
import {
  API,
  configOf,
  count,
  fixed,
  loadGenerated,
  MERGE_PRODUCTS,
  MERGE_ROUNDS,
  MERGE_SITE,
  median,
  megabytes,
  requireSummary,
  siteQuery,
  TOKEN,
} from "./setup.ts";

/** The two cases: the whole site's CSV again, and the price-and-stock merge. */
type MergeCase = "reimport" | "merge";

/** Products generated at a time: the batches of `bodyOf`, so that product `i` is the same everywhere. */
const BATCH = 1_000;
/** Bytes a chunk of a body holds, as the streamed cases write them. */
const CHUNK_BYTES = 256 * 1024;
/** Products of the export's first part the spot-check compares after each case. */
const CHECKED = 1_000;
/** The shortest command Redis's SLOWLOG keeps in this part, µs (watch.ts). */
const SLOWLOG_MICROS = 1_000;
/** The merge file's header: the columns a price-and-stock feed carries. */
const MERGE_HEADER = "sku,price,available\n";

/**
 * The product of `product` in variant `v` (0: as loaded): its price `v` cents higher, its
 * availability flipped in odd variants. Each case sends the next variant, so every product
 * changes in every case, whichever case went before.
 */
function variantOf(product: Product, v: number): Product {
  const price = Math.round((product.price as number) * 100 + v) / 100;
  return { ...product, price, available: v % 2 === 1 ? !product.available : product.available };
}

// What a merge body needs of each product, kept once: the generator spends ~10 µs a product, which
// a body of three short cells would otherwise pay for again in every round.
interface Stock {
  readonly skus: string[];
  readonly prices: Float64Array;
  readonly available: Uint8Array;
}
let stock: Stock | undefined;

function stockOf(n: number): Stock {
  if (stock !== undefined) return stock;
  const skus: string[] = new Array(n);
  const prices = new Float64Array(n);
  const available = new Uint8Array(n);
  for (let first = 0; first < n; first += BATCH) {
    const products = generateProducts(Math.min(BATCH, n - first), SEED, first);
    for (let i = 0; i < products.length; i++) {
      const product = products[i] as Product;
      skus[first + i] = product.sku;
      prices[first + i] = product.price as number;
      available[first + i] = product.available ? 1 : 0;
    }
  }
  stock = { skus, prices, available };
  return stock;
}

/** Text gathered into Buffers of about `CHUNK_BYTES`, the pieces a streamed body is sent in. */
class Chunks {
  readonly buffers: Buffer[] = [];
  bytes = 0;
  private parts: string[] = [];
  private pending = 0;

  add(text: string): void {
    this.parts.push(text);
    this.pending += text.length;
    if (this.pending >= CHUNK_BYTES) this.cut();
  }

  done(): Buffer[] {
    if (this.parts.length > 0) this.cut();
    return this.buffers;
  }

  private cut(): void {
    const buffer = Buffer.from(this.parts.join(""));
    this.buffers.push(buffer);
    this.bytes += buffer.length;
    this.parts = [];
    this.pending = 0;
  }
}

/**
 * A case's body in variant `v`, built before it is timed: the whole site's CSV (every column), or
 * the merge's `sku,price,available`. Built whole, so that neither case pays the client's CPU on
 * a machine whose cores the server and its store share.
 */
function bodyFor(which: MergeCase, v: number, n: number): Buffer[] {
  const chunks = new Chunks();
  if (which === "reimport") {
    chunks.add(CSV_HEADER);
    for (let first = 0; first < n; first += BATCH) {
      for (const product of generateProducts(Math.min(BATCH, n - first), SEED, first)) {
        chunks.add(toCsvRecord(variantOf(product, v)));
      }
    }
    return chunks.done();
  }
  const { skus, prices, available } = stockOf(n);
  chunks.add(MERGE_HEADER);
  for (let i = 0; i < n; i++) {
    const flipped = v % 2 === 1 ? available[i] === 0 : available[i] === 1;
    chunks.add(`${skus[i]},${Math.round((prices[i] as number) * 100 + v) / 100},${flipped}\n`);
  }
  return chunks.done();
}

/** Sends the Buffers one at a time, back to the event loop between them, as the streamed cases do. */
async function* streamed(buffers: readonly Buffer[]): AsyncGenerator<Buffer> {
  for (const buffer of buffers) {
    yield buffer;
    await setImmediate();
  }
}

/** The first `n` products of the site's NDJSON export; the request is let go once they came. */
function exportedHead(server: Standalone, site: Site, n: number): Promise<Product[]> {
  return new Promise((resolve, reject) => {
    const headers = { "x-service-access-token": TOKEN, accept: "application/x-ndjson" };
    const req = request(new URL(`${API}?${siteQuery(site)}`, server.url), { headers }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`export: answer ${res.statusCode}`));
        return;
      }
      const products: Product[] = [];
      let rest = "";
      const finish = () => {
        req.destroy();
        resolve(products);
      };
      res.setEncoding("utf8");
      res.on("data", (text: string) => {
        const lines = (rest + text).split("\n");
        rest = lines.pop() as string;
        for (const line of lines) {
          if (products.length === n) break;
          if (line !== "") products.push(JSON.parse(line) as Product);
        }
        if (products.length === n) finish();
      });
      res.on("end", () => {
        if (rest !== "" && products.length < n) products.push(JSON.parse(rest) as Product);
        resolve(products);
      });
      res.on("error", (error) => {
        if (products.length < n) reject(error);
      });
    });
    req.on("error", reject);
    req.end();
  });
}

/** The index `data.ts` made the product of `id` from. */
const indexOf = (id: string) => (Number(id) - 7_000_000_000_000) / 7919;

/** The product of index `i` in variant `v`. */
function expectedAt(i: number, v: number): Product {
  const first = i - (i % BATCH);
  return variantOf(generateProducts(i - first + 1, SEED, first)[i - first] as Product, v);
}

/** The same fields with the same values, whatever their order (arrays by their items). */
const same = (a: Product, b: Product) =>
  JSON.stringify(Object.entries(a).sort(([x], [y]) => (x < y ? -1 : 1))) ===
  JSON.stringify(Object.entries(b).sort(([x], [y]) => (x < y ? -1 : 1)));

/** Compares the export's first products with what the site must hold in variant `v`; a sentence, and whether it held. */
async function spotCheck(server: Standalone, v: number): Promise<{ text: string; ok: boolean }> {
  const head = await exportedHead(server, MERGE_SITE, Math.min(CHECKED, MERGE_PRODUCTS));
  const wrong = head.filter((product) => !same(product, expectedAt(indexOf(product.id), v)));
  const ok = head.length === Math.min(CHECKED, MERGE_PRODUCTS) && wrong.length === 0;
  const first = wrong[0];
  return {
    ok,
    text:
      `the export's first ${count(head.length)} products ${ok ? "as expected" : "**NOT as expected**"}` +
      (first === undefined ? "" : ` (${wrong.length} differ, first ${JSON.stringify(first).slice(0, 300)})`),
  };
}

/** One round's figures of one case, and its checks. */
interface MergeRun {
  readonly m: Measured;
  readonly products: number;
  readonly bytes: number;
  readonly answer: Answer;
  /** On memory storage, the server's heap in use once it answered. */
  readonly heapAfter?: number;
  readonly checks: string;
  readonly ok: boolean;
}

/** The server's V8 heap in use, from its `/metrics` (prom-client's `nodejs_heap_size_used_bytes`). */
async function heapOf(server: Standalone): Promise<number | undefined> {
  const connection = new Connection(server.url, TOKEN);
  const answer = await connection.send("GET", "/metrics");
  connection.close();
  const bytes = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(answer.body)?.[1];
  return bytes === undefined ? undefined : Number(bytes);
}

const PATH: Readonly<Record<MergeCase, string>> = {
  reimport: `${API}/bulk/csv?${siteQuery(MERGE_SITE)}&mode=upsert`,
  merge: `${API}/bulk/csv?${siteQuery(MERGE_SITE)}&mode=merge`,
};

/** Sends variant `v` of a case, measured; checks its answer (every product updated) and the site's first products. */
async function runMergeCase(rigged: Rig, storage: Storage, which: MergeCase, v: number): Promise<MergeRun> {
  const { server } = rigged;
  const buffers = bodyFor(which, v, MERGE_PRODUCTS);
  const bytes = buffers.reduce((sum, buffer) => sum + buffer.length, 0);
  const { m, result: answer } = await measure(rigged, () =>
    post(server, TOKEN, PATH[which], "text/csv", streamed(buffers)),
  );
  const heapAfter = storage === "memory" ? await heapOf(server) : undefined;
  const summary = requireSummary(answer, `${which} of ${MERGE_SITE.siteId}`, MERGE_PRODUCTS);
  const counted = summary.updated === MERGE_PRODUCTS && (summary.skipped ?? 0) === 0;
  const spot = await spotCheck(server, v);
  const ok = counted && spot.ok;
  return {
    m,
    products: MERGE_PRODUCTS,
    bytes,
    answer,
    ...(heapAfter === undefined ? {} : { heapAfter }),
    ok,
    checks:
      `${counted ? "as expected" : "**NOT as expected**"}: ${summary.created} created, ${summary.updated} updated, ${summary.unchanged} unchanged` +
      `${summary.skipped === undefined ? "" : `, ${summary.skipped} skipped`}, answered ${fixed(answer.afterLastByte, 2)} s after the last byte; ${spot.text}`,
  };
}

const LABEL: Readonly<Record<MergeCase, string>> = {
  reimport: "full re-import: the whole site's CSV (every column), mode=upsert",
  merge: "merge of a price-and-stock CSV (`sku,price,available`), mode=merge",
};

/** The merge's short name: the site's size, the storage. */
export const mergeName = (storage: Storage) => `merge sku,price,available ${count(MERGE_PRODUCTS)}, ${storage}`;

/**
 * The site loaded once (not measured), then round after round the re-import and the merge, the
 * one that goes first turning every round; one server (and redis-server or PostgreSQL) for all.
 */
export async function mergePart(storage: Storage): Promise<void> {
  const rigged = await startRig(storage, "merge", configOf());
  if (rigged.watch !== undefined) rigged.watch.slowerThan = SLOWLOG_MICROS;
  const runs: Record<MergeCase, MergeRun[]> = { reimport: [], merge: [] };
  const ratios: number[] = [];
  try {
    await loadGenerated(rigged.server, storage, MERGE_SITE, MERGE_PRODUCTS);
    let variant = 0;
    for (let round = 0; round < MERGE_ROUNDS; round++) {
      const order: readonly MergeCase[] = round % 2 === 0 ? ["reimport", "merge"] : ["merge", "reimport"];
      for (const which of order) {
        const run = await runMergeCase(rigged, storage, which, ++variant);
        runs[which].push(run);
        progress(
          `  round ${round + 1}, ${which}: ${count(Math.round(rate(run)))} products/s, ${describe(run.m, run.products, run.bytes)}; ${run.checks}`,
        );
        if (!run.ok) process.exitCode = 1;
      }
      ratios.push(rate(runs.merge[round] as MergeRun) / rate(runs.reimport[round] as MergeRun));
    }
  } finally {
    await rigged.stop();
  }
  for (const row of mergeRows(storage, runs, ratios, stderrNote(rigged.server))) emit(row);
}

/** The rows of the merge part: products/s against the re-import, the server's peak RSS, its peak above the heap (memory), the longest script call (Redis). */
function mergeRows(
  storage: Storage,
  runs: Record<MergeCase, MergeRun[]>,
  ratios: readonly number[],
  stderr: string,
): Row[] {
  const [merge, reimport] = [medianRun(runs.merge), medianRun(runs.reimport)];
  const failed = [...runs.merge, ...runs.reimport].filter((run) => !run.ok).length;
  const site = `a site of ${count(MERGE_PRODUCTS)} products`;
  const subject = `${LABEL.merge} changing every product's price and availability in ${site}, raw CSV body to /bulk/csv in one chunked request, ${storage}, ${SERVER}`;
  const against: NamedBaseline = {
    label: "full re-import",
    name: `${LABEL.reimport}, every product's price and availability changed too, raw CSV body to /bulk/csv in one chunked request, into the same site of the same server, in the same rounds`,
  };
  const short = mergeName(storage);
  const peaks = (list: readonly MergeRun[]) =>
    list
      .map((run) => `${fixed(megabytes(run.m.peakRss), 0)} (+${fixed(megabytes(run.m.peakRss - run.m.rssBefore), 0)})`)
      .join(", ");
  const rows: Row[] = [
    {
      name: short,
      scenario: subject,
      figure: median(runs.merge.map(rate)),
      unit: "products/s",
      baseline: { ...against, figure: median(runs.reimport.map(rate)), unit: "products/s" },
      ratio: median(ratios),
      target: { label: ">= 1.0x", minRatio: 1 },
      note:
        `${rounds(MERGE_ROUNDS)}, the case that goes first turning every round; ${failed === 0 ? "" : `**${failed} case(s) NOT as expected**; `}` +
        `${merge.checks}; ${describe(merge.m, merge.products, merge.bytes)}; re-import: ${reimport.checks}; ${describe(reimport.m, reimport.products, reimport.bytes)}; every limit at its default${stderr}`,
    },
    {
      name: `peak RSS, ${short}`,
      scenario: `server peak RSS during the ${subject}`,
      figure: megabytes(median(runs.merge.map((run) => run.m.peakRss))),
      unit: "MB",
      baseline: {
        ...against,
        figure: megabytes(median(runs.reimport.map((run) => run.m.peakRss))),
        unit: "MB",
      },
      // Into Redis or PostgreSQL the server holds none of the site: its peak is to stay under 300 MB.
      ...(storage !== "memory" ? { target: { label: "<= 300 MB", max: 300 } } : {}),
      note: `${rounds(MERGE_ROUNDS)}, ${hwmWasReset() ? "VmHWM reset before each case" : "highest of RSS samples every 50 ms (VmHWM could not be reset)"}; by round, the merge's peaks ${peaks(runs.merge)} MB, the re-import's ${peaks(runs.reimport)} MB (in brackets: above the RSS just before the case)`,
    },
  ];
  const withHeap = runs.merge.filter((run) => run.heapAfter !== undefined);
  if (withHeap.length > 0) {
    // On memory storage the server holds the site: what a merge may take beyond it is 300 MB.
    const above = (run: MergeRun) => run.m.peakRss - (run.heapAfter as number);
    const middle = medianRun(withHeap);
    rows.push({
      name: `RSS above heap, ${short}`,
      scenario: `server peak RSS above the heap in use once it answered (the stored products, and garbage not yet collected), ${subject}`,
      figure: megabytes(median(withHeap.map(above))),
      unit: "MB",
      target: { label: "<= 300 MB", max: 300 },
      note: `${rounds(withHeap.length)}; peak RSS ${fixed(megabytes(middle.m.peakRss), 0)} MB, heap in use afterwards ${fixed(megabytes(middle.heapAfter as number), 0)} MB (${fixed((middle.heapAfter as number) / middle.products, 0)} B a product; \`nodejs_heap_size_used_bytes\` of /metrics); the re-import's peaks above its heap ${runs.reimport.map((run) => (run.heapAfter === undefined ? "n/a" : fixed(megabytes(above(run)), 0))).join(", ")} MB`,
    });
  }
  if (merge.m.redis !== undefined && reimport.m.redis !== undefined) {
    const call = longestCall(runs.merge, runs.reimport, MERGE_ROUNDS);
    const logged = `SLOWLOG keeping the commands of ${fixed(SLOWLOG_MICROS / 1000, 0)} ms or more in both cases (a merge sends a lookup a product)`;
    rows.push({
      name: `longest script call, ${short}`,
      scenario: `longest single Redis script call, ${subject}`,
      figure: call.figure,
      unit: "ms",
      baseline: { ...against, figure: call.baseline, unit: "ms" },
      note: `${call.note}; ${logged}`,
    });
  }
  return rows;
}
