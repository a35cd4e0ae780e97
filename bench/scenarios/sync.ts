// Reading a whole site back and syncing a whole site, over HTTP, through the standalone server
// exactly as `npm start` runs it (its CLI under tsx, a configuration file), memory and Redis
// storage, a fresh server (and on Redis a fresh redis-server) for each part.
//
// Export: a site of 1,000,000 products (5,000 with --quick), loaded first with one streamed
// NDJSON import (not measured), then read back whole as NDJSON and as CSV (`GET
// /external/product/v1` by Accept), the client counting bytes and records without keeping the
// body; in the same rounds, the same site walked with the JSON list, 1,000 a page, cursor after
// cursor: the way to read a site without the export (its pages hold each product's retrieval
// view, five of its fields, about a third of the bytes of the export's full product).
//
// Replace: a site of 100,000 products (10,000 with --quick) synced with `mode=replace` to 90 % of
// them (every tenth product gone), as a raw NDJSON body and as one bulk JSON envelope; in the same
// rounds, each on an equal fresh site, the plain upsert of the same body.
import { request } from "node:http";
import { PRODUCT_FIELDS, type Product, type Site } from "@catalog-kit/catalog-core";
import { type Answer, bodyOf, post, SEED } from "../body.ts";
import { Connection, problemCode } from "../client.ts";
import { generateProducts } from "../data.ts";
import { benchOptions } from "../options.ts";
import { emit, guarded, progress } from "../report.ts";
import { available, measureOn, type Rig, SERVER, STORAGES, type Storage, startRig, type Taken } from "../rig.ts";
import { resetPeakRss, rssOf, type Standalone } from "../standalone.ts";
import type { RedisFigures } from "../watch.ts";

const { quick, only, sizes } = benchOptions();
const MB = 1_048_576;
/** Products of the exported site: `--size N` (the first), else 1,000,000 (5,000 with --quick). */
const EXPORT_PRODUCTS = sizes?.[0] ?? (quick ? 5_000 : 1_000_000);
/** Products of the replaced site: `--size N` (the second), else 100,000 (10,000 with --quick). */
const REPLACE_PRODUCTS = sizes?.[1] ?? (quick ? 10_000 : 100_000);
/** Rounds of each part: every case once a round, in turn. */
const ROUNDS = quick ? 1 : 3;
/** Products per page of the list walk: the most a page may hold, and the export's own page. */
const PAGE = 1_000;
/** The server's default `limits.maxBodyBytes` (50 MiB). */
const DEFAULT_MAX_BODY_BYTES = 52_428_800;
const TOKEN = "bench-sync-token";
const SITE_TYPE = "bench";
const API = "/external/product/v1";

type Part = "export" | "replace";
type ExportCase = "ndjson" | "csv" | "list";
type Body = "ndjson" | "json";
type Mode = "replace" | "upsert";

const PARTS: readonly Part[] = ["export", "replace"];

/** `--only memory|redis` and `--only export|replace` (repeatable) narrow the run. */
function wanted(storage: Storage, part: Part): boolean {
  if (only === undefined) return true;
  const storages = only.filter((o) => (STORAGES as readonly string[]).includes(o));
  const parts = only.filter((o) => (PARTS as readonly string[]).includes(o));
  return (storages.length === 0 || storages.includes(storage)) && (parts.length === 0 || parts.includes(part));
}

const megabytes = (bytes: number) => bytes / MB;
const fixed = (value: number, digits = 1) => value.toFixed(digits);
const count = (value: number) => value.toLocaleString("en-US");
const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
const siteQuery = (site: Site) =>
  `siteId=${encodeURIComponent(site.siteId)}&siteType=${encodeURIComponent(site.siteType)}`;

// The export's site, and four sites a round for the replace: one per case, each loaded afresh.
const EXPORT_SITE: Site = { siteType: SITE_TYPE, siteId: "export" };
const REPLACE_CASES: readonly (readonly [Body, Mode])[] = [
  ["ndjson", "replace"],
  ["ndjson", "upsert"],
  ["json", "replace"],
  ["json", "upsert"],
];
const replaceSite = (round: number, body: Body, mode: Mode): Site => ({
  siteType: SITE_TYPE,
  siteId: `r${round}-${body}-${mode}`,
});
const SITES: readonly Site[] = [
  EXPORT_SITE,
  ...Array.from({ length: ROUNDS }, (_, round) =>
    REPLACE_CASES.map(([body, mode]) => replaceSite(round, body, mode)),
  ).flat(),
];

