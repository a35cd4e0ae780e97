// The ways products reach an import (bulk JSON, csvContent, single product, raw CSV, raw NDJSON,
// gzip), each an encoder from a list of product records (plain values, possibly invalid) to a
// request, and the normalizer that strips an answer of its locations (after mapping them back to
// the product they name), so that the answers of every channel can be compared.
import { gzipSync } from "node:zlib";
import { PRODUCT_FIELDS, REQUIRED_FIELDS, type Site } from "@catalog-kit/catalog-core";

export const CHANNELS = ["bulk", "single", "csvContent", "csv", "csv.gz", "ndjson", "ndjson.gz"] as const;
export type Channel = (typeof CHANNELS)[number];
export const CSV_CHANNELS: readonly Channel[] = ["csvContent", "csv", "csv.gz"];
/** Channels whose locations are JSON pointers into the product (bulk, single, NDJSON). */
const POINTER_CHANNELS: ReadonlySet<Channel> = new Set(["bulk", "single", "ndjson", "ndjson.gz"]);

/** Query options of an import. */
export interface ImportQuery {
  readonly dryRun?: boolean;
  readonly mode?: "replace" | "merge";
  readonly missing?: "error" | "skip" | "create";
  readonly allowEmpty?: boolean;
}

/** How the CSV and NDJSON texts are laid out (every layout the contract allows reads the same). */
export interface Layout {
  readonly bom?: boolean;
  readonly crlf?: boolean;
  /** A blank line after the header and after every record. */
  readonly blankLines?: boolean;
  /** Default true. */
  readonly finalNewline?: boolean;
}

/** A CSV document given as text, for CSV channels; `rows[i]` is the row of product `i` when known. */
export interface CsvText {
  readonly text: string;
  readonly rows?: readonly number[];
}

/** A built request and where it put each product (row of CSV, line of NDJSON). */
export interface Built {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string | Uint8Array;
  readonly positions?: readonly number[] | undefined;
}

const BULK = "/external/product/v1/bulk";
const NUMBER = /^-?\d+(?:\.\d+)?$/;
const HUGE = `1${"0".repeat(400)}`; // plain decimal past the largest double: JSON and CSV both read Infinity
const PLUS_INF = "@@one-answer:+Infinity@@";
const MINUS_INF = "@@one-answer:-Infinity@@";

/** JSON text of a value, with ±Infinity written as a number literal that parses back to it. */
export function toJson(value: unknown): string {
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== "number" || Number.isFinite(v)) return v;
    if (Number.isNaN(v)) throw new Error("NaN cannot be sent in any channel: fix the case");
    return v > 0 ? PLUS_INF : MINUS_INF;
  });
  return text.replaceAll(`"${PLUS_INF}"`, HUGE).replaceAll(`"${MINUS_INF}"`, `-${HUGE}`);
}

const FIELDS: ReadonlySet<string> = new Set(PRODUCT_FIELDS);
const REQUIRED: ReadonlySet<string> = new Set(REQUIRED_FIELDS);
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The CSV cell of a value, only when reading the cell back (the README's CSV rules: plain decimal
 * numbers, true/false, images as a JSON array, an empty cell = absent) gives that very value;
 * `undefined` otherwise. `raw`: the document travels as UTF-8 bytes (no lone surrogates).
 */
function csvCell(field: string, value: unknown, raw: boolean): string | undefined {
  switch (field) {
    case "price":
    case "price_min":
    case "price_max": {
      if (typeof value !== "number" || Number.isNaN(value)) return undefined;
      if (!Number.isFinite(value)) return value > 0 ? HUGE : `-${HUGE}`;
      const text = String(value);
      return NUMBER.test(text) && Number(text) === value ? text : undefined;
    }
    case "available":
      return typeof value === "boolean" ? String(value) : undefined;
    case "images": {
      if (!Array.isArray(value)) return undefined;
      const text = toJson(value);
      return JSON.stringify(JSON.parse(text)) === JSON.stringify(value) ? text : undefined;
    }
    default:
      if (!FIELDS.has(field) || typeof value !== "string" || value === "") return undefined;
      return raw && !value.isWellFormed() ? undefined : value;
  }
}

