// What a serving function is given: the services of its handler, made once, and the context of
// its request, made once per request when the route table has found the operation.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Catalog, Site, StreamFormat, TenantRegistry } from "@catalog-kit/catalog-core";
import {
  type Admission,
  createAdmission,
  DEFAULT_BODY_BUDGET_FACTOR,
  DEFAULT_MAX_UPLOADS_PER_TOKEN,
} from "./admission.ts";
import type { Grant } from "./auth.ts";
import { DEFAULT_MAX_BODY_BYTES } from "./body.ts";
import { DEFAULT_BODY_IDLE_TIMEOUT_MS, DEFAULT_MAX_STREAM_BYTES } from "./body-stream.ts";
import { DEFAULT_MAX_CONCURRENT_IMPORTS, type HandlerOptions } from "./handler-options.ts";
import { createLimiter, type Limiter } from "./limiter.ts";
import type { AuditEntry, ImportRecord } from "./log-entry.ts";
import { buildOpenApi } from "./openapi.ts";
import type { Operation } from "./operation.ts";
import { createRateLimiter, type RateLimiter } from "./rate-limits.ts";
import type { Resource } from "./routes.ts";

/** What every route of one handler shares: the catalog, the limits, the fairness rules, the error sink. */
export interface Services {
  readonly catalog: Catalog;
  /** The tenants registry the admin API changes, when the handler was given one. */
  readonly registry: TenantRegistry | undefined;
  readonly maxBodyBytes: number;
  readonly maxStreamBytes: number;
  readonly idleMs: number;
  readonly notFoundStatus: 400 | 404;
  /** Who may start reading an import body. */
  readonly admission: Admission;
  /** Imports parsed and applied at once. */
  readonly imports: Limiter;
  /** The tokens' rate limits. */
  readonly rates: RateLimiter;
  readonly onError: (error: unknown, req: IncomingMessage) => void;
  readonly metrics: HandlerOptions["metrics"];
  /** The currency of a site's prices, when configured: a feed's default. */
  readonly siteCurrency: (site: Site) => string | undefined;
  /** The text of /openapi.json, built on first use. */
  openapi(): string;
}

/** The form a request's operation deals in: a JSON body or answer, or a CSV, TSV, XML or NDJSON one. */
export type Format = "json" | StreamFormat;

/** One request, as the function that serves it sees it. */
export interface RequestContext {
  readonly services: Services;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly requestId: string;
  /** The path without its query string, still percent-encoded. */
  readonly path: string;
  readonly resource: Resource;
  readonly operation: Operation;
  /** What the token may do; `NO_GRANT` on operations that need none. */
  readonly grant: Grant;
  /** The form chosen by Content-Type (an import) or Accept (a list). */
  readonly format: Format;
  /** The query parameters, read against the allowlist of the operation in that form. */
  readonly params: Readonly<Record<string, string>>;
  /** The import the request carried, for its access log entry. */
  import: ImportRecord | undefined;
  /** Headers of whatever answer the request gets, problem or not (`Deprecation`, `RateLimit`). */
  headers: Readonly<Record<string, string>> | undefined;
  /** What an admin action acted on, for its line of the audit trail. */
  audit: Pick<AuditEntry, "site" | "target" | "deleted"> | undefined;
}

/** Makes the services of a handler from its options; throws `RangeError` for a bad limit. */
export function createServices(catalog: Catalog, options: HandlerOptions): Services {
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
  let openapi: string | undefined;
  return {
    catalog,
    registry: options.registry,
    maxBodyBytes,
    maxStreamBytes,
    idleMs,
    notFoundStatus,
    admission,
    imports,
    rates: createRateLimiter(options.rateLimits, options.usageMeter, options.tokens),
    onError: options.onError ?? ((error) => console.error("Internal error while handling a request:", error)),
    metrics: options.metrics,
    siteCurrency: options.siteCurrency ?? (() => undefined),
    openapi: () =>
      (openapi ??= JSON.stringify(
        buildOpenApi({
          maxBodyBytes,
          maxProductsPerRequest: options.maxProductsPerRequest ?? catalog.limits.maxProductsPerRequest,
          maxStreamBytes,
          maxProductsPerStream: catalog.limits.maxProductsPerStream,
          notFoundStatus,
        }),
      )),
  };
}
