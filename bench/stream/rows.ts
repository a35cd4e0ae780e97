// The rows of the streamed-import scenario: a case's rate against its baseline, the server's peak
// memory, Redis's longest call, and what each case cost in CPU and memory, for the notes.
import { describePostgres } from "../postgres.ts";
import type { NamedBaseline, Row } from "../report.ts";
import { describeSqlite, SERVER, type Storage } from "../rig.ts";
import { type Measured, rate } from "./cases.ts";
import { BUDGET_LABEL, type CaseName, count, cpuRows, fixed, megabytes } from "./setup.ts";

/** CPU and memory of a case, for a row's note. */
export function describe(m: Measured): string {
  const perProduct = (seconds: number) => `${fixed((seconds * 1e6) / m.products, 2)} µs a product`;
  const parts = [
    `${fixed(megabytes(m.bytes) / m.seconds)} MB/s`,
    ...(m.answer !== undefined && m.answer.wireBytes !== m.bytes
      ? [`${fixed(megabytes(m.answer.wireBytes))} MB on the wire`]
      : []),
    ...(m.answer !== undefined && Number.isFinite(m.answer.afterLastByte)
      ? [`answer ${fixed(m.answer.afterLastByte, 2)} s after the last byte`]
      : []),
    `server peak RSS ${m.peakRss === undefined ? "n/a" : fixed(megabytes(m.peakRss), 0)} MB (${fixed(megabytes(m.idleRss), 0)} MB idle, ${m.halfRss === undefined ? "n/a" : fixed(megabytes(m.halfRss), 0)} MB at half the body)`,
    `server CPU ${fixed(m.serverCpu, 2)} s (${perProduct(m.serverCpu)})`,
    `client CPU ${fixed(m.clientCpu, 2)} s (${perProduct(m.clientCpu)})`,
    `longest GET /healthz meanwhile ${fixed(m.stall, 0)} ms${m.probeFailures > 0 ? ` (${m.probeFailures} not 200)` : ""}`,
  ];
  if (m.redis !== undefined) {
    parts.push(
      `redis-server CPU ${fixed(m.redis.cpuSeconds, 2)} s, peak memory ${fixed(megabytes(m.redis.peakBytes), 0)} MB (${fixed(megabytes(m.redis.usedBytes), 0)} MB after)`,
      `longest script call ${fixed(m.redis.script, 2)} ms (${m.redis.scriptCall}; ${m.redis.over10} calls of 10 ms or more), longest command ${fixed(m.redis.any, 2)} ms (${m.redis.anyCall})`,
    );
  }
  if (m.postgres !== undefined) parts.push(describePostgres(m.postgres, m.products));
  if (m.sqlite !== undefined) parts.push(describeSqlite(m.sqlite, m.products));
  return parts.join(", ");
}

/** How the rows name each case. */
export const LABEL: Readonly<Record<CaseName, string>> = {
  cli: "NDJSON file sent by `catalog-kit import FILE` (the command's source under tsx, progress lines on a pipe)",
  ndjson: "NDJSON import",
  key: "NDJSON import with an Idempotency-Key header",
  csv: "CSV import",
  shopify: "Shopify product CSV import (profile=shopify, 2 variant rows and 1 image row a product)",
  "google-rss": "Google Merchant Center RSS feed import (profile=google, 3 items a product)",
  gzip: "gzipped NDJSON import (Content-Encoding: gzip, level 1)",
  "bad-row": "NDJSON import with an invalid last line",
  history:
    "NDJSON import with the import history on (the default: its record and progress saved at most once a second)",
};

/** How the rows' short names give each case. */
export const SHORT: Readonly<Record<CaseName, string>> = {
  cli: "NDJSON via CLI",
  ndjson: "NDJSON",
  key: "NDJSON + key",
  csv: "CSV",
  shopify: "Shopify CSV",
  "google-rss": "Google RSS",
  gzip: "NDJSON gzip",
  "bad-row": "NDJSON with bad last line",
  history: "NDJSON history",
};

/** A case's short name: what was sent, the body's budget, into which storage. */
export const nameOf = (storage: Storage, name: CaseName) => `stream ${SHORT[name]} ${BUDGET_LABEL}, ${storage}`;

/** A body's size and products, for a row's subject. */
export function sizeLabel(m: Measured): string {
  return `${fixed(megabytes(m.bytes), 0)} MB, ${count(m.products)} products`;
}

