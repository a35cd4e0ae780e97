// How a handler is configured, and what it says of itself: its options, its stats, its type.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RateLimits, Site, TenantRegistry, UsageMeter } from "@catalog-kit/catalog-core";
import type { AccessToken } from "./access-token.ts";
import type { AccessLogEntry, AuditEntry } from "./log-entry.ts";

/** Default of `HandlerOptions.maxConcurrentImports`. */
export const DEFAULT_MAX_CONCURRENT_IMPORTS = 4;

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
  /**
   * The tenants registry: its tokens are accepted besides `tokens`, and the admin API (`/admin/v1`)
   * changes it; without it, the admin API is 404. The catalog should ask it of sites too (`directory`).
   */
  readonly registry?: TenantRegistry;
  /** Called once per admin action answered (the audit trail), after the answer was handed to the socket. */
  readonly audit?: (entry: AuditEntry) => void;
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
  /**
   * The ISO 4217 code of a site's prices, which a feed export (`profile=google` or `meta`) writes
   * when the request names no `currency`; `undefined` (or no function): the request must name one.
   */
  readonly siteCurrency?: (site: Site) => string | undefined;
  /**
   * The rate limits of a token that gives none of its own (a token's own replace them kind by
   * kind); absent, and no token's own: no limit, no `RateLimit` headers, no cost.
   */
  readonly rateLimits?: RateLimits;
  /**
   * Where usage is counted: `createUsageMeter({ store })` over the catalog's store, for limits that
   * hold across every server on it; default: a meter of this process alone.
   */
  readonly usageMeter?: UsageMeter;
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