function configOf(maxBodyBytes?: number): (storage: object) => object {
  return (storage) => ({
    sites: SITES,
    tokens: [{ token: TOKEN, sites: SITES }],
    storage,
    ...(maxBodyBytes === undefined ? {} : { limits: { maxBodyBytes } }),
  });
}

interface Summary {
  total?: number;
  created?: number;
  updated?: number;
  unchanged?: number;
  deleted?: number;
}

function requireSummary(answer: Answer, what: string, total: number): Summary {
  const summary = answer.status === 200 ? (JSON.parse(answer.body) as Summary) : undefined;
  if (summary?.total !== total) {
    throw new Error(`${what}: answer ${answer.status} ${answer.body.slice(0, 500)} (expected ${total} products)`);
  }
  return summary;
}

/** Loads `n` products into a site with one NDJSON body (streamed, or a prepared Buffer): not measured. */
async function load(server: Standalone, site: Site, n: number, body: Buffer | AsyncIterable<Buffer>): Promise<void> {
  const answer = await post(server, TOKEN, `${API}/bulk?${siteQuery(site)}`, "application/x-ndjson", body);
  requireSummary(answer, `loading ${site.siteId}`, n);
}

/** One measured case. */
interface Measured extends Taken {
  /** Server RSS just before the case. */
  readonly rssBefore: number;
  /** Server peak RSS during the case: VmHWM reset before it, else the highest of samples every 50 ms. */
  readonly peakRss: number;
}

/** Whether the server's VmHWM could be reset (else peaks are sampled): said in the notes. */
let hwmReset = true;

/** Runs `work` against the rig's server (measureOn), with its RSS before and its peak during. */
async function measure<T>(rigged: Rig, work: () => Promise<T>): Promise<{ m: Measured; result: T }> {
  const { pid } = rigged.server;
  const rssBefore = await rssOf(pid);
  hwmReset = (await resetPeakRss(pid)) && hwmReset;
  let sampled = rssBefore;
  const sampler = setInterval(() => {
    void rssOf(pid).then(
      (rss) => {
        sampled = Math.max(sampled, rss);
      },
      () => undefined,
    );
  }, 50);
  try {
    const { taken, hwm, result } = await measureOn(rigged, TOKEN, work);
    return { m: { ...taken, rssBefore, peakRss: hwmReset && hwm !== undefined ? hwm : sampled }, result };
  } finally {
    clearInterval(sampler);
  }
}

/**
 * Counts the records of an NDJSON or CSV body as it arrives, without keeping it: every LF of
 * NDJSON (JSON strings escape theirs), and for CSV every LF outside a quoted cell (descriptions
 * hold line breaks). Keeps the first line, to check it.
 */
class RecordCounter {
  bytes = 0;
  records = 0;
  firstLine = "";
  lastByte = -1;
  private readonly csv: boolean;
  private inQuote = false;
  private head: Buffer[] | undefined = [];

  constructor(csv: boolean) {
    this.csv = csv;
  }

  add(chunk: Buffer): void {
    this.bytes += chunk.length;
    if (chunk.length === 0) return;
    this.lastByte = chunk[chunk.length - 1] as number;
    if (this.head !== undefined) {
      const end = chunk.indexOf(10);
      this.head.push(end === -1 ? chunk : chunk.subarray(0, end));
      if (end !== -1 || this.head.length > 64) {
        this.firstLine = Buffer.concat(this.head).toString("utf8");
        this.head = undefined;
      }
    }
    if (!this.csv) {
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) this.records++;
      return;
    }
    let at = 0;
    let lf = chunk.indexOf(10);
    let quote = chunk.indexOf(34);
    for (;;) {
      if (this.inQuote) {
        if (quote === -1) return;
        this.inQuote = false;
        at = quote + 1;
        quote = chunk.indexOf(34, at);
        if (lf !== -1 && lf < at) lf = chunk.indexOf(10, at);
      } else if (lf !== -1 && (quote === -1 || lf < quote)) {
        this.records++;
        at = lf + 1;
        lf = chunk.indexOf(10, at);
      } else if (quote !== -1) {
        this.inQuote = true;
        at = quote + 1;
        quote = chunk.indexOf(34, at);
      } else return;
    }
  }
}

