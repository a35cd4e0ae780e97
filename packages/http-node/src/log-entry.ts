// What the access log hears of each request: one entry, and the import it carried.
import type { ImportSummary, StreamFormat } from "@catalog-kit/catalog-core";
import type { Action } from "./routes.ts";

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
  format: "json" | StreamFormat;
  /** Bytes of the body as received (compressed, when it was). */
  bytes: number;
  /** The answer of an import that succeeded (written, or a dry run). */
  summary?: ImportSummary;
}

/** One line of the audit trail: an admin action, who did it (the token's id and name), and its answer. */
export interface AuditEntry {
  /** When it was answered, ISO 8601. */
  readonly time: string;
  /** `createSite`, `listSites`, `deleteSite`, `createToken`, `listTokens` or `revokeToken`. */
  readonly action: Action;
  readonly status: number;
  readonly requestId: string;
  /** The acting token's id (`file:<index>` for the configuration file's) and name. */
  readonly tokenId: string;
  readonly tokenName: string;
  /** What it acted on, when it named something: a site, a token's id, the products it deleted. */
  readonly site?: { readonly siteId: string; readonly siteType: string };
  readonly target?: string;
  readonly deleted?: number;
}
