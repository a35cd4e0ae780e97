// The export part of the sync scenario: a loaded site read back whole as NDJSON and as CSV,
// against the JSON list walk of the same site in the same rounds.
import { request } from "node:http";
import { PRODUCT_FIELDS, type Product, type Site } from "@catalog-kit/catalog-core";
import { SEED } from "../body.ts";
import { generateProducts } from "../data.ts";
import { emit, type NamedBaseline, progress } from "../report.ts";
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
  stalls,
  stderrNote,
} from "./measure.ts";
import {
  API,
  configOf,
  count,
  EXPORT_PRODUCTS,
  EXPORT_SITE,
  type ExportCase,
  fixed,
  loadGenerated,
  median,
  megabytes,
  PAGE,
  ROUNDS,
  siteQuery,
  TOKEN,
  walkList,
} from "./setup.ts";

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

/** An export's short name: its format, the site's size, the storage. */
export const exportName = (format: "ndjson" | "csv", storage: Storage) =>
  `export ${format === "ndjson" ? "NDJSON" : "CSV"} ${count(EXPORT_PRODUCTS)}, ${storage}`;

/** Exports of one site, with the JSON list walk in the same rounds; a fresh server (and redis-server). */
export async function exportPart(storage: Storage): Promise<void> {
  const rigged = await startRig(storage, "export", configOf());
  try {
    await loadGenerated(rigged.server, storage, EXPORT_SITE, EXPORT_PRODUCTS);
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
    const listRun = medianRun(runs.list);
    const list: NamedBaseline = { label: "JSON list walk", name: `${EXPORT_LABEL.list} of the same site` };
    const size = `a site of ${count(EXPORT_PRODUCTS)} products`;
    for (const format of ["ndjson", "csv"] as const) {
      const run = medianRun(runs[format]);
      const subject = `${EXPORT_LABEL[format]} of ${size}, ${storage}, ${SERVER}`;
      const short = exportName(format, storage);
      emit({
        name: short,
        scenario: subject,
        figure: median(runs[format].map(rate)),
        unit: "products/s",
        baseline: { ...list, figure: median(runs.list.map(rate)), unit: "products/s" },
        ratio: median(ratios[format]),
        note: `${rounds(ROUNDS)}; ${describe(run.m, run.products, run.bytes)}; longest GET /healthz by round: ${stalls(runs[format])}; list walk: ${describe(listRun.m, listRun.products, listRun.bytes)}; its longest GET /healthz by round: ${stalls(runs.list)}${stderrNote(rigged.server)}`,
      });
      const peaks = runs[format].map((r) => r.m.peakRss);
      emit({
        name: `peak RSS, ${short}`,
        scenario: `server peak RSS during the ${EXPORT_LABEL[format]} of ${size}, ${storage}, ${SERVER}`,
        figure: megabytes(median(peaks)),
        unit: "MB",
        baseline: {
          label: "RSS before",
          name: "server RSS just before the export (the site loaded, idle)",
          figure: megabytes(median(runs[format].map((r) => r.m.rssBefore))),
          unit: "MB",
        },
        ratio: median(runs[format].map((r) => r.m.peakRss / r.m.rssBefore)),
        note: `${rounds(ROUNDS)}, ${hwmWasReset() ? "VmHWM reset before each" : "highest of RSS samples every 50 ms (VmHWM could not be reset)"}; peaks ${peaks.map((p) => fixed(megabytes(p), 0)).join(", ")} MB; the list walk's peak ${fixed(megabytes(median(runs.list.map((r) => r.m.peakRss))), 0)} MB`,
      });
      if (run.m.redis !== undefined && listRun.m.redis !== undefined) {
        const call = longestCall(runs[format], runs.list);
        emit({
          name: `longest script call, ${short}`,
          scenario: `longest single Redis script call, ${EXPORT_LABEL[format]} of ${size}, ${SERVER}`,
          figure: call.figure,
          unit: "ms",
          baseline: { ...list, figure: call.baseline, unit: "ms" },
          note: call.note,
        });
      }
    }
  } finally {
    await rigged.stop();
  }
}
