// What both parts of the sync scenario share: the options and sizes, the sites the configuration
// lists, how a site is loaded (not measured) and walked with the JSON list, and small helpers.
import type { Site } from "@catalog-kit/catalog-core";
import { type Answer, bodyOf, post } from "../body.ts";
import { Connection } from "../client.ts";
import { benchOptions } from "../options.ts";
import { progress } from "../report.ts";
import type { Standalone } from "../standalone.ts";

/** The command line of the scenario (options.ts). */
export const { quick, only, sizes } = benchOptions();
/** Bytes in a MB as the rows count them (2^20). */
export const MB = 1_048_576;
/** Products of the exported site: `--size N` (the first), else 1,000,000 (5,000 with --quick). */
export const EXPORT_PRODUCTS = sizes?.[0] ?? (quick ? 5_000 : 1_000_000);
/**
 * Products of the replaced site: `--size N` (the second), else 100,000 (4,000 with --quick: the
 * 3,600 kept still span two of the engine's chunks of 3,000, and a quick run loads four such sites
 * on each of three storages, which at 10,000 was about half of the scenario's time).
 */
export const REPLACE_PRODUCTS = sizes?.[1] ?? (quick ? 4_000 : 100_000);
/** Products of the merged site: `--size N` (the third), else 1,000,000 (5,000 with --quick). */
export const MERGE_PRODUCTS = sizes?.[2] ?? (quick ? 5_000 : 1_000_000);
/**
 * Products of the site the single part imports one product at a time into: `--size N` (the
 * fourth), else 1,000,000 (5,000 with --quick).
 */
export const SINGLE_PRODUCTS = sizes?.[3] ?? (quick ? 5_000 : 1_000_000);
/** Rounds of each part: every case once a round, in turn. */
export const ROUNDS = quick ? 1 : 3;
/** Rounds of the merge part: each case of it streams a whole site of a million products. */
export const MERGE_ROUNDS = quick ? 1 : 2;
/** Products per page of the list walk: the most a page may hold, and the export's own page. */
export const PAGE = 1_000;
/** The server's default `limits.maxBodyBytes` (50 MiB). */
export const DEFAULT_MAX_BODY_BYTES = 52_428_800;
/** The access token of every case. */
export const TOKEN = "bench-sync-token";
/** The site type of every site. */
export const SITE_TYPE = "bench";
/** The product API's prefix. */
export const API = "/external/product/v1";

/** The parts, as `--only` names them. */
export type Part = "export" | "replace" | "merge" | "single";
/** How a site is read back: the export in either format, or the JSON list walk. */
export type ExportCase = "ndjson" | "csv" | "list";
/** How a replaced site is sent: a raw NDJSON body or one bulk JSON envelope. */
export type Body = "ndjson" | "json";
/** The import mode of a case. */
export type Mode = "replace" | "upsert";

/** Every part, in the order they run. */
export const PARTS: readonly Part[] = ["export", "replace", "merge", "single"];

/** Bytes as MB. */
export const megabytes = (bytes: number) => bytes / MB;
/** A figure with `digits` decimals. */
export const fixed = (value: number, digits = 1) => value.toFixed(digits);
/** A count with thousands separators. */
export const count = (value: number) => value.toLocaleString("en-US");
/** The middle value (mean of the two middle ones for an even count). */
export const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
/** The query that names `site`. */
export const siteQuery = (site: Site) =>
  `siteId=${encodeURIComponent(site.siteId)}&siteType=${encodeURIComponent(site.siteType)}`;

// The export's site, four sites a round for the replace (one per case, each loaded afresh), the
// merge's site and the single part's.
/** The site the export part loads and reads back. */
export const EXPORT_SITE: Site = { siteType: SITE_TYPE, siteId: "export" };
/** The site the merge part loads, then imports again and merges into, round after round. */
export const MERGE_SITE: Site = { siteType: SITE_TYPE, siteId: "merge" };
/** The site the single part loads, then imports one product at a time into. */
export const SINGLE_SITE: Site = { siteType: SITE_TYPE, siteId: "single" };
/** The cases of the replace part, each into a site of its own a round. */
export const REPLACE_CASES: readonly (readonly [Body, Mode])[] = [
  ["ndjson", "replace"],
  ["ndjson", "upsert"],
  ["json", "replace"],
  ["json", "upsert"],
];
/** A replace case's site in `round`. */
export const replaceSite = (round: number, body: Body, mode: Mode): Site => ({
  siteType: SITE_TYPE,
  siteId: `r${round}-${body}-${mode}`,
});
/** Every site the configuration lists. */
export const SITES: readonly Site[] = [
  EXPORT_SITE,
  MERGE_SITE,
  SINGLE_SITE,
  ...Array.from({ length: ROUNDS }, (_, round) =>
    REPLACE_CASES.map(([body, mode]) => replaceSite(round, body, mode)),
  ).flat(),
];

/** The server's configuration around a storage section, `limits.maxBodyBytes` raised when given. */
export function configOf(maxBodyBytes?: number): (storage: object) => object {
  return (storage) => ({
    sites: SITES,
    tokens: [{ token: TOKEN, sites: SITES }],
    storage,
    ...(maxBodyBytes === undefined ? {} : { limits: { maxBodyBytes } }),
  });
}

/** The counts an import answers with. */
export interface Summary {
  total?: number;
  created?: number;
  updated?: number;
  unchanged?: number;
  deleted?: number;
  skipped?: number;
}

/** An import's counts; throws unless it was answered 200 with `total` products. */
export function requireSummary(answer: Answer, what: string, total: number): Summary {
  const summary = answer.status === 200 ? (JSON.parse(answer.body) as Summary) : undefined;
  if (summary?.total !== total) {
    throw new Error(`${what}: answer ${answer.status} ${answer.body.slice(0, 500)} (expected ${total} products)`);
  }
  return summary;
}

/** Loads `n` products into a site with one NDJSON body (streamed, or a prepared Buffer): not measured. */
export async function load(
  server: Standalone,
  site: Site,
  n: number,
  body: Buffer | AsyncIterable<Buffer>,
): Promise<void> {
  const answer = await post(server, TOKEN, `${API}/bulk?${siteQuery(site)}`, "application/x-ndjson", body);
  requireSummary(answer, `loading ${site.siteId}`, n);
}

/** Loads a site of `n` generated products by one streamed NDJSON import (not measured), saying how long it took. */
export async function loadGenerated(server: Standalone, storage: string, site: Site, n: number): Promise<void> {
  progress(`${storage}: loading ${count(n)} products (one streamed NDJSON import, not measured)`);
  const started = performance.now();
  await load(server, site, n, bodyOf("ndjson", { products: 0, bytes: 0, lastLine: 0 }, { maxProducts: n }));
  const seconds = (performance.now() - started) / 1000;
  progress(`  loaded in ${fixed(seconds)} s (${count(Math.round(n / seconds))} products/s)`);
}

/** Walks the site with the JSON list, `PAGE` a page, cursor after cursor; returns products and bytes seen. */
export async function walkList(
  server: Standalone,
  site: Site,
): Promise<{ products: number; bytes: number; pages: number }> {
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
