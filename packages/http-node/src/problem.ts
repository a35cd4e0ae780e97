// Errors as RFC 9457 problem bodies: the one table from error code to HTTP status.
import type { ServerResponse } from "node:http";
import {
  CatalogError,
  type ErrorCode,
  importIdOf,
  KEY_IN_USE_RETRY_SECONDS,
  type Problem,
  type Scope,
} from "@catalog-kit/catalog-core";

/** The codes only the HTTP layer reports; the catalog never learns about HTTP. */
export type HttpErrorCode =
  | "UNAUTHORIZED"
  | "FORBIDDEN"
  | "INVALID_JSON"
  | "INVALID_ENCODING"
  | "PAYLOAD_TOO_LARGE"
  | "REQUEST_TIMEOUT"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "INTERNAL_ERROR";

/** Every code an error body may carry. */
export type ProblemCode = ErrorCode | HttpErrorCode;

/** A problem entry as sent: a catalog problem, or one naming a query or path parameter, or a header. */
export interface ProblemEntry extends Problem {
  readonly parameter?: string;
  readonly header?: string;
  /** For `FORBIDDEN`: the scope the token lacks. */
  readonly scope?: Scope;
}

/** Details an `HttpError` may carry. */
export interface HttpErrorDetails {
  readonly problems?: readonly ProblemEntry[];
  readonly limit?: number;
  readonly received?: number;
  /** Extra response headers, such as `Allow` on a 405. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A failure of the HTTP exchange itself (token, body, route), answered as problem+json. */
export class HttpError extends Error {
  override name = "HttpError";
  readonly code: HttpErrorCode;
  readonly problems: readonly ProblemEntry[];
  readonly limit: number | undefined;
  readonly received: number | undefined;
  readonly headers: Readonly<Record<string, string>> | undefined;

  constructor(code: HttpErrorCode, message: string, details: HttpErrorDetails = {}) {
    super(message);
    this.code = code;
    this.problems = details.problems ?? [];
    this.limit = details.limit;
    this.received = details.received;
    this.headers = details.headers;
  }
}

// The one place that knows statuses: a new code does not compile until it has one.
const STATUS: Record<ProblemCode, number> = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  INVALID_JSON: 400,
  INVALID_ENCODING: 400,
  VALIDATION_FAILED: 400,
  INVALID_CSV: 400,
  INVALID_XML: 400,
  SITE_REQUIRED: 400,
  SITE_NOT_FOUND: 400,
  PRODUCT_NOT_FOUND: 400,
  PRECONDITION_FAILED: 412,
  CONCURRENT_UPDATE: 409,
  SKU_CONFLICT: 400,
  IDEMPOTENCY_KEY_REUSED: 422,
  IDEMPOTENCY_KEY_IN_USE: 409,
  CONFLICT: 409,
  TOKEN_NOT_FOUND: 404,
  IMPORT_NOT_FOUND: 404,
  RATE_LIMITED: 429,
  PAYLOAD_TOO_LARGE: 413,
  REQUEST_TIMEOUT: 408,
  TOO_MANY_PRODUCTS: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  STORAGE_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
};

const TITLE: Record<ProblemCode, string> = {
  UNAUTHORIZED: "Access token missing or invalid",
  FORBIDDEN: "Access token lacks the scope",
  INVALID_JSON: "Request body is not valid JSON",
  INVALID_ENCODING: "Request body does not decode",
  VALIDATION_FAILED: "Request is invalid",
  INVALID_CSV: "CSV document is malformed",
  INVALID_XML: "XML feed is malformed",
  SITE_REQUIRED: "Site is required",
  SITE_NOT_FOUND: "Site not found",
  PRODUCT_NOT_FOUND: "Product not found",
  PRECONDITION_FAILED: "Product changed since the copy named",
  CONCURRENT_UPDATE: "Products changed during the merge",
  SKU_CONFLICT: "SKU conflict",
  IDEMPOTENCY_KEY_REUSED: "Idempotency key used for another request",
  IDEMPOTENCY_KEY_IN_USE: "Idempotency key in use",
  CONFLICT: "Conflicts with the state of the deployment",
  TOKEN_NOT_FOUND: "Token not found",
  IMPORT_NOT_FOUND: "Import not found",
  RATE_LIMITED: "Rate limit reached",
  PAYLOAD_TOO_LARGE: "Request body too large",
  REQUEST_TIMEOUT: "Request body stalled",
  TOO_MANY_PRODUCTS: "Too many products",
  UNSUPPORTED_MEDIA_TYPE: "Unsupported media type",
  NOT_FOUND: "Not found",
  METHOD_NOT_ALLOWED: "Method not allowed",
  STORAGE_UNAVAILABLE: "Storage unavailable",
  INTERNAL_ERROR: "Internal server error",
};

/** The `FORBIDDEN` error of a token that lacks `scope`, which the problem names. */
export function forbidden(scope: Scope): HttpError {
  const message = `This token lacks the ${scope} scope this operation needs`;
  return new HttpError("FORBIDDEN", message, { problems: [{ message, scope }] });
}

/** Every problem code with its default status, as published in the OpenAPI document. */
export const PROBLEM_STATUSES: Readonly<Record<ProblemCode, number>> = STATUS;