const quote = (cell: string) => (/[",\r\n]|^\s|\s$/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell);
const newlines = (text: string) => text.split("\n").length - 1;

/** The CSV document of the records (header: required fields and every field given, in schema order), or `undefined`. */
export function toCsv(records: readonly unknown[], layout: Layout = {}, raw = true): CsvText | undefined {
  if (!records.every(isRecord)) return undefined;
  const columns = PRODUCT_FIELDS.filter((f) => REQUIRED.has(f) || records.some((r) => Object.hasOwn(r, f)));
  const eol = layout.crlf ? "\r\n" : "\n";
  const lines: string[] = [columns.join(",")];
  const rows: number[] = [];
  let row = 2;
  for (const record of records) {
    if (Object.keys(record).some((key) => !FIELDS.has(key))) return undefined;
    if (layout.blankLines) {
      lines.push("");
      row++;
    }
    const cells: string[] = [];
    for (const column of columns) {
      if (!Object.hasOwn(record, column)) {
        cells.push("");
        continue;
      }
      const cell = csvCell(column, record[column], raw);
      if (cell === undefined) return undefined;
      cells.push(quote(cell));
    }
    rows.push(row);
    lines.push(cells.join(","));
    row += 1 + cells.reduce((n, cell) => n + newlines(cell), 0);
  }
  return { text: lay(lines, layout, eol), rows };
}

/** The NDJSON text of the records, one a line, and the line of each. */
export function toNdjson(records: readonly unknown[], layout: Layout = {}): CsvText {
  const lines: string[] = [];
  const positions: number[] = [];
  for (const record of records) {
    if (layout.blankLines) lines.push("");
    positions.push(lines.length + 1);
    lines.push(toJson(record));
  }
  return { text: lay(lines, layout, layout.crlf ? "\r\n" : "\n"), rows: positions };
}

function lay(lines: readonly string[], layout: Layout, eol: string): string {
  const body = lines.join(eol) + (layout.finalNewline === false || lines.length === 0 ? "" : eol);
  return (layout.bom ? "\uFEFF" : "") + body;
}

function queryOf(query: ImportQuery, site?: Site): string {
  const params = new URLSearchParams(site === undefined ? {} : { siteId: site.siteId, siteType: site.siteType });
  if (query.dryRun !== undefined) params.set("dryRun", String(query.dryRun));
  if (query.mode !== undefined) params.set("mode", query.mode);
  if (query.missing !== undefined) params.set("missing", query.missing);
  if (query.allowEmpty !== undefined) params.set("allowEmpty", String(query.allowEmpty));
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}

const JSON_TYPE = { "content-type": "application/json" };

/** What one case sends: products (encoded per channel), and/or a CSV text for the CSV channels. */
export interface Payload {
  readonly products?: readonly unknown[];
  readonly csv?: CsvText;
  readonly layout?: Layout;
  readonly query?: ImportQuery;
}

/** The request of `channel` for the payload, or `undefined` when the channel cannot carry it. */
export function build(channel: Channel, payload: Payload, site: Site): Built | undefined {
  const { products, layout = {}, query = {} } = payload;
  const isCsv = CSV_CHANNELS.includes(channel);
  const csv = isCsv ? (payload.csv ?? (products && toCsv(products, layout, channel !== "csvContent"))) : undefined;
  if (isCsv && csv === undefined) return undefined;
  if (!isCsv && products === undefined) return undefined;
  const records = products ?? [];
  const gzip = channel.endsWith(".gz");
  const encode = (body: string) => (gzip ? gzipSync(body) : body);
  const zipped: Record<string, string> = gzip ? { "content-encoding": "gzip" } : {};
  switch (channel) {
    case "bulk":
      return { path: BULK + queryOf(query), headers: JSON_TYPE, body: toJson({ ...site, products: records }) };
    case "single": {
      if (records.length !== 1 || query.mode !== undefined || query.allowEmpty !== undefined) return undefined;
      const path = `/external/product/v1${queryOf(query)}`;
      return { path, headers: JSON_TYPE, body: toJson({ ...site, product: records[0] }) };
    }
    case "csvContent": {
      const body = toJson({ ...site, csvContent: csv?.text });
      return { path: `${BULK}/csv${queryOf(query)}`, headers: JSON_TYPE, body, positions: csv?.rows };
    }
    case "csv":
    case "csv.gz": {
      const headers = { "content-type": "text/csv", ...zipped };
      const body = encode((csv as CsvText).text);
      return { path: `${BULK}/csv${queryOf(query, site)}`, headers, body, positions: csv?.rows };
    }
    case "ndjson":
    case "ndjson.gz": {
      const { text, rows } = toNdjson(records, layout);
      const headers = { "content-type": "application/x-ndjson", ...zipped };
      return { path: BULK + queryOf(query, site), headers, body: encode(text), positions: rows };
    }
  }
}

/** A problem entry with its location replaced by the product it names: `index`, `field`, and `path` for pointers. */
export type Entry = Record<string, unknown>;

const unescapeSegment = (segment: string) => segment.replaceAll("~1", "/").replaceAll("~0", "~");

// `/a/b` -> { field: "a", path: "/a/b" }; "" -> {}.
function inProduct(pointer: string): Entry {
  if (pointer === "") return {};
  const [, first = ""] = pointer.split("/");
  return { field: unescapeSegment(first), path: pointer };
}

/** An entry of `errors` with its location mapped back to the product and field (unmappable locations are kept). */
export function normalizeEntry(channel: Channel, entry: Entry, positions: readonly number[] = []): Entry {
  const { pointer, row, column, line, ...rest } = entry;
  if (channel === "bulk" && typeof pointer === "string" && row === undefined && line === undefined) {
    const found = /^\/products\/(\d+)((?:\/.*)?)$/.exec(pointer);
    if (found) return { index: Number(found[1]), ...inProduct(found[2] as string), ...rest };
  }
  if (channel === "single" && typeof pointer === "string" && row === undefined && line === undefined) {
    const found = /^\/product((?:\/.*)?)$/.exec(pointer);
    if (found) return { index: 0, ...inProduct(found[1] as string), ...rest };
  }
  if (CSV_CHANNELS.includes(channel) && typeof row === "number" && pointer === undefined && line === undefined) {
    const index = positions.indexOf(row);
    if (index !== -1) return { index, ...(column === undefined ? {} : { field: column }), ...rest };
  }
  if (channel.startsWith("ndjson") && typeof line === "number" && typeof pointer === "string" && row === undefined) {
    const index = positions.indexOf(line);
    if (index !== -1) return { index, ...inProduct(pointer), ...rest };
  }
  return entry;
}

const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    isRecord(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );

/** What every channel must agree on: status and body, `instance` left out, `errors` located by product and sorted. */
export interface Comparable {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/**
 * The answer, normalized. `withPaths`: keep the pointer inside the product (`path`), which only
 * pointer channels have; without it, entries say `index` and `field` (the CSV column) only.
 */
export function normalize(
  channel: Channel,
  status: number,
  body: Record<string, unknown>,
  positions: readonly number[] | undefined,
  withPaths: boolean,
): Comparable {
  const { instance: _instance, errors, ...rest } = body;
  if (!Array.isArray(errors)) return { status, body: rest };
  const entries = (errors as Entry[]).map((entry) => {
    const { path, ...normalized } = normalizeEntry(channel, entry, positions);
    return withPaths && POINTER_CHANNELS.has(channel) && path !== undefined ? { ...normalized, path } : normalized;
  });
  entries.sort((a, b) => (canonical(a) < canonical(b) ? -1 : canonical(a) > canonical(b) ? 1 : 0));
  return { status, body: { ...rest, errorsListed: errors.length, errors: entries } };
}

export const isPointerChannel = (channel: Channel) => POINTER_CHANNELS.has(channel);
