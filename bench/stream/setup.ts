// What every part of the streamed-import scenario shares: the options, the body's budget, the
// token, the sites the configuration lists (one a case) and how figures are written.
import type { Site } from "@catalog-kit/catalog-core";
import { benchOptions } from "../options.ts";

/** The command line of the scenario (options.ts). */
export const { quick, only, sizes, cpuRows } = benchOptions();
/** Bytes in a MB as the rows count them (2^20). */
export const MB = 1_048_576;
/** The server's default `limits.maxStreamBytes` (1 GiB): a full-size body comes as close as a line allows. */
const MAX_STREAM_BYTES = 1_073_741_824;
/** Bytes a body may hold: `--size N` MB, else 1 GiB (4 MB with --quick). */
export const budget = Math.min(MAX_STREAM_BYTES, (sizes?.[0] ?? (quick ? 4 : 1_024)) * MB);
/** The body's budget as the rows' short names give it: "1 GiB", "4 MB". */
export const BUDGET_LABEL = budget % (1_024 * MB) === 0 ? `${budget / (1_024 * MB)} GiB` : `${budget / MB} MB`;
/** The access token of every case. */
export const TOKEN = "bench-stream-token";
/** The product API's prefix. */
export const API = "/external/product/v1";

/** The cases of the scenario, as `--only` names them. */
export type CaseName = "ndjson" | "key" | "csv" | "shopify" | "google-rss" | "gzip" | "bad-row" | "cli" | "history";
/** Every case, in the order `--only` accepts them. */
export const CASES: readonly CaseName[] = [
  "ndjson",
  "key",
  "csv",
  "shopify",
  "google-rss",
  "gzip",
  "bad-row",
  "cli",
  "history",
];

// Every case writes into a site of its own, all listed in the configuration (the history's rounds
// take one each).
const SITES: readonly Site[] = Array.from({ length: 48 }, (_, i) => ({ siteType: "bench", siteId: `s${i + 1}` }));
let nextSite = 0;

/** A site no case has written into yet. */
export function takeSite(): Site {
  const site = SITES[nextSite++];
  if (site === undefined) throw new Error("more cases than configured sites");
  return site;
}

/** The server's configuration around a storage section: every site, one token for all of them. */
export function configOf(storage: object): object {
  return { sites: SITES, tokens: [{ token: TOKEN, sites: SITES }], storage };
}

/** Bytes as MB. */
export const megabytes = (bytes: number) => bytes / MB;
/** A figure with `digits` decimals. */
export const fixed = (value: number, digits = 1) => value.toFixed(digits);
/** A count with thousands separators. */
export const count = (value: number) => value.toLocaleString("en-US");
