// The standalone server's Prometheus metrics: requests, latencies, imports and storage errors as
// the handler's access log entries tell them, and the process's own, by prom-client.

import type { AccessLogEntry, HandlerStats } from "@catalog-kit/http-node";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** The server's metrics: fed by the handler's entries and errors, rendered for `GET /metrics`. */
export interface ServerMetrics {
  /** Counts one answered request (the access log's entry: never a site, a token or a path in a label). */
  observe(entry: AccessLogEntry): void;
  /** Counts a storage failure (`STORAGE_UNAVAILABLE`) or a failed health check. */
  storageError(): void;
  /** The text exposition format, and its content type. */
  render(): Promise<{ readonly contentType: string; readonly body: string }>;
}

// Method is what the client sent: any other word would be a label value of its own.
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const OUTCOMES = ["created", "updated", "unchanged", "deleted"] as const;

/** Creates the metrics of one server; `stats` gives the handler's imports in flight and waiting. */
export function createMetrics(stats: () => HandlerStats): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: "catalog_http_requests_total",
    help: "Requests answered, by route, method and status",
    labelNames: ["route", "method", "status"] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "catalog_http_request_duration_seconds",
    help: "Time from the request's arrival to its answer, by route",
    labelNames: ["route"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [registry],
  });
  const products = new Counter({
    name: "catalog_products_imported_total",
    help: "Products of written imports, by outcome and by body format",
    labelNames: ["format", "outcome"] as const,
    registers: [registry],
  });
  const bodies = new Histogram({
    name: "catalog_import_body_bytes",
    help: "Size of import bodies as received, by body format",
    labelNames: ["format"] as const,
    buckets: [1e3, 1e4, 1e5, 1e6, 1e7, 5e7, 1e8, 1e9],
    registers: [registry],
  });
  const storageErrors = new Counter({
    name: "catalog_storage_errors_total",
    help: "Storage failures: answers 503 STORAGE_UNAVAILABLE and failed health checks",
    registers: [registry],
  });
  new Gauge({
    name: "catalog_imports_in_flight",
    help: "Imports reading their body or being applied",
    registers: [registry],
    collect() {
      this.set(stats().importsInFlight);
    },
  });
  new Gauge({
    name: "catalog_imports_waiting",
    help: "Imports waiting for their turn to read their body or to be applied",
    registers: [registry],
    collect() {
      this.set(stats().importsWaiting);
    },
  });

  return {
    observe(entry) {
      const method = METHODS.has(entry.method) ? entry.method : "other";
      requests.inc({ route: entry.route, method, status: String(entry.status) });
      duration.observe({ route: entry.route }, entry.durationMs / 1_000);
      const imported = entry.import;
      if (imported === undefined) return;
      bodies.observe({ format: imported.format }, imported.bytes);
      const summary = imported.summary;
      if (summary === undefined || summary.dryRun) return;
      for (const outcome of OUTCOMES) {
        const count = summary[outcome];
        if (count) products.inc({ format: imported.format, outcome }, count);
      }
    },
    storageError: () => storageErrors.inc(),
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
