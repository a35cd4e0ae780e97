// CatalogError, the one error class of the catalog, with its stable codes and located problems.
import type { Site } from "./site.ts";

/** The stable codes of every failure the catalog reports on purpose. */
export type ErrorCode =
  | "VALIDATION_FAILED"
  | "INVALID_JSON"
  | "INVALID_CSV"
  | "INVALID_XML"
  | "SITE_REQUIRED"
  | "SITE_NOT_FOUND"
  | "PRODUCT_NOT_FOUND"
  | "PRECONDITION_FAILED"
  | "CONCURRENT_UPDATE"
  | "SKU_CONFLICT"
  | "TOO_MANY_PRODUCTS"
  | "IDEMPOTENCY_KEY_REUSED"
  | "IDEMPOTENCY_KEY_IN_USE"
  | "CONFLICT"
  | "TOKEN_NOT_FOUND"
  | "IMPORT_NOT_FOUND"
  | "RATE_LIMITED"
  | "STORAGE_UNAVAILABLE";

/**
 * Where one problem is: a JSON pointer into the request, a CSV row (1-based line) and column, an
 * NDJSON line (1-based) and a pointer into that line's product, or an XML feed's item (1-based)
 * and element.
 */
export interface Problem {
  readonly message: string;
  readonly pointer?: string;
  readonly row?: number;
  readonly column?: string;
  readonly line?: number;
  readonly item?: number;
  readonly element?: string;
  /** An option of the call, such as a query parameter (`limit`, `cursor`). */
  readonly parameter?: string;
  /** What the problem is when it is not a value's: `PRODUCT_NOT_FOUND` for a merge's record that names no product. */
  readonly code?: "PRODUCT_NOT_FOUND";
  /** For `SKU_CONFLICT`: the contested sku and the id that holds (or also claims) it. */
  readonly sku?: string;
  readonly heldBy?: string;
}

/** How many problems an error carries at most; `errorCount` keeps the full count. */
export const MAX_PROBLEMS = 100;

/** Details an error may carry besides its code and message. */
export interface CatalogErrorDetails {
  readonly problems?: readonly Problem[];
  /** Total number of problems found, of which at most `MAX_PROBLEMS` are listed. */
  readonly errorCount?: number;
  /** For limit errors: the limit and what the request had. */
  readonly limit?: number;
  readonly received?: number;
  /** For `RATE_LIMITED`: the quota spent (such as `requests`), its window in seconds, and seconds to wait. */
  readonly quota?: string;
  readonly window?: number;
  readonly retryAfter?: number;
  /** The id of the import that failed, whose record tells it in full (absent when no history is kept). */
  readonly importId?: string;
  readonly cause?: unknown;
}

/** Every failure the catalog reports on purpose; `code` is stable, `message` is for people. */
export class CatalogError extends Error {
  override name = "CatalogError";
  readonly code: ErrorCode;
  readonly problems: readonly Problem[];
  readonly errorCount: number;
  readonly limit: number | undefined;
  readonly received: number | undefined;
  readonly quota: string | undefined;
  readonly window: number | undefined;
  readonly retryAfter: number | undefined;
  /** The id of the import that failed, set by the catalog once its record is saved. */
  importId: string | undefined;

  constructor(code: ErrorCode, message: string, details: CatalogErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.problems = details.problems?.slice(0, MAX_PROBLEMS) ?? [];
    this.errorCount = details.errorCount ?? details.problems?.length ?? 0;
    this.limit = details.limit;
    this.received = details.received;
    this.quota = details.quota;
    this.window = details.window;
    this.retryAfter = details.retryAfter;
    this.importId = details.importId;
  }
}

/** True when `error` is a `CatalogError`, optionally with the given code. */
export function isCatalogError(error: unknown, code?: ErrorCode): error is CatalogError {
  return error instanceof CatalogError && (code === undefined || error.code === code);
}

/** The `SITE_NOT_FOUND` error of a site; the HTTP layer gives it for a site the token does not cover too. */
export function siteNotFound(site: Site): CatalogError {
  return new CatalogError("SITE_NOT_FOUND", `Site ${site.siteType}/${site.siteId} does not exist`);
}

/**
 * The `CONFLICT` error of an admin action the registry's state refuses (a site that exists, one that
 * holds products, what the configuration file made, a token revoking itself): nothing was changed.
 */
export function conflict(message: string): CatalogError {
  return new CatalogError("CONFLICT", message);
}

/** The `VALIDATION_FAILED` error of an option of a call (a query parameter over HTTP). */
export function invalidOption(parameter: string, message: string): CatalogError {
  return new CatalogError("VALIDATION_FAILED", `Invalid ${parameter}: ${message}`, {
    problems: [{ parameter, message }],
  });
}

/** The error of a replace with no products, which would empty the site by mistake. */
export function emptyReplace(): CatalogError {
  return invalidOption(
    "allowEmpty",
    "A replace with no products would delete every product of the site; set allowEmpty to mean it",
  );
}

/** The `PRODUCT_NOT_FOUND` error of a lookup by `key` (by id, by sku, or either when `by` is absent). */
export function productNotFound(key: string, by: "id" | "sku" | undefined): CatalogError {
  return new CatalogError("PRODUCT_NOT_FOUND", `No product with ${by ?? "id or sku"} "${key}" in this site`);
}

/** The `PRECONDITION_FAILED` error of a call whose `ifMatch` no longer holds. */
export function preconditionFailed(): CatalogError {
  return new CatalogError(
    "PRECONDITION_FAILED",
    "The product has changed since the copy the call names (If-Match): nothing was written; read it again",
  );
}
