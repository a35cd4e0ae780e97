// The request listener of the catalog's HTTP API: route, authenticate, read the body under the
// fairness rules, call the catalog, answer or map the error to a problem body, log. One closure
// past the usual length: every route shares the handler's limits, admission and log.
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type BulkImportOptions,
  type Catalog,
  CatalogError,
  type ImportMode,
  type ImportSummary,
  isCatalogError,
  type LookupOptions,
  type StreamFormat,
  toProductView,
} from "@catalog-kit/catalog-core";
import type { AccessToken } from "./access-token.ts";
import { createAdmission, DEFAULT_BODY_BUDGET_FACTOR, DEFAULT_MAX_UPLOADS_PER_TOKEN } from "./admission.ts";
import { createAuthenticator, type Grant } from "./auth.ts";
import { DEFAULT_MAX_BODY_BYTES, isGzip, mediaType, parseJson, requireJson } from "./body.ts";
import {
  ClientGoneError,
  checkDeclaredSize,
  DEFAULT_BODY_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_STREAM_BYTES,
  readBody,
  streamBody,
} from "./body-stream.ts";
import { listFormat, parseLimit, sendExport, sendPage } from "./browse.ts";
import { readEnvelope } from "./envelope.ts";
import { createLimiter } from "./limiter.ts";
import { buildOpenApi } from "./openapi.ts";
import { HttpError, isInternal, type ProblemEntry, sendProblem, toProblem } from "./problem.ts";
import { acceptRequestId, createRequestIds } from "./request-id.ts";
import { type Action, ALLOW, actionOf, decodeProductId, matchRoute, parseFlag, parseQuery, pathOf } from "./routes.ts";
import { checkSiteQuery, siteFor } from "./site-access.ts";
import { sendJson, summaryText } from "./success.ts";

/** One line of the access log: never the token, never the query string. */
export interface AccessLogEntry {
  readonly method: string;
  /** The request path without its query string, as the client sent it (still percent-encoded). */
  readonly path: string;
  readonly status: number;
  readonly durationMs: number;
  /** The request's id, as echoed in `X-Request-Id`: the client's when valid, else a generated one. */
  readonly requestId: string;
  /** What the request asked for, as the route table names it (`get`, `bulk`, `list`...), or `unknown`: a label of few values. */
  readonly route: Action | "unknown";
  /** For an import that read its body: how the products came, the body's bytes as received, and the summary of a success. */
  readonly import?: ImportRecord;
}

/** An import as the access log entry describes it. */
export interface ImportRecord {
  /** `json` (a JSON envelope), `csv` (CSV text, in an envelope or raw) or `ndjson` (a raw NDJSON body). */
  format: "json" | "csv" | "ndjson";
  /** Bytes of the body as received (compressed, when it was). */
  bytes: number;
  /** The answer of an import that succeeded (written, or a dry run). */
  summary?: ImportSummary;
}

/** What the handler is doing now, for gauges. */
export interface HandlerStats {
  /** Imports reading their body or being applied. */
  readonly importsInFlight: number;
  /** Imports waiting for their turn: to read their body, or to be applied. */
  readonly importsWaiting: number;
}

