// What the metrics count of each answered request, in plain numbers: the per-request path only
// adds to counters it finds by strings it already holds (the route table's name, Node's method
// string, the status), and prom-client reads them at scrape time. Fed to prom-client directly,
// the label objects it validates and hashes cost about 0.4 µs a request, as much as building the
// access-log line; these counters cost 0.02 µs.
import type { AccessLogEntry, ImportRecord } from "@catalog-kit/http-node";

/** Upper bounds of `catalog_http_request_duration_seconds`'s buckets, in seconds. */
export const DURATION_BUCKETS: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300,
];

/** Upper bounds of `catalog_import_body_bytes`'s buckets. */
export const BODY_BUCKETS: readonly number[] = [1e3, 1e4, 1e5, 1e6, 1e7, 5e7, 1e8, 1e9];

/** Outcomes of `catalog_products_imported_total`, as an import summary names them. */
export const OUTCOMES = ["created", "updated", "unchanged", "deleted"] as const;

/** Products of written imports of one format, by outcome. */
export type OutcomeCounts = Record<(typeof OUTCOMES)[number], number>;

/** One histogram series: how many values fell in each bucket (not cumulative; the last is +Inf), and their sum. */
export interface HistogramSeries {
  readonly counts: Float64Array;
  sum: number;
}

/** What one route answered: counts by method, then by status, and its durations in seconds. */
export interface RouteTally {
  readonly byMethod: Map<string, Map<number, { count: number }>>;
  readonly durations: HistogramSeries;
}

/** The counts of every request so far; never reset, as Prometheus counters are not. */
export interface RequestTally {
  /** By route (the route table's names, and `unknown`), in the order they first answered. */
  readonly routes: ReadonlyMap<string, RouteTally>;
  /** Import bodies by format, in bytes as received. */
  readonly bodies: ReadonlyMap<string, HistogramSeries>;
  /** Products of written imports by format (dry runs are not counted). */
  readonly products: ReadonlyMap<string, OutcomeCounts>;
  /** Counts one answered request, as the handler's access log entry tells it. */
  observe(entry: AccessLogEntry): void;
}

// Method is what the client sent: any other word would be a label value of its own.
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** A series for `bounds` buckets and the +Inf one. */
export function emptySeries(bounds: readonly number[]): HistogramSeries {
  return { counts: new Float64Array(bounds.length + 1), sum: 0 };
}

// `bounds` in the unit of `value`; `sum` is what the series' sum grows by.
function observe(series: HistogramSeries, bounds: readonly number[], value: number, sum: number): void {
  let bucket = 0;
  while (bucket < bounds.length && value > (bounds[bucket] as number)) bucket++;
  series.counts[bucket] = (series.counts[bucket] as number) + 1;
  series.sum += sum;
}

/** Creates the tally of one server. */
export function createRequestTally(): RequestTally {
  const routes = new Map<string, RouteTally>();
  const bodies = new Map<string, HistogramSeries>();
  const products = new Map<string, OutcomeCounts>();
  // An entry's duration is in milliseconds: compared with bounds in milliseconds, never divided but for the sum.
  const durationBoundsMs = DURATION_BUCKETS.map((bound) => bound * 1_000);

  function countImport(imported: ImportRecord): void {
    let series = bodies.get(imported.format);
    if (series === undefined) bodies.set(imported.format, (series = emptySeries(BODY_BUCKETS)));
    observe(series, BODY_BUCKETS, imported.bytes, imported.bytes);
    const summary = imported.summary;
    // A replay applied nothing: its products were counted when the import committed.
    if (summary === undefined || summary.dryRun || summary.replayed) return;
    let counts = products.get(imported.format);
    if (counts === undefined) {
      counts = { created: 0, updated: 0, unchanged: 0, deleted: 0 };
      products.set(imported.format, counts);
    }
    for (const outcome of OUTCOMES) counts[outcome] += summary[outcome] ?? 0;
  }

  return {
    routes,
    bodies,
    products,
    observe(entry) {
      let route = routes.get(entry.route);
      if (route === undefined) {
        route = { byMethod: new Map(), durations: emptySeries(DURATION_BUCKETS) };
        routes.set(entry.route, route);
      }
      const method = METHODS.has(entry.method) ? entry.method : "other";
      let byStatus = route.byMethod.get(method);
      if (byStatus === undefined) route.byMethod.set(method, (byStatus = new Map()));
      const counter = byStatus.get(entry.status);
      if (counter === undefined) byStatus.set(entry.status, { count: 1 });
      else counter.count++;
      observe(route.durations, durationBoundsMs, entry.durationMs, entry.durationMs / 1_000);
      if (entry.import !== undefined) countImport(entry.import);
    },
  };
}