const ACCEPT: Readonly<Record<"ndjson" | "csv", string>> = { ndjson: "application/x-ndjson", csv: "text/csv" };

/** GETs the site's export and consumes it as it comes, counting bytes and records. */
function exportSite(server: Standalone, site: Site, format: "ndjson" | "csv"): Promise<RecordCounter> {
  const counter = new RecordCounter(format === "csv");
  return new Promise((resolve, reject) => {
    const headers = { "x-service-access-token": TOKEN, accept: ACCEPT[format] };
    const req = request(new URL(`${API}?${siteQuery(site)}`, server.url), { headers }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`export ${format}: answer ${res.statusCode}`));
        return;
      }
      res.on("data", (chunk: Buffer) => counter.add(chunk));
      res.on("error", reject);
      res.on("end", () => resolve(counter));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Walks the site with the JSON list, `PAGE` a page, cursor after cursor; returns products and bytes seen. */
async function walkList(server: Standalone, site: Site): Promise<{ products: number; bytes: number; pages: number }> {
  const connection = new Connection(server.url, TOKEN);
  let products = 0;
  let bytes = 0;
  let pages = 0;
  try {
    for (let cursor: string | null = null; ; ) {
      const path: string = `${API}?${siteQuery(site)}&limit=${PAGE}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
      const answer = await connection.send("GET", path, undefined, 600_000);
      if (answer.status !== 200) throw new Error(`list: answer ${answer.status} ${answer.body.slice(0, 300)}`);
      const page = JSON.parse(answer.body) as { products: unknown[]; nextCursor: string | null };
      products += page.products.length;
      bytes += Buffer.byteLength(answer.body);
      pages++;
      if (page.nextCursor === null) return { products, bytes, pages };
      cursor = page.nextCursor;
    }
  } finally {
    connection.close();
  }
}

const CSV_HEADER_LINE = PRODUCT_FIELDS.join(",");

/** One round's figures of one export case. */
interface ExportRun {
  readonly m: Measured;
  readonly bytes: number;
  readonly products: number;
}

const EXPORT_LABEL: Readonly<Record<ExportCase, string>> = {
  ndjson: "export as NDJSON (`GET`, `Accept: application/x-ndjson`)",
  csv: "export as CSV (`GET`, `Accept: text/csv`)",
  list: `JSON list walk (limit=${PAGE}, cursor after cursor; each product in the retrieval view: id, sku, title, featured_image, url)`,
};

async function runExportCase(rigged: Rig, name: ExportCase, first: Product): Promise<ExportRun> {
  const { server } = rigged;
  if (name === "list") {
    const { m, result } = await measure(rigged, () => walkList(server, EXPORT_SITE));
    if (result.products !== EXPORT_PRODUCTS) {
      throw new Error(`list walk: ${result.products} products of ${EXPORT_PRODUCTS} in ${result.pages} pages`);
    }
    return { m, bytes: result.bytes, products: result.products };
  }
  const { m, result } = await measure(rigged, () => exportSite(server, EXPORT_SITE, name));
  const expected = EXPORT_PRODUCTS + (name === "csv" ? 1 : 0);
  const firstOk =
    name === "csv" ? result.firstLine === CSV_HEADER_LINE : (JSON.parse(result.firstLine) as Product).id === first.id;
  if (result.records !== expected || result.lastByte !== 10 || !firstOk) {
    throw new Error(
      `export ${name}: ${result.records} records (expected ${expected}), last byte ${result.lastByte}, first line ${result.firstLine.slice(0, 120)}`,
    );
  }
  return { m, bytes: result.bytes, products: EXPORT_PRODUCTS };
}

const rate = (run: { m: Measured; products: number }) => run.products / run.m.seconds;

/** CPU, memory and stalls of one case, for a row's note. */
function describe(m: Measured, products: number, bytes?: number): string {
  const perProduct = (seconds: number) => `${fixed((seconds * 1e6) / products, 2)} µs a product`;
  const parts = [
    `${fixed(m.seconds, 2)} s`,
    ...(bytes === undefined ? [] : [`${fixed(megabytes(bytes), 0)} MB, ${fixed(megabytes(bytes) / m.seconds)} MB/s`]),
    `server RSS ${fixed(megabytes(m.rssBefore), 0)} MB before, peak ${fixed(megabytes(m.peakRss), 0)} MB during`,
    `server CPU ${fixed(m.serverCpu, 2)} s (${perProduct(m.serverCpu)})`,
    `client CPU ${fixed(m.clientCpu, 2)} s (${perProduct(m.clientCpu)})`,
    `longest GET /healthz meanwhile ${fixed(m.stall, 0)} ms${m.probeFailures > 0 ? ` (${m.probeFailures} not 200, first: ${m.probeFailure})` : ""}`,
  ];
  if (m.redis !== undefined) {
    parts.push(
      `redis-server CPU ${fixed(m.redis.cpuSeconds, 2)} s, ${fixed(megabytes(m.redis.usedBytes), 0)} MB used after`,
      `longest script call ${fixed(m.redis.script, 2)} ms (${m.redis.scriptCall}; ${m.redis.over10} of 10 ms or more), longest command ${fixed(m.redis.any, 2)} ms (${m.redis.anyCall})`,
    );
  }
  return parts.join(", ");
}

/** The round whose figure is the median one, for its note. */
function medianRun<T extends { m: Measured; products: number }>(runs: readonly T[]): T {
  const figure = median(runs.map(rate));
  return runs.reduce((best, run) => (Math.abs(rate(run) - figure) < Math.abs(rate(best) - figure) ? run : best));
}

/** What the server wrote to stderr (warnings, failed requests), for a note; empty when nothing. */
const stderrNote = (server: Standalone) =>
  server.stderrLines === 0 ? "" : `; the server wrote ${server.stderrLines} stderr line(s), first: ${server.stderr[0]}`;
const stalls = (runs: readonly { m: Measured }[]) => runs.map((run) => `${fixed(run.m.stall, 0)} ms`).join(", ");
const rounds = (n: number) => `median of ${n} round${n === 1 ? "" : "s"}`;

/**
 * The longest script call of all rounds of a case and of its baseline, with a note naming the
 * round's call, its count of calls of 10 ms or more and its longest command of any kind.
 */
function longestCall(subject: readonly { m: Measured }[], baseline: readonly { m: Measured }[]) {
  const longest = (runs: readonly { m: Measured }[]) =>
    runs.reduce((a, b) => ((b.m.redis?.script ?? 0) > (a.m.redis?.script ?? 0) ? b : a)).m.redis as RedisFigures;
  const [a, b] = [longest(subject), longest(baseline)];
  const what = (r: RedisFigures) =>
    `${r.scriptCall}, ${r.over10} script call(s) of 10 ms or more in its round, longest command of any kind ${fixed(r.any, 2)} ms (${r.anyCall})`;
  return {
    figure: a.script,
    baseline: b.script,
    note: `longest of ${ROUNDS} round${ROUNDS === 1 ? "" : "s"}: ${what(a)}; baseline: ${what(b)}`,
  };
}

/** Exports of one site, with the JSON list walk in the same rounds; a fresh server (and redis-server). */
async function exportPart(storage: Storage): Promise<void> {
  const rigged = await startRig(storage, "export", configOf());
  try {
    progress(`${storage}: loading ${count(EXPORT_PRODUCTS)} products (one streamed NDJSON import, not measured)`);
    const loadStarted = performance.now();
    await load(
      rigged.server,
      EXPORT_SITE,
      EXPORT_PRODUCTS,
      bodyOf("ndjson", { products: 0, bytes: 0, lastLine: 0 }, { maxProducts: EXPORT_PRODUCTS }),
    );
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    progress(`  loaded in ${fixed(loadSeconds)} s (${count(Math.round(EXPORT_PRODUCTS / loadSeconds))} products/s)`);
    const first = generateProducts(1, SEED, 0)[0] as Product;
    const runs: Record<ExportCase, ExportRun[]> = { ndjson: [], csv: [], list: [] };
    const ratios: Record<"ndjson" | "csv", number[]> = { ndjson: [], csv: [] };
    const cases: readonly ExportCase[] = ["ndjson", "csv", "list"];
    for (let round = 0; round < ROUNDS; round++) {
      // The order turns each round, so no case is always the one after the other two.
      for (let k = 0; k < cases.length; k++) {
        const name = cases[(k + round) % cases.length] as ExportCase;
        const run = await runExportCase(rigged, name, first);
        runs[name].push(run);
        progress(
          `  round ${round + 1}, ${name}: ${count(Math.round(rate(run)))} products/s, ${describe(run.m, run.products, run.bytes)}`,
        );
      }
      const list = runs.list[round] as ExportRun;
      for (const format of ["ndjson", "csv"] as const)
        ratios[format].push(rate(runs[format][round] as ExportRun) / rate(list));
    }
    const list = medianRun(runs.list);
    const listName = `${EXPORT_LABEL.list} of the same site`;
    const size = `a site of ${count(EXPORT_PRODUCTS)} products`;
    for (const format of ["ndjson", "csv"] as const) {
      const run = medianRun(runs[format]);
      const subject = `${EXPORT_LABEL[format]} of ${size}, ${storage}, ${SERVER}`;
      emit({
        scenario: subject,
        figure: median(runs[format].map(rate)),
        unit: "products/s",
        baseline: { name: listName, figure: median(runs.list.map(rate)), unit: "products/s" },
        ratio: median(ratios[format]),
        note: `${rounds(ROUNDS)}; ${describe(run.m, run.products, run.bytes)}; longest GET /healthz by round: ${stalls(runs[format])}; list walk: ${describe(list.m, list.products, list.bytes)}; its longest GET /healthz by round: ${stalls(runs.list)}${stderrNote(rigged.server)}`,
      });
      const peaks = runs[format].map((r) => r.m.peakRss);
      emit({
        scenario: `server peak RSS during the ${EXPORT_LABEL[format]} of ${size}, ${storage}, ${SERVER}`,
        figure: megabytes(median(peaks)),
        unit: "MB",
        baseline: {
          name: "server RSS just before the export (the site loaded, idle)",
          figure: megabytes(median(runs[format].map((r) => r.m.rssBefore))),
          unit: "MB",
        },
        ratio: median(runs[format].map((r) => r.m.peakRss / r.m.rssBefore)),
        note: `${rounds(ROUNDS)}, ${hwmReset ? "VmHWM reset before each" : "highest of RSS samples every 50 ms (VmHWM could not be reset)"}; peaks ${peaks.map((p) => fixed(megabytes(p), 0)).join(", ")} MB; the list walk's peak ${fixed(megabytes(median(runs.list.map((r) => r.m.peakRss))), 0)} MB`,
      });
      if (run.m.redis !== undefined && list.m.redis !== undefined) {
        const call = longestCall(runs[format], runs.list);
        emit({
          scenario: `longest single Redis script call, ${EXPORT_LABEL[format]} of ${size}, ${SERVER}`,
          figure: call.figure,
          unit: "ms",
          baseline: { name: listName, figure: call.baseline, unit: "ms" },
          note: call.note,
        });
      }
    }
  } finally {
    await rigged.stop();
  }
}

