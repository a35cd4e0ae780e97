// The audit trail: one JSON line per admin action on stdout, beside the access log, naming the
// acting token (its id and name, never its secret) and what it acted on.
import type { AuditEntry } from "@catalog-kit/http-node";

/** One audit line, without its newline: `{ time, event: "admin", action, status, requestId, tokenId, tokenName, ... }`. */
export function formatAudit(entry: AuditEntry): string {
  const { time, ...rest } = entry;
  return JSON.stringify({ time, event: "admin", ...rest });
}