/** Codes that mean "no such site or product"; `notFoundStatus` applies to them. */
const NOT_FOUND_CODES: ReadonlySet<ProblemCode> = new Set(["SITE_NOT_FOUND", "PRODUCT_NOT_FOUND"]);

/** Seconds a client should wait before retrying a 503. */
export const RETRY_AFTER_SECONDS = 5;

/** The RFC 9457 `type` URI of a code. */
export function problemType(code: ProblemCode): string {
  return `urn:catalog-kit:problem:${code.toLowerCase().replaceAll("_", "-")}`;
}

/** An RFC 9457 problem details body, with the project's extension members. */
export interface ProblemBody {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly code: ProblemCode;
  readonly errors: readonly ProblemEntry[];
  readonly errorCount: number;
  /** `urn:catalog-kit:request:<id>`, the id of the `X-Request-Id` response header, to find the request in the log. */
  readonly instance?: string;
  readonly limit?: number;
  readonly received?: number;
  /** For `RATE_LIMITED`: the quota spent (`requests`, `import-bytes`, `imports`), as `RateLimit-Policy` names it. */
  readonly quota?: string;
  /** For `RATE_LIMITED`: the quota's window in seconds; absent for `imports`, a count of what runs at once. */
  readonly window?: number;
  /** For an import that failed: its id in the site's history, whose record and problem report tell it in full. */
  readonly importId?: string;
}

/** A problem ready to send: status, body and the headers it needs. */
export interface ProblemResponse {
  readonly status: number;
  readonly body: ProblemBody;
  readonly headers: Readonly<Record<string, string>> | undefined;
}

// Messages and pointers may quote what the client sent (an unknown key, a CSV column, a site
// name): a problem body must not echo megabytes of a request back.
const MAX_ECHO = 2_048;

function clip(text: string): string {
  if (text.length <= MAX_ECHO) return text;
  // Never cut a surrogate pair in two.
  const last = text.charCodeAt(MAX_ECHO - 1);
  return `${text.slice(0, last >= 0xd800 && last <= 0xdbff ? MAX_ECHO - 1 : MAX_ECHO)}…`;
}

function clipEntry(entry: ProblemEntry): ProblemEntry {
  let clipped: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(entry)) {
    if (typeof value === "string" && value.length > MAX_ECHO) (clipped ??= { ...entry })[key] = clip(value);
  }
  return (clipped as ProblemEntry | undefined) ?? entry;
}

/** True for errors that deserve a log line: anything that becomes a 500. */
export function isInternal(error: unknown): boolean {
  return !(error instanceof HttpError || error instanceof CatalogError) || error.code === "INTERNAL_ERROR";
}

/**
 * Turns any thrown value into a problem response. Known errors keep their code and details;
 * anything else becomes a 500 whose body says nothing about the failure (no message, no stack).
 */
export function toProblem(error: unknown, notFoundStatus: 400 | 404 = 400): ProblemResponse {
  let code: ProblemCode = "INTERNAL_ERROR";
  let detail = "The server failed to process the request";
  let problems: readonly ProblemEntry[] = [];
  let errorCount = 0;
  let limit: number | undefined;
  let received: number | undefined;
  let headers: Readonly<Record<string, string>> | undefined;
  let rate: { quota?: string; window?: number } = {};
  if (error instanceof CatalogError) {
    ({ code, problems, errorCount, limit, received } = error);
    if (error.quota !== undefined) {
      rate = error.window === undefined ? { quota: error.quota } : { quota: error.quota, window: error.window };
      if (error.retryAfter !== undefined) headers = { "retry-after": String(error.retryAfter) };
    }
    detail = clip(error.message);
  } else if (error instanceof HttpError) {
    ({ code, problems, limit, received, headers } = error);
    errorCount = problems.length;
    detail = clip(error.message);
  }
  problems = problems.map(clipEntry);
  const importId = importIdOf(error);
  // `notFoundStatus` is the answer of a resource that is not there; a merge's records that name no
  // product are located problems of a request to a resource that is.
  const status = NOT_FOUND_CODES.has(code) && problems.length === 0 ? notFoundStatus : STATUS[code];
  if (status === 503) headers = { ...headers, "retry-after": String(RETRY_AFTER_SECONDS) };
  if (code === "IDEMPOTENCY_KEY_IN_USE") headers = { ...headers, "retry-after": String(KEY_IN_USE_RETRY_SECONDS) };
  const body: ProblemBody = {
    type: problemType(code),
    title: TITLE[code],
    status,
    detail,
    code,
    errors: problems,
    errorCount: Math.max(errorCount, problems.length),
    ...(limit === undefined ? {} : { limit }),
    ...(received === undefined ? {} : { received }),
    ...rate,
    ...(importId === undefined ? {} : { importId }),
  };
  return { status, body, headers };
}

/**
 * Sends a problem response; `extra` headers (such as `Deprecation`) are added. The request id
 * goes into the `X-Request-Id` header and, as `urn:catalog-kit:request:<id>`, the body's `instance`.
 */
export function sendProblem(
  res: ServerResponse,
  problem: ProblemResponse,
  requestId: string,
  extra?: Readonly<Record<string, string>>,
): void {
  const body: ProblemBody = { ...problem.body, instance: `urn:catalog-kit:request:${requestId}` };
  const text = JSON.stringify(body);
  res.writeHead(problem.status, {
    ...problem.headers,
    ...extra,
    "x-request-id": requestId,
    "content-type": "application/problem+json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}