/** The products of the replaced site, and the bodies every case sends. */
interface ReplaceData {
  /** All of them, as NDJSON: what each site holds before its case. */
  readonly loadBody: Buffer;
  /** Every product but each tenth (index 0, 10, 20...), as NDJSON. */
  readonly keptNdjson: Buffer;
  /** The same, as the `products` array of a bulk JSON envelope. */
  readonly keptJsonArray: string;
  readonly kept: number;
  readonly removed: number;
  readonly removedId: string;
  readonly keptId: string;
}

function replaceData(): ReplaceData {
  const products = generateProducts(REPLACE_PRODUCTS, SEED, 0);
  const kept = products.filter((_, i) => i % 10 !== 0);
  const ndjson = (list: readonly Product[]) => Buffer.from(list.map((p) => `${JSON.stringify(p)}\n`).join(""));
  return {
    loadBody: ndjson(products),
    keptNdjson: ndjson(kept),
    keptJsonArray: JSON.stringify(kept),
    kept: kept.length,
    removed: products.length - kept.length,
    removedId: (products[0] as Product).id,
    keptId: (products[1] as Product).id,
  };
}

const envelopeOf = (site: Site, array: string) =>
  Buffer.from(
    `{"siteId":${JSON.stringify(site.siteId)},"siteType":${JSON.stringify(site.siteType)},"products":${array}}`,
  );