/** The subject of a case's rows: what was sent, how, into which storage, through which server. */
export function subjectOf(storage: Storage, name: CaseName, m: Measured): string {
  const request = name === "cli" ? "one request with a Content-Length" : "one chunked request";
  return `streamed ${LABEL[name]} over HTTP, ${storage}, ${sizeLabel(m)} in ${request}, ${SERVER}`;
}

// A streamed NDJSON import into Redis is to be at least as fast as the buffered one; with a key,
// it may cost at most 5 % more than the same body without one.
function targetOf(storage: Storage, name: CaseName): Pick<Row, "target"> {
  if (storage === "redis" && name === "ndjson") return { target: { label: ">= 1.0x", minRatio: 1 } };
  if (name === "key") return { target: { label: ">= 0.95x", minRatio: 0.95 } };
  return {};
}

/** A case's rows against its baseline: rate, peak RSS, CPU per product (`--cpu-rows`), memory above the heap, longest script call. */
export function streamRows(
  storage: Storage,
  name: CaseName,
  m: Measured,
  baseline: Measured,
  against: NamedBaseline,
): Row[] {
  const subject = subjectOf(storage, name, m);
  const short = nameOf(storage, name);
  const rows: Row[] = [
    {
      name: short,
      scenario: subject,
      figure: rate(m),
      unit: "products/s",
      baseline: { ...against, figure: rate(baseline), unit: "products/s" },
      ratio: rate(m) / rate(baseline),
      ...targetOf(storage, name),
      note: `${describe(m)}; baseline: ${describe(baseline)}`,
    },
  ];
  if (m.peakRss !== undefined && baseline.peakRss !== undefined) {
    rows.push({
      name: `peak RSS, ${short}`,
      scenario: `server peak RSS (VmHWM), ${subject}`,
      figure: megabytes(m.peakRss),
      unit: "MB",
      baseline: { ...against, figure: megabytes(baseline.peakRss), unit: "MB" },
      ratio: m.peakRss / baseline.peakRss,
      // Into Redis or PostgreSQL the staging lives in the store: the server's peak is to stay under 300 MB.
      ...(storage !== "memory" ? { target: { label: "<= 300 MB", max: 300 } } : {}),
      note: `fresh server for each; idle ${fixed(megabytes(m.idleRss), 0)} MB`,
    });
  }
  if (cpuRows) rows.push(...cpuPerProductRows(short, subject, m, baseline, against));
  if (m.peakRss !== undefined && m.heapAfter !== undefined) {
    // Into memory the server keeps the products: what it may take beyond them is 300 MB.
    rows.push({
      name: `RSS above heap, ${short}`,
      scenario: `server peak RSS above the heap in use once it answered (the stored products, and garbage not yet collected), ${subject}`,
      figure: megabytes(m.peakRss - m.heapAfter),
      unit: "MB",
      target: { label: "<= 300 MB", max: 300 },
      note: `peak RSS ${fixed(megabytes(m.peakRss), 0)} MB, heap in use afterwards ${fixed(megabytes(m.heapAfter), 0)} MB (${fixed(m.heapAfter / m.products, 0)} B a product; \`nodejs_heap_size_used_bytes\` of /metrics)`,
    });
  }
  if (m.redis !== undefined && baseline.redis !== undefined) {
    rows.push({
      name: `longest script call, ${short}`,
      scenario: `longest single Redis script call, ${subject}`,
      figure: m.redis.script,
      unit: "ms",
      baseline: { ...against, figure: baseline.redis.script, unit: "ms" },
      note: `${m.redis.scriptCall}; ${m.redis.over10} script calls of 10 ms or more; longest command of any kind: ${fixed(m.redis.any, 2)} ms (${m.redis.anyCall})`,
    });
  }
  return rows;
}

/** The server's and redis-server's CPU per product, which the notes also give, as rows an A/B can compare. */
export function cpuPerProductRows(
  short: string,
  subject: string,
  m: Measured,
  baseline: Measured,
  against: NamedBaseline,
): Row[] {
  const micros = (seconds: number, of: Measured) => (seconds * 1e6) / of.products;
  const row = (who: string, figure: number, base: number): Row => ({
    name: `${who} CPU/product, ${short}`,
    scenario: `${who} CPU per product, ${subject}`,
    figure,
    unit: "µs/product",
    baseline: { ...against, figure: base, unit: "µs/product" },
  });
  const rows = [row("server", micros(m.serverCpu, m), micros(baseline.serverCpu, baseline))];
  if (m.redis !== undefined && baseline.redis !== undefined) {
    rows.push(row("redis-server", micros(m.redis.cpuSeconds, m), micros(baseline.redis.cpuSeconds, baseline)));
  }
  return rows;
}
