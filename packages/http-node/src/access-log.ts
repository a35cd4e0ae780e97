import type { AccessLogEntry } from "./handler.ts";

/** One access-log line: ISO time, method, path, status and duration, e.g. `… GET /healthz 200 0.3ms`. */
export function formatAccessLog(entry: AccessLogEntry, now: Date = new Date()): string {
  return `${now.toISOString()} ${entry.method} ${entry.path} ${entry.status} ${entry.durationMs.toFixed(1)}ms`;
}