interface ReplaceRun {
  readonly m: Measured;
  readonly products: number;
  readonly summary: Summary;
  /** What was checked afterwards, and whether it held. */
  readonly checks: string;
  readonly ok: boolean;
}

/** Loads a fresh site, then sends the 90 % as `body` with `mode`, measured; checks the site afterwards. */
async function runReplaceCase(
  rigged: Rig,
  data: ReplaceData,
  round: number,
  body: Body,
  mode: Mode,
  walk: boolean,
): Promise<ReplaceRun> {
  const { server } = rigged;
  const site = replaceSite(round, body, mode);
  await load(server, site, REPLACE_PRODUCTS, data.loadBody);
  const payload = body === "ndjson" ? data.keptNdjson : envelopeOf(site, data.keptJsonArray);
  const path =
    body === "ndjson"
      ? `${API}/bulk?${siteQuery(site)}&mode=${mode}`
      : `${API}/bulk${mode === "replace" ? "?mode=replace" : ""}`;
  const type = body === "ndjson" ? "application/x-ndjson" : "application/json";
  const { m, result } = await measure(rigged, () => post(server, TOKEN, path, type, payload));
  const summary = requireSummary(result, `${mode} ${body} on ${site.siteId}`, data.kept);
  const connection = new Connection(server.url, TOKEN);
  const removed = await connection.send("GET", `${API}/${data.removedId}?${siteQuery(site)}`);
  const kept = await connection.send("GET", `${API}/${data.keptId}?${siteQuery(site)}`);
  connection.close();
  const expected = mode === "replace" ? data.kept : REPLACE_PRODUCTS;
  const listed = walk ? (await walkList(server, site)).products : undefined;
  const checks = [
    mode === "replace" ? summary.deleted === data.removed : summary.deleted === undefined,
    mode === "replace"
      ? removed.status === 400 && problemCode(removed.body) === "PRODUCT_NOT_FOUND"
      : removed.status === 200,
    kept.status === 200,
    listed === undefined || listed === expected,
  ];
  const ok = checks.every(Boolean);
  return {
    m,
    products: data.kept,
    summary,
    ok,
    checks:
      `${ok ? "as expected" : "**NOT as expected**"}: ${summary.created} created, ${summary.updated} updated, ${summary.unchanged} unchanged, deleted ${summary.deleted ?? "absent"}` +
      `; then GET of a removed product: ${removed.status}${removed.status === 200 ? "" : ` ${problemCode(removed.body)}`}, of a kept one: ${kept.status}` +
      (listed === undefined ? "" : `; the list walk found ${count(listed)} products (expected ${count(expected)})`),
  };
}