/** How the handler authenticates, limits and reports. */
export interface HandlerOptions {
  /** The access tokens and the sites each may use. */
  readonly tokens: readonly AccessToken[];
  /** Largest request body read whole (a JSON envelope), in bytes, received and decoded; default 50 MiB. */
  readonly maxBodyBytes?: number;
  /** Largest streamed import body (raw CSV or NDJSON), in bytes, received and decoded; default 1 GiB. */
  readonly maxStreamBytes?: number;
  /**
   * Imports parsed and applied at once (a parsed body takes tens of times its size); bodies are
   * read before, outside this limit. Default 4.
   */
  readonly maxConcurrentImports?: number;
  /** Import bodies one token may be reading at once; its others wait, unread. Default 2. */
  readonly maxUploadsPerToken?: number;
  /** Bytes of import bodies read or being read at once, all tokens together; default 4 x `maxBodyBytes`. */
  readonly bodyBytesInFlight?: number;
  /** Milliseconds a request body may send nothing before it is cut off with 408; default 10 s. */
  readonly bodyIdleTimeoutMs?: number;
  /**
   * @deprecated The handler publishes the limit the catalog enforces (`catalog.limits`); a value
   * given here still replaces it in /openapi.json only.
   */
  readonly maxProductsPerRequest?: number;
  /** Status of `SITE_NOT_FOUND` and `PRODUCT_NOT_FOUND`: 400 as the spec's endpoints say (default), or 404. */
  readonly notFoundStatus?: 400 | 404;
  /** Called once per answered request, after the response was handed to the socket. */
  readonly accessLog?: (entry: AccessLogEntry) => void;
  /**
   * The body of `GET /metrics` (no token: it names no site and no token), such as a Prometheus
   * registry renders it; without it, `/metrics` is 404 here (the metrics may live on an address of their own).
   */
  readonly metrics?: () => Promise<{ readonly contentType: string; readonly body: string }>;
  /**
   * Called with every failure that became a 500 or a 503 (its `cause` names what failed, which
   * the answer does not), and with failed health checks; defaults to `console.error`.
   */
  readonly onError?: (error: unknown, req: IncomingMessage) => void;
}

/** A `node:http` request listener; it never rejects and never throws. `stats()` says what it is doing now. */
export type CatalogHandler = ((req: IncomingMessage, res: ServerResponse) => Promise<void>) & {
  stats(): HandlerStats;
};

// What one request did, for its access log entry.
interface Note {
  route: Action | "unknown";
  import?: ImportRecord;
}

type ImportKind = "single" | "bulk" | "csv";

const TOKEN_HEADER = "x-service-access-token";
const REQUEST_ID_HEADER = "x-request-id";
/** Default of `HandlerOptions.maxConcurrentImports`. */
export const DEFAULT_MAX_CONCURRENT_IMPORTS = 4;
const DEPRECATION: Readonly<Record<string, string>> = { deprecation: "true" };
const CLOSE: Readonly<Record<string, string>> = { connection: "close" };
const HEALTHY = JSON.stringify({ status: "ok" });
const PRODUCT_QUERY = ["siteId", "siteType", "by"] as const;
const SINGLE_QUERY = ["dryRun"] as const;
const BULK_QUERY = ["dryRun", "mode", "allowEmpty"] as const;
const STREAM_QUERY = ["siteId", "siteType", ...BULK_QUERY] as const;
const LIST_QUERY = ["siteId", "siteType", "limit", "cursor"] as const;
const EXPORT_QUERY = ["siteId", "siteType"] as const;
// What a streamed body holds in memory at most (a chunk of products being staged, and the bytes
// decoded ahead), counted against the body budget in place of its size, which it never holds.
const STREAM_RESERVATION = 16 * 1024 * 1024;
const RAW_TYPES: Readonly<Record<ImportKind, Readonly<Record<string, StreamFormat>>>> = {
  single: {},
  bulk: { "application/x-ndjson": "ndjson", "application/jsonl": "ndjson" },
  csv: { "text/csv": "csv" },
};
const OR_RAW: Readonly<Record<ImportKind, string>> = {
  single: "",
  bulk: ", application/x-ndjson or application/jsonl",
  csv: " or text/csv",
};
const FIELD: Readonly<Record<ImportKind, string>> = { single: "product", bulk: "products", csv: "csvContent" };
const ANY_FIELD: LookupOptions = {};
const BY_ID: LookupOptions = { by: "id" };
const BY_SKU: LookupOptions = { by: "sku" };

// The options of an import from its query; the catalog checks `mode` and names it when it is bad.
function importOptions(query: Readonly<Record<string, string>>): BulkImportOptions {
  const dryRun = parseFlag("dryRun", query.dryRun);
  const allowEmpty = parseFlag("allowEmpty", query.allowEmpty);
  return query.mode === undefined ? { dryRun, allowEmpty } : { dryRun, allowEmpty, mode: query.mode as ImportMode };
}

