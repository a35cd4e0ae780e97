// The import history's cases over HTTP: the five channels an import comes by, each sending one
// product, and the four outcomes of an import with what each one's record holds.
import type { ImportRecord } from "@catalog-kit/catalog-core";
import { expect } from "vitest";
import { SITE_A } from "./test-server.ts";

/** Where the product API lives. */
export const BASE = "/external/product/v1";
/** The query naming SITE_A, the site the cases import to. */
export const QUERY = `siteId=${SITE_A.siteId}&siteType=${SITE_A.siteType}`;
const CSV_HEADER = "id,sku,title,available,featured_image,url,price";

type Item = Record<string, unknown>;
/** A request an import channel sends. */
export interface Sent {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

const csvOf = (item: Item) =>
  `${CSV_HEADER}\n${[item.id, item.sku, item.title, item.available, item.featured_image, item.url, item.price].join(",")}\n`;
const jsonBody = (body: object) => ({
  "content-type": "application/json",
  body: JSON.stringify({ ...SITE_A, ...body }),
});

/** The five channels: how each sends one product, with `extra` query parameters; and what its record says it was. */
export const CHANNELS: readonly [
  string,
  ImportRecord["channel"],
  ImportRecord["format"],
  (item: Item, extra: string) => Sent,
][] = [
  [
    "a JSON list",
    "body",
    "products",
    (item, extra) => {
      const { body, ...headers } = jsonBody({ products: [item] });
      return { path: `${BASE}/bulk?${extra}`, headers, body };
    },
  ],
  [
    "a csvContent",
    "body",
    "csv",
    (item, extra) => {
      const { body, ...headers } = jsonBody({ csvContent: csvOf(item) });
      return { path: `${BASE}/bulk/csv?${extra}`, headers, body };
    },
  ],
  [
    "one product",
    "body",
    "product",
    (item, extra) => {
      const { body, ...headers } = jsonBody({ product: item });
      return { path: `${BASE}?${extra}`, headers, body };
    },
  ],
  [
    "a raw CSV",
    "stream",
    "csv",
    (item, extra) => ({
      path: `${BASE}/bulk/csv?${QUERY}&${extra}`,
      headers: { "content-type": "text/csv" },
      body: csvOf(item),
    }),
  ],
  [
    "a raw NDJSON",
    "stream",
    "ndjson",
    (item, extra) => ({
      path: `${BASE}/bulk?${QUERY}&${extra}`,
      headers: { "content-type": "application/x-ndjson" },
      body: `${JSON.stringify(item)}\n`,
    }),
  ],
];

/** The outcomes each channel is recorded with. */
export const OUTCOMES = ["succeeded", "failed validation", "dry run", "replayed"] as const;
/** One of `OUTCOMES`. */
export type Outcome = (typeof OUTCOMES)[number];
const CREATED_ONE = { total: 1, created: 1, updated: 0, unchanged: 0 };

/** What the record of each outcome holds, beyond its channel and format. */
export const EXPECTED: Record<Outcome, Partial<ImportRecord> & Record<string, unknown>> = {
  succeeded: { state: "succeeded", mode: "upsert", dryRun: false, counts: CREATED_ONE, problemCount: 0, problems: [] },
  "failed validation": {
    state: "failed",
    mode: "upsert",
    dryRun: false,
    error: { code: "VALIDATION_FAILED", message: expect.any(String) },
    problemCount: 1,
  },
  "dry run": { state: "succeeded", mode: "upsert", dryRun: true, counts: CREATED_ONE, problemCount: 0 },
  replayed: { state: "succeeded", mode: "upsert", dryRun: false, counts: CREATED_ONE, replayed: true, problemCount: 0 },
};