const BODY_LABEL: Readonly<Record<Body, string>> = {
  ndjson: "raw NDJSON body (`Content-Type: application/x-ndjson`, streamed import)",
  json: "one bulk JSON envelope (`{ siteId, siteType, products }`)",
};

/** Replace against upsert of the same body into an equal fresh site, round after round; a fresh rig a round. */
async function replacePart(storage: Storage, data: ReplaceData): Promise<void> {
  const jsonBytes = envelopeOf(replaceSite(0, "json", "replace"), data.keptJsonArray).length;
  // The envelope is read whole: above the default limit, the limit goes up for this part.
  const maxBodyBytes =
    jsonBytes > DEFAULT_MAX_BODY_BYTES ? Math.ceil((jsonBytes + MB) / (16 * MB)) * 16 * MB : undefined;
  const limitNote =
    maxBodyBytes === undefined
      ? `every limit at its default (the envelope is ${fixed(megabytes(jsonBytes))} MiB)`
      : `limits.maxBodyBytes raised to ${fixed(megabytes(maxBodyBytes), 0)} MiB in the config file for this part (the envelope is ${fixed(megabytes(jsonBytes))} MiB, above the default 50 MiB); every other limit at its default`;
  const runs = new Map<string, ReplaceRun[]>();
  const ratios: Record<Body, number[]> = { ndjson: [], json: [] };
  let stderr = "";
  for (let round = 0; round < ROUNDS; round++) {
    const rigged = await startRig(storage, `replace round ${round + 1}`, configOf(maxBodyBytes));
    try {
      // Each case loads a site of its own in the same server; the order reverses every round,
      // so that the server's growing heap falls on replace and upsert alike.
      const order = round % 2 === 0 ? REPLACE_CASES : [...REPLACE_CASES].reverse();
      for (const [body, mode] of order) {
        const run = await runReplaceCase(rigged, data, round, body, mode, round === 0);
        const key = `${body} ${mode}`;
        runs.set(key, [...(runs.get(key) ?? []), run]);
        progress(
          `  round ${round + 1}, ${key}: ${count(Math.round(rate(run)))} products/s, ${describe(run.m, run.products)}; ${run.checks}`,
        );
        if (!run.ok) process.exitCode = 1;
      }
    } finally {
      stderr ||= stderrNote(rigged.server);
      await rigged.stop();
    }
    for (const body of ["ndjson", "json"] as const) {
      const replace = runs.get(`${body} replace`)?.[round] as ReplaceRun;
      const upsert = runs.get(`${body} upsert`)?.[round] as ReplaceRun;
      ratios[body].push(rate(replace) / rate(upsert));
    }
  }
  const what = `a site of ${count(REPLACE_PRODUCTS)} products with ${count(data.kept)} of them (every tenth gone)`;
  for (const body of ["ndjson", "json"] as const) {
    const replaces = runs.get(`${body} replace`) ?? [];
    const upserts = runs.get(`${body} upsert`) ?? [];
    const replace = medianRun(replaces);
    const upsert = medianRun(upserts);
    const baselineName = `mode=upsert of the same body into an equal fresh site of ${count(REPLACE_PRODUCTS)}`;
    const subject = `full sync: mode=replace of ${what}, ${BODY_LABEL[body]}, ${storage}, ${SERVER}`;
    const failed = [...replaces, ...upserts].filter((run) => !run.ok).length;
    emit({
      scenario: subject,
      figure: median(replaces.map(rate)),
      unit: "products/s",
      baseline: { name: baselineName, figure: median(upserts.map(rate)), unit: "products/s" },
      ratio: median(ratios[body]),
      note:
        `${rounds(ROUNDS)}; ${failed === 0 ? "" : `**${failed} case(s) NOT as expected**; `}${replace.checks}; ${describe(replace.m, replace.products)}` +
        `; upsert: ${upsert.checks}; ${describe(upsert.m, upsert.products)}; ${body === "json" ? limitNote : "every limit at its default"}${stderr}`,
    });
    if (replace.m.redis !== undefined && upsert.m.redis !== undefined) {
      const call = longestCall(replaces, upserts);
      emit({
        scenario: `longest single Redis script call, ${subject}`,
        figure: call.figure,
        unit: "ms",
        baseline: { name: baselineName, figure: call.baseline, unit: "ms" },
        note: call.note,
      });
    }
  }
}

let data: ReplaceData | undefined;
for (const storage of STORAGES) {
  if (!wanted(storage, "export") && !wanted(storage, "replace")) continue;
  if (!available(storage)) {
    emit({
      scenario: "export and replace on Redis",
      figure: null,
      unit: "",
      note: "not available: redis-server is not installed",
    });
    continue;
  }
  if (wanted(storage, "export")) await guarded(`export of a site, ${storage}`, () => exportPart(storage));
  if (wanted(storage, "replace")) {
    await guarded(`full sync (mode=replace), ${storage}`, async () => {
      progress(
        `${storage}: mode=replace and mode=upsert of ${count(Math.round(REPLACE_PRODUCTS * 0.9))} products into sites of ${count(REPLACE_PRODUCTS)}`,
      );
      data ??= replaceData();
      await replacePart(storage, data);
    });
  }
}
