// Imports over HTTP: a JSON envelope (one product, a list, CSV text) read whole under the
// fairness rules and applied under the import limiter, or a raw CSV, TSV, XML or NDJSON body
// streamed into the catalog while it arrives.
import type { Hash } from "node:crypto";
import {
  type BulkImportOptions,
  type Catalog,
  CatalogError,
  type DocumentImportOptions,
  type ImportMode,
  type ImportSummary,
  type MissingPolicy,
  type Site,
  type StreamFormat,
} from "@catalog-kit/catalog-core";
import { admittedBody } from "./admitted-body.ts";
import { isGzip, parseJson } from "./body.ts";
import { checkDeclaredSize, readBody, streamBody } from "./body-stream.ts";
import type { RequestContext } from "./context.ts";
import { readEnvelope } from "./envelope.ts";
import { bodyHash, REPLAYED_HEADER, readKey, requestFingerprint } from "./idempotency-key.ts";
import type { ImportRecord } from "./log-entry.ts";
import type { EnvelopeField } from "./operation.ts";
import { READING } from "./query-params.ts";
import { invalidQuery, parseFlag } from "./request-target.ts";
import { requestSite } from "./site-access.ts";
import { sendJson, summaryText } from "./success.ts";

// What a streamed body holds in memory at most (a chunk of products being staged, and the bytes
// decoded ahead), counted against the body budget in place of its size, which it never holds; a
// budget smaller than twice this counts it as half the budget (admission.ts).
const STREAM_RESERVATION = 16 * 1024 * 1024;
const DEPRECATION: Readonly<Record<string, string>> = { deprecation: "true" };

type ImportCall = BulkImportOptions & DocumentImportOptions;

// The catalog's import of each envelope field.
const APPLY: Readonly<
  Record<EnvelopeField, (catalog: Catalog, site: Site, payload: unknown, options: ImportCall) => Promise<ImportSummary>>
> = {
  product: (catalog, site, payload, options) => catalog.importProduct(site, payload, options),
  products: (catalog, site, payload, options) => catalog.importProducts(site, payload, options),
  csvContent: (catalog, site, payload, options) => catalog.importCsv(site, payload, options),
};

// The options of an import from its query, with who sent it for its record; the catalog checks
// `mode` and `missing` (given without a merge too) and names them when they are bad.
function importOptions(ctx: RequestContext): BulkImportOptions {
  const { params } = ctx;
  const dryRun = parseFlag("dryRun", params.dryRun);
  const allowEmpty = parseFlag("allowEmpty", params.allowEmpty);
  const { mode, missing } = params;
  return {
    dryRun,
    allowEmpty,
    requestId: ctx.requestId,
    ...(ctx.grant.name === "" ? {} : { tokenName: ctx.grant.name }),
    ...(mode === undefined ? {} : { mode: mode as ImportMode }),
    ...(missing === undefined ? {} : { missing: missing as MissingPolicy }),
  };
}

// How the document is read, from the query, as given: the catalog checks every value, and the
// parameters a profile needs, before it reads a byte. A body that is no document (a product list,
// one product, NDJSON) is no platform's file: a reading option there would be silently unused.
function readingOptions(params: Readonly<Record<string, string>>, document: boolean): DocumentImportOptions {
  const options: Record<string, string> = {};
  for (const { name } of READING) {
    const value = params[name];
    if (value === undefined) continue;
    if (!document) {
      throw invalidQuery(
        name,
        `Query parameter ${name} says how a CSV, TSV or XML document is read; this body is none (send the platform's file as text/csv, text/tab-separated-values, XML or csvContent)`,
      );
    }
    options[name] = value;
  }
  return options as DocumentImportOptions;
}

// The options with the request's idempotency key and its fingerprint, once `hash` has read the body.
function keyed(
  ctx: RequestContext,
  site: Site,
  options: ImportCall,
  key: string | undefined,
  hash: Hash | undefined,
): ImportCall {
  if (key === undefined || hash === undefined) return options;
  const { mode, missing, dryRun = false, allowEmpty = false } = options;
  const keyedRequest = { mode, missing, dryRun, allowEmpty, reading: ctx.params };
  const fingerprint = () => requestFingerprint(ctx.req, ctx.path, site, keyedRequest, hash);
  return { ...options, idempotencyKey: key, fingerprint };
}

// A document's prices are in the site's configured currency unless the request names one: a feed
// of that site then needs no `currency` parameter.
function priced<T extends DocumentImportOptions>(ctx: RequestContext, site: Site, options: T): T {
  if (options.currency !== undefined) return options;
  const currency = ctx.services.siteCurrency(site);
  return currency === undefined ? options : { ...options, currency };
}

