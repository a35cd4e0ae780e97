// The error log on stderr: one JSON line per event. While the storage is down every request and
// every health probe fails alike, so an outage is two lines, where it starts and where it ends,
// not a stack trace per request; any other failure is a line of its own, with its stack.
import type { IncomingMessage } from "node:http";
import { isCatalogError } from "@catalog-kit/catalog-core";
import type { AccessLogEntry, Action } from "@catalog-kit/http-node";

// Routes whose success means the storage answered (a service route such as /openapi.json never asks it).
const STORAGE_ROUTES: ReadonlySet<Action | "unknown"> = new Set([
  "get",
  "patch",
  "delete",
  "list",
  "export",
  "single",
  "bulk",
  "csv",
  "health",
]);
// A cause chain is cut here: a driver's errors may nest without end.
const MAX_DEPTH = 4;

/** An error as a log line holds it: name, message, code, stack (when asked for) and cause. */
export interface LoggedError {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
  readonly stack?: string;
  readonly cause?: LoggedError;
}

/** Turns any thrown value into plain data for a JSON line; `stack` keeps each error's stack. */
export function loggedError(error: unknown, stack: boolean, depth = 0): LoggedError {
  if (!(error instanceof Error)) return { name: typeof error, message: String(error) };
  const { code } = error as { code?: unknown };
  return {
    name: error.name,
    message: error.message,
    ...(typeof code === "string" || typeof code === "number" ? { code: String(code) } : {}),
    ...(stack && error.stack !== undefined ? { stack: error.stack } : {}),
    ...(error.cause !== undefined && depth < MAX_DEPTH ? { cause: loggedError(error.cause, stack, depth + 1) } : {}),
  };
}

/** What the server tells its error log. */
export interface ErrorLog {
  /** A failure behind a 500 or 503 answer, or a failed health check (the handler's `onError`). */
  failed(error: unknown, req?: IncomingMessage): void;
  /** An answered request (the handler's `accessLog`): a success that asked the storage ends an outage. */
  observe(entry: AccessLogEntry): void;
}

/**
 * Creates the error log, handing each line (a JSON object and a newline) to `write`. A
 * `STORAGE_UNAVAILABLE` starts an outage (`storage_unavailable`) unless one is on, and is counted;
 * the first success of a route that asks the storage ends it (`storage_available`, with
 * `downMs` and `failedRequests`). Anything else is an `internal_error` line with its stack.
 */
export function createErrorLog(write: (line: string) => void, now: () => number = Date.now): ErrorLog {
  let outage: { readonly since: number; failed: number } | undefined;
  const emit = (time: number, fields: object) =>
    write(`${JSON.stringify({ time: new Date(time).toISOString(), ...fields })}\n`);

  return {
    failed(error, req) {
      const time = now();
      // The request is named as the access log names it: never its query string, never its token.
      const request = req === undefined ? {} : { method: req.method, path: req.url?.split("?", 1)[0] };
      if (!isCatalogError(error, "STORAGE_UNAVAILABLE")) {
        const message = error instanceof Error ? error.message : String(error);
        emit(time, {
          level: "error",
          event: "internal_error",
          message: `Request failed: ${message}`,
          ...request,
          error: loggedError(error, true),
        });
        return;
      }
      if (outage !== undefined) {
        outage.failed += req === undefined ? 0 : 1;
        return;
      }
      outage = { since: time, failed: req === undefined ? 0 : 1 };
      emit(time, {
        level: "error",
        event: "storage_unavailable",
        message: `The storage does not answer: ${error.message}; further failures are counted until it answers again`,
        ...request,
        error: loggedError(error, false),
      });
    },
    observe(entry) {
      if (outage === undefined || entry.status < 200 || entry.status > 299 || !STORAGE_ROUTES.has(entry.route)) {
        return;
      }
      const time = now();
      const { since, failed } = outage;
      outage = undefined;
      emit(time, {
        level: "info",
        event: "storage_available",
        message: `The storage answers again after ${((time - since) / 1000).toFixed(1)} s; ${failed} request(s) failed meanwhile`,
        downMs: time - since,
        failedRequests: failed,
      });
    },
  };
}
