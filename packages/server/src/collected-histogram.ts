// A histogram that prom-client's registry reads at scrape time from series counted elsewhere:
// prom-client's own Histogram can only be fed one observation at a time, with a label object
// it hashes on every call.
import type { Metric, Registry } from "prom-client";
import type { HistogramSeries } from "./request-tally.ts";

/** How a collected histogram is named and where its series come from. */
export interface CollectedHistogramOptions {
  readonly name: string;
  readonly help: string;
  /** Its one label, such as `route`. */
  readonly labelName: string;
  /** Upper bounds of the buckets before +Inf, in the unit of the series' sums. */
  readonly bounds: readonly number[];
  /** The series by label value, as they stand at scrape time. */
  readonly series: () => Iterable<readonly [string, HistogramSeries]>;
}

interface Sample {
  readonly metricName: string;
  readonly labels: Readonly<Record<string, string | number>>;
  readonly value: number;
}

/**
 * Registers a histogram whose buckets, sum and count are computed from `series` when the
 * registry renders: the exposition prom-client's Histogram gives (`_bucket` with `le` first,
 * cumulative, `_sum`, `_count`), at no cost per observation.
 */
export function registerCollectedHistogram(registry: Registry, options: CollectedHistogramOptions): void {
  const { name, help, labelName, bounds } = options;
  const les: readonly (string | number)[] = [...bounds, "+Inf"];
  const metric = {
    name,
    help,
    type: "histogram",
    aggregator: "sum",
    async get() {
      const values: Sample[] = [];
      for (const [label, series] of options.series()) {
        let cumulative = 0;
        les.forEach((le, i) => {
          cumulative += series.counts[i] as number;
          values.push({ metricName: `${name}_bucket`, labels: { le, [labelName]: label }, value: cumulative });
        });
        values.push({ metricName: `${name}_sum`, labels: { [labelName]: label }, value: series.sum });
        values.push({ metricName: `${name}_count`, labels: { [labelName]: label }, value: cumulative });
      }
      return { name, help, type: "histogram", aggregator: "sum", values };
    },
    // The registry's resetMetrics(): these series are counters of the server's life, kept.
    reset() {},
  };
  // The registry reads a metric through get() alone; its type names prom-client's four classes.
  registry.registerMetric(metric as unknown as Metric);
}