// A body the handler did not read would otherwise be drained after the answer: close instead.
function bodyPending(req: IncomingMessage): boolean {
  if (req.complete) return false;
  const length = req.headers["content-length"];
  return (length !== undefined && length !== "0") || req.headers["transfer-encoding"] !== undefined;
}

/**
 * Creates the request listener of the catalog's HTTP API: routing, token check, body limits and
 * problem+json errors. It makes no catalog decisions and never reads product fields.
 */
export function createCatalogHandler(catalog: Catalog, options: HandlerOptions): CatalogHandler {
  const authenticate = createAuthenticator(options.tokens);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxStreamBytes = options.maxStreamBytes ?? DEFAULT_MAX_STREAM_BYTES;
  const imports = createLimiter(options.maxConcurrentImports ?? DEFAULT_MAX_CONCURRENT_IMPORTS);
  const admission = createAdmission(
    options.maxUploadsPerToken ?? DEFAULT_MAX_UPLOADS_PER_TOKEN,
    options.bodyBytesInFlight ?? DEFAULT_BODY_BUDGET_FACTOR * maxBodyBytes,
  );
  const idleMs = options.bodyIdleTimeoutMs ?? DEFAULT_BODY_IDLE_TIMEOUT_MS;
  if (!Number.isSafeInteger(idleMs) || idleMs < 1) {
    throw new RangeError(`bodyIdleTimeoutMs must be a positive integer; got ${idleMs}`);
  }
  const notFoundStatus = options.notFoundStatus ?? 400;
  const { accessLog } = options;
  const onError =
    options.onError ?? ((error: unknown) => console.error("Internal error while handling a request:", error));
  let openapi: string | undefined;
  const nextRequestId = createRequestIds();

  function fail(
    req: IncomingMessage,
    res: ServerResponse,
    error: unknown,
    requestId: string,
    extra?: Readonly<Record<string, string>>,
  ): void {
    if (error instanceof ClientGoneError) {
      res.statusCode = 499; // nothing is sent; the access log shows that the client left
      return;
    }
    if (isInternal(error) || isCatalogError(error, "STORAGE_UNAVAILABLE")) onError(error, req);
    if (res.headersSent || res.destroyed) return;
    const headers = bodyPending(req) ? { ...extra, ...CLOSE } : extra;
    sendProblem(res, toProblem(error, notFoundStatus), requestId, headers);
  }

  async function health(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    try {
      await catalog.checkHealth();
    } catch (error) {
      onError(error, req);
      const unavailable = isCatalogError(error, "STORAGE_UNAVAILABLE")
        ? error
        : new CatalogError("STORAGE_UNAVAILABLE", "The storage does not answer", { cause: error });
      sendProblem(res, toProblem(unavailable, notFoundStatus), requestId);
      return;
    }
    sendJson(res, HEALTHY, requestId);
  }

  async function lookup(
    res: ServerResponse,
    grant: Grant,
    rawId: string,
    query: string,
    remove: boolean,
    requestId: string,
  ): Promise<void> {
    const { siteId, siteType, by } = parseQuery(query, PRODUCT_QUERY);
    const problems: ProblemEntry[] = [];
    if (by !== undefined && by !== "id" && by !== "sku") {
      problems.push({ parameter: "by", message: "Query parameter by must be id or sku" });
    }
    checkSiteQuery(siteId, siteType, problems);
    const key = decodeProductId(rawId);
    const site = siteFor(grant, siteId, siteType);
    const lookupOptions = by === undefined ? ANY_FIELD : by === "id" ? BY_ID : BY_SKU;
    if (remove) {
      const product = await catalog.deleteProduct(site, key, lookupOptions);
      sendJson(res, JSON.stringify({ message: `Product "${product.id}" (sku "${product.sku}") deleted` }), requestId);
    } else {
      sendJson(res, JSON.stringify(toProductView(await catalog.getProduct(site, key, lookupOptions))), requestId);
    }
  }

  // A page of the site's products, or (by Accept) the whole site as a CSV or NDJSON file.
  async function list(req: IncomingMessage, res: ServerResponse, grant: Grant, query: string, requestId: string) {
    const format = listFormat(req.headers.accept);
    const params = parseQuery(query, format === "json" ? LIST_QUERY : EXPORT_QUERY);
    checkSiteQuery(params.siteId, params.siteType);
    const site = siteFor(grant, params.siteId, params.siteType);
    if (format !== "json") return sendExport(catalog, res, site, format, requestId);
    const limit = parseLimit(params.limit);
    const options = {
      ...(limit === undefined ? {} : { limit }),
      ...(params.cursor === undefined ? {} : { cursor: params.cursor }),
    };
    return sendPage(catalog, res, site, options, requestId);
  }

  async function runImport(
    req: IncomingMessage,
    res: ServerResponse,
    grant: Grant,
    kind: ImportKind,
    query: string,
    requestId: string,
    note: Note,
  ) {
    const type = mediaType(req.headers["content-type"]);
    const format = type === undefined ? undefined : RAW_TYPES[kind][type];
    if (format !== undefined) return runStream(req, res, grant, format, query, requestId, note);
    requireJson(req.headers["content-type"], OR_RAW[kind]);
    const options =
      kind === "single" ? importOptions(parseQuery(query, SINGLE_QUERY)) : importOptions(parseQuery(query, BULK_QUERY));
    const gzip = isGzip(req);
    const declared = checkDeclaredSize(req, maxBodyBytes);
    // The body is read outside the import limiter: a slow client holds a place of its own token
    // and bytes of the budget, never the limiter's slots that every token's imports need.
    const release = await admission.admit(grant, Number.isSafeInteger(declared) ? declared : maxBodyBytes, req);
    try {
      const record: ImportRecord = { format: kind === "csv" ? "csv" : "json", bytes: 0 };
      const body = await readBody(req, res, { limit: maxBodyBytes, idleMs, gzip, tally: record });
      note.import = record;
      await imports.run(() => applyImport(req, res, grant, kind, options, body, requestId, record));
    } finally {
      release();
    }
  }

  // A raw CSV or NDJSON body, imported while it arrives: it holds a place of its token's uploads
  // from first byte to commit, and never more memory than a chunk, whatever its size.
  async function runStream(
    req: IncomingMessage,
    res: ServerResponse,
    grant: Grant,
    format: StreamFormat,
    query: string,
    requestId: string,
    note: Note,
  ) {
    const params = parseQuery(query, STREAM_QUERY);
    const { siteId, siteType } = params;
    let problems: ProblemEntry[] | undefined;
    for (const [parameter, value] of [
      ["siteId", siteId],
      ["siteType", siteType],
    ] as const) {
      if (value === "")
        (problems ??= []).push({ parameter, message: `Query parameter ${parameter} must not be empty` });
    }
    if (problems !== undefined) throw new CatalogError("VALIDATION_FAILED", "Invalid query parameters", { problems });
    const options = { ...importOptions(params), format };
    // Refused before a byte is read: the catalog would say so only once it reads the body.
    const site = siteFor(grant, siteId, siteType, catalog);
    const gzip = isGzip(req);
    checkDeclaredSize(req, maxStreamBytes);
    const release = await admission.admit(grant, STREAM_RESERVATION, req);
    const record: ImportRecord = { format, bytes: 0 };
    note.import = record;
    try {
      const body = streamBody(req, res, { limit: maxStreamBytes, idleMs, gzip, tally: record });
      record.summary = await catalog.importStream(site, body, options);
      sendJson(res, summaryText(record.summary), requestId);
    } finally {
      release();
    }
  }

  async function applyImport(
    req: IncomingMessage,
    res: ServerResponse,
    grant: Grant,
    kind: ImportKind,
    options: BulkImportOptions,
    body: Buffer,
    requestId: string,
    record: ImportRecord | undefined,
  ) {
    const envelope = readEnvelope(parseJson(body), FIELD[kind]);
    const extra = envelope.deprecated ? DEPRECATION : undefined;
    try {
      if (envelope.problems.length > 0) {
        throw new CatalogError("VALIDATION_FAILED", "Invalid request body", { problems: envelope.problems });
      }
      const site = siteFor(grant, envelope.siteId, envelope.siteType);
      const summary =
        kind === "bulk"
          ? await catalog.importProducts(site, envelope.payload, options)
          : kind === "csv"
            ? await catalog.importCsv(site, envelope.payload, options)
            : await catalog.importProduct(site, envelope.payload, options);
      if (record !== undefined) record.summary = summary;
      sendJson(res, summaryText(summary), requestId, extra);
    } catch (error) {
      fail(req, res, error, requestId, extra);
    }
  }

  async function dispatch(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: string,
    requestId: string,
    note: Note,
  ): Promise<void> {
    const resource = matchRoute(path);
    if (resource === undefined) throw new HttpError("NOT_FOUND", `No resource at ${path}`);
    const action = actionOf(resource.kind, req.method);
    if (action !== undefined) note.route = action;
    if (action === undefined) {
      throw new HttpError("METHOD_NOT_ALLOWED", `${req.method} is not allowed on ${path}`, {
        headers: { allow: ALLOW[resource.kind] },
      });
    }
    switch (action) {
      case "health":
        return health(req, res, requestId);
      case "openapi":
        openapi ??= JSON.stringify(
          buildOpenApi({
            maxBodyBytes,
            maxProductsPerRequest: options.maxProductsPerRequest ?? catalog.limits.maxProductsPerRequest,
            maxStreamBytes,
            maxProductsPerStream: catalog.limits.maxProductsPerStream,
            notFoundStatus,
          }),
        );
        return sendJson(res, openapi, requestId);
      case "list":
        return list(req, res, authenticate(req.headers[TOKEN_HEADER]), query, requestId);
      case "metrics": {
        if (options.metrics === undefined) throw new HttpError("NOT_FOUND", `No resource at ${path}`);
        const { contentType, body } = await options.metrics();
        res.writeHead(200, {
          "content-type": contentType,
          "content-length": Buffer.byteLength(body),
          "x-request-id": requestId,
        });
        res.end(body);
        return;
      }
      case "get":
      case "delete": {
        const grant = authenticate(req.headers[TOKEN_HEADER]);
        const rawId = resource.kind === "product" ? resource.rawId : "bulk";
        return lookup(res, grant, rawId, query, action === "delete", requestId);
      }
      default:
        return runImport(req, res, authenticate(req.headers[TOKEN_HEADER]), action, query, requestId, note);
    }
  }

  async function handleCatalogRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = accessLog === undefined ? 0 : performance.now();
    const requestId = acceptRequestId(req.headers[REQUEST_ID_HEADER]) ?? nextRequestId();
    const target = req.url ?? "/";
    const queryAt = target.indexOf("?");
    const path = pathOf(target, queryAt);
    const note: Note = { route: "unknown" };
    try {
      await dispatch(req, res, path, queryAt === -1 ? "" : target.slice(queryAt + 1), requestId, note);
    } catch (error) {
      try {
        fail(req, res, error, requestId);
      } catch (sendError) {
        onError(sendError, req);
        res.destroy();
      }
    }
    if (accessLog !== undefined) {
      try {
        accessLog({
          method: req.method ?? "",
          path,
          status: res.statusCode,
          durationMs: performance.now() - started,
          requestId,
          route: note.route,
          ...(note.import === undefined ? {} : { import: note.import }),
        });
      } catch (logError) {
        onError(logError, req);
      }
    }
  }

  // An import holds its admission from the first byte it reads to its answer; admitted ones that
  // wait for the limiter's turn to be applied are waiting, not in flight.
  return Object.assign(handleCatalogRequest, {
    stats: (): HandlerStats => ({
      importsInFlight: admission.admitted - imports.waiting,
      importsWaiting: admission.waiting + imports.waiting,
    }),
  });
}
