// The standalone server's Prometheus metrics: requests, latencies, imports and storage errors as
// the handler's access log entries tell them, and the process's own, by prom-client. Requests are
// counted in a plain tally (request-tally.ts) that the registry reads when it renders; a store
// with a connection pool (PostgreSQL) is asked for its figures the same way, only when scraped.
import type { PoolStats } from "@catalog-kit/adapter-postgres";
import type { CatalogStore } from "@catalog-kit/catalog-core";
import type { AccessLogEntry, HandlerStats } from "@catalog-kit/http-node";
import { Counter, collectDefaultMetrics, Gauge, Registry } from "prom-client";
import { registerCollectedHistogram } from "./collected-histogram.ts";
import { BODY_BUCKETS, createRequestTally, DURATION_BUCKETS, OUTCOMES } from "./request-tally.ts";
import { DELIVERY_OUTCOMES, type DeliveryOutcome } from "./webhooks/sender.ts";

/** The server's metrics: fed by the handler's entries and errors, rendered for `GET /metrics`. */
export interface ServerMetrics {
  /** Counts one answered request (the access log's entry: never a site, a token or a path in a label). */
  observe(entry: AccessLogEntry): void;
  /** Counts a storage failure (`STORAGE_UNAVAILABLE`) or a failed health check. */
  storageError(): void;
  /** Counts one try of a webhook delivery by its outcome. */
  webhookDelivery(outcome: DeliveryOutcome): void;
  /** The text exposition format, and its content type. */
  render(): Promise<{ readonly contentType: string; readonly body: string }>;
}

// One gauge per figure of `PoolStats`: a dashboard plots "in use" against "waiting" without a label filter.
const POOL_GAUGES: readonly (readonly [name: string, help: string, figure: keyof PoolStats])[] = [
  ["catalog_storage_pool_connections", "Connections the storage pool has open", "total"],
  ["catalog_storage_pool_connections_idle", "Open connections of the storage pool that nothing uses", "idle"],
  ["catalog_storage_pool_connections_in_use", "Connections of the storage pool lent out to a call", "inUse"],
  ["catalog_storage_pool_waiting", "Calls waiting for a connection of the storage pool", "waiting"],
  ["catalog_storage_pool_imports", "Imports holding a connection of the storage pool", "imports"],
  ["catalog_storage_pool_imports_waiting", "Imports waiting for their share of the storage pool", "importsWaiting"],
];

function hasPool(store: CatalogStore | undefined): store is CatalogStore & { poolStats(): PoolStats } {
  return typeof (store as { poolStats?: unknown } | undefined)?.poolStats === "function";
}

/**
 * Creates the metrics of one server; `stats` gives the handler's imports in flight and waiting.
 * A `store` with `poolStats()` (PostgreSQL) adds the `catalog_storage_pool_*` gauges.
 */
export function createMetrics(stats: () => HandlerStats, store?: CatalogStore): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const tally = createRequestTally();
  new Counter({
    name: "catalog_http_requests_total",
    help: "Requests answered, by route, method and status",
    labelNames: ["route", "method", "status"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [route, { byMethod }] of tally.routes) {
        for (const [method, byStatus] of byMethod) {
          for (const [status, { count }] of byStatus) this.inc({ route, method, status: String(status) }, count);
        }
      }
    },
  });
  registerCollectedHistogram(registry, {
    name: "catalog_http_request_duration_seconds",
    help: "Time from the request's arrival to its answer, by route",
    labelName: "route",
    bounds: DURATION_BUCKETS,
    series: () => Array.from(tally.routes, ([route, { durations }]) => [route, durations] as const),
  });
  new Counter({
    name: "catalog_products_imported_total",
    help: "Products of written imports, by outcome and by body format",
    labelNames: ["format", "outcome"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [format, counts] of tally.products) {
        for (const outcome of OUTCOMES) if (counts[outcome] > 0) this.inc({ format, outcome }, counts[outcome]);
      }
    },
  });
  registerCollectedHistogram(registry, {
    name: "catalog_import_body_bytes",
    help: "Size of import bodies as received, by body format",
    labelName: "format",
    bounds: BODY_BUCKETS,
    series: () => tally.bodies,
  });
  const storageErrors = new Counter({
    name: "catalog_storage_errors_total",
    help: "Storage failures: answers 503 STORAGE_UNAVAILABLE and failed health checks",
    registers: [registry],
  });
  const webhookDeliveries = new Counter({
    name: "catalog_webhook_deliveries_total",
    help: "Tries of webhook deliveries, by outcome: delivered, retried, expired, disabled (410), dropped",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  // Every outcome from 0, so that a rate of failures is plotted before the first one.
  for (const outcome of DELIVERY_OUTCOMES) webhookDeliveries.inc({ outcome }, 0);
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
  if (hasPool(store)) {
    for (const [name, help, figure] of POOL_GAUGES) {
      new Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          this.set(store.poolStats()[figure]);
        },
      });
    }
  }

  return {
    observe: tally.observe,
    storageError: () => storageErrors.inc(),
    webhookDelivery: (outcome) => webhookDeliveries.inc({ outcome }),
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