// Sends an import's summary; an answer given again from a record says so.
function sendSummary(ctx: RequestContext, summary: ImportSummary): void {
  const headers = summary.replayed ? { ...ctx.headers, ...REPLAYED_HEADER } : ctx.headers;
  sendJson(ctx.res, summaryText(summary), ctx.requestId, headers);
}

// An envelope's body is read outside the import limiter: a slow client holds a place of its own
// token and bytes of the budget, never the limiter's slots that every token's imports need.
async function importEnvelope(ctx: RequestContext, field: EnvelopeField): Promise<void> {
  const { req, res, services } = ctx;
  const options = { ...importOptions(ctx), ...readingOptions(ctx.params, field === "csvContent") };
  const key = readKey(req);
  const hash = key === undefined ? undefined : bodyHash();
  const gzip = isGzip(req);
  const limit = services.maxBodyBytes;
  const declared = checkDeclaredSize(req, limit);
  // The token's import bytes are counted before its place to read is waited for: a refusal costs no wait.
  const check = services.rates.body(ctx, declared);
  const release = await services.admission.admit(ctx.grant, Number.isSafeInteger(declared) ? declared : limit, req);
  try {
    const record: ImportRecord = { format: field === "csvContent" ? "csv" : "json", bytes: 0 };
    const body = await readBody(req, res, { limit, idleMs: services.idleMs, gzip, tally: record, hash, check });
    ctx.import = record;
    await services.imports.run(() => applyEnvelope(ctx, field, options, body, record, key, hash));
  } finally {
    release();
  }
}

async function applyEnvelope(
  ctx: RequestContext,
  field: EnvelopeField,
  options: ImportCall,
  body: Buffer,
  record: ImportRecord,
  key: string | undefined,
  hash: Hash | undefined,
): Promise<void> {
  const envelope = readEnvelope(parseJson(body), field);
  if (envelope.deprecated) ctx.headers = ctx.headers === undefined ? DEPRECATION : { ...ctx.headers, ...DEPRECATION };
  if (envelope.problems.length > 0) {
    throw new CatalogError("VALIDATION_FAILED", "Invalid request body", { problems: envelope.problems });
  }
  const site = requestSite(ctx, { body: envelope });
  // The body's bytes as received (compressed, when it was), for the import's record.
  const applied = { ...keyed(ctx, site, priced(ctx, site, options), key, hash), bytesReceived: record.bytes };
  // An envelope names its site in its body: its place among the site's imports is taken once read.
  const leave = ctx.services.rates.enterImport(ctx, site);
  try {
    record.summary = await APPLY[field](ctx.services.catalog, site, envelope.payload, applied);
  } finally {
    leave?.();
  }
  sendSummary(ctx, record.summary);
}

// A raw CSV, TSV, XML or NDJSON body, imported while it arrives: it holds a place of its token's uploads
// from first byte to commit, and never more memory than a chunk, whatever its size. The place is
// asked for when the catalog first reads the body, after a key's claim.
async function importStream(ctx: RequestContext, format: StreamFormat): Promise<void> {
  const { req, res, services, params } = ctx;
  const key = readKey(req);
  const hash = key === undefined ? undefined : bodyHash();
  // Refused before a byte is read: the catalog would say so only once it reads the body.
  const site = requestSite(ctx, { catalog: services.catalog });
  const reading = priced(ctx, site, readingOptions(params, format !== "ndjson"));
  const options = { ...keyed(ctx, site, { ...importOptions(ctx), ...reading }, key, hash), format };
  const gzip = isGzip(req);
  const declared = checkDeclaredSize(req, services.maxStreamBytes);
  const leave = services.rates.enterImport(ctx, site);
  try {
    const check = services.rates.body(ctx, declared);
    const record: ImportRecord = { format, bytes: 0 };
    ctx.import = record;
    const read = { limit: services.maxStreamBytes, idleMs: services.idleMs, gzip, tally: record, hash, check };
    const place = { admission: services.admission, owner: ctx.grant, bytes: STREAM_RESERVATION, req };
    const body = admittedBody(place, () => streamBody(req, res, read));
    try {
      record.summary = await services.catalog.importStream(site, body, options);
      sendSummary(ctx, record.summary);
    } finally {
      // Answered before its body was read (a key in use), the body is not read by anyone.
      body.close();
    }
  } finally {
    leave?.();
  }
}

/** Serves an import: a raw body when Content-Type chose one (a stream format), else its JSON envelope. */
export function serveImport(ctx: RequestContext): Promise<void> {
  const field = ctx.operation.body?.field;
  if (field === undefined) throw new TypeError(`${ctx.operation.action} takes no import body`);
  return ctx.format === "json" ? importEnvelope(ctx, field) : importStream(ctx, ctx.format);
}
