// The tally read at scrape time exposes what prom-client's own metrics, fed one request at a time,
// would: the same lines, bucket for bucket.
import type { AccessLogEntry, HandlerStats } from "@catalog-kit/http-node";
import { Counter, Histogram, Registry } from "prom-client";
import { expect, it } from "vitest";
import { createMetrics } from "../src/metrics.ts";
import { BODY_BUCKETS, DURATION_BUCKETS } from "../src/request-tally.ts";

const stats = (): HandlerStats => ({ importsInFlight: 0, importsWaiting: 0 });

// The lines of one family (help, type and samples), as the exposition gives them.
function family(text: string, name: string): string[] {
  return text.split("\n").filter((line) => line.startsWith(`${name}`) || line.includes(` ${name} `));
}

it("exposes the counters and histograms prom-client would, with bounds, +Inf, sums and counts", async () => {
  const metrics = createMetrics(stats);
  const registry = new Registry();
  const requests = new Counter({
    name: "catalog_http_requests_total",
    help: "Requests answered, by route, method and status",
    labelNames: ["route", "method", "status"],
    registers: [registry],
  });
  const durations = new Histogram({
    name: "catalog_http_request_duration_seconds",
    help: "Time from the request's arrival to its answer, by route",
    labelNames: ["route"],
    buckets: [...DURATION_BUCKETS],
    registers: [registry],
  });
  const bodies = new Histogram({
    name: "catalog_import_body_bytes",
    help: "Size of import bodies as received, by body format",
    labelNames: ["format"],
    buckets: [...BODY_BUCKETS],
    registers: [registry],
  });
  // On a bound, between bounds, past the last one; methods in and out of the standard set.
  const durationsMs = [0.2, 1, 1.7, 2.5, 9.99, 10, 250, 1_000, 299_999, 300_000, 400_000];
  const routes = ["get", "list", "bulk", "unknown"] as const;
  const methods = ["GET", "HEAD", "POST", "BREW"];
  durationsMs.forEach((durationMs, i) => {
    const route = routes[i % routes.length] as AccessLogEntry["route"];
    const method = methods[i % methods.length] as string;
    const status = i % 3 === 0 ? 200 : 404;
    const bytes = 10 ** (i % 10) + i;
    const entry: AccessLogEntry = {
      method,
      path: "/p",
      status,
      durationMs,
      requestId: `r-${i}`,
      route,
      ...(route === "bulk" ? { import: { format: "json", bytes } } : {}),
    };
    metrics.observe(entry);
    requests.inc({ route, method: method === "BREW" ? "other" : method, status: String(status) });
    durations.observe({ route }, durationMs / 1_000);
    if (route === "bulk") bodies.observe({ format: "json" }, bytes);
  });
  const ours = (await metrics.render()).body;
  const theirs = await registry.metrics();
  for (const name of [
    "catalog_http_requests_total",
    "catalog_http_request_duration_seconds",
    "catalog_import_body_bytes",
  ]) {
    const expected = family(theirs, name);
    expect(expected.length, name).toBeGreaterThan(2);
    expect(family(ours, name).sort(), name).toEqual(expected.sort());
  }
});
