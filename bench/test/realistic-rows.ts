// Rows as every scenario prints them in a full run (the longest sizes, the longest descriptions
// and notes), for the tests of the results table: what a row says in full must never reach a cell.
import type { NamedBaseline, Row, Target } from "../report.ts";

const SERVER = "standalone server as `npm start` runs it";
const STREAM = "1024 MB, 1,216,763 products in one chunked request";
const CLI =
  "streamed NDJSON file sent by `catalog-kit import FILE` (the command's source under tsx, progress lines on a pipe) over HTTP";
const BUFFERED: NamedBaseline = {
  label: "buffered JSON",
  name: "buffered bulk JSON over HTTP, the same 1,216,763 products, 1,000 a request, 4 connections",
};
const LIST: NamedBaseline = {
  label: "JSON list walk",
  name: "JSON list walk (limit=1000, cursor after cursor; each product in the retrieval view: id, sku, title, featured_image, url) of the same site",
};
const REPLACE =
  "full sync: mode=replace of a site of 100,000 products with 90,000 of them (every tenth gone), one bulk JSON envelope (`{ siteId, siteType, products }`)";
const LONG_NOTE =
  "median of 3 rounds; as expected: 0 created, 0 updated, 90000 unchanged, deleted 10000; then GET of a removed product: 400 PRODUCT_NOT_FOUND, of a kept one: 200; the list walk found 90,000 products (expected 90,000); 1.60 s, server RSS 243 MB before, peak 355 MB during, server CPU 2.05 s (22.78 µs a product), client CPU 0.10 s (1.14 µs a product), longest GET /healthz meanwhile 93 ms; upsert: as expected: 0 created, 0 updated, 90000 unchanged, deleted absent; every limit at its default";

const row = (
  name: string,
  scenario: string,
  figure: number | null,
  unit: string,
  against?: readonly [label: string, name: string, figure: number],
  target?: Target,
  note?: string,
): Row => ({
  name,
  scenario,
  figure,
  unit,
  ...(against === undefined ? {} : { baseline: { label: against[0], name: against[1], figure: against[2], unit } }),
  ...(target === undefined ? {} : { target }),
  ...(note === undefined ? {} : { note }),
});

const atLeast = (ratio: number): Target => ({ label: `>= ${ratio.toFixed(1)}x`, minRatio: ratio });
const atMost = (max: number, unit: string): Target => ({ label: `<= ${max} ${unit}`, max });

/** One or more rows of every kind the scenarios print, in a full run's order. */
export const REALISTIC_ROWS: readonly Row[] = [
  row(
    "bulk JSON 100,000, memory",
    "bulk JSON import, 100,000, memory (JSON.parse + importProducts)",
    234_567,
    "products/s",
    ["JSON.parse", "JSON.parse alone", 456_789],
    atLeast(0.5),
  ),
  row("CSV 100,000, memory", "CSV import, 100,000 rows, memory (importCsv)", 123_456, "rows/s", [
    "papaparse",
    "papaparse alone, header: true",
    98_765,
  ]),
  row("single import, memory", "single import, memory (10,000 products stored)", 1_234_567, "ops/s"),
  row(
    "heap per product, JSON import 1,000,000, memory",
    "memory adapter heap per product at 1,000,000 products (heapUsed + external)",
    1_234,
    "B/product",
    ["product JSON", "product JSON (UTF-8)", 871],
    { label: "<= 1.5x", maxRatio: 1.5 },
    "heapUsed 1180 B + external 54 B (of which arrayBuffers 0 B)",
  ),
  row(
    "merge 100,000 changed into a larger site, redis",
    "bulk import into Redis, 100,000, every product changed in a site holding 1,000 more (staged, then merged) (products already parsed)",
    87_654,
    "products/s",
    ["naive HSET loop", "naive loop, one awaited HSET per product (10,000)", 21_345],
  ),
  row(
    "longest script call, import 10,000 into full site, redis",
    "longest single Redis script call, import of 10,000 products over a full site, every product updated",
    42.5,
    "ms",
    undefined,
    atMost(100, "ms"),
    "longest command of any kind: EVALSHA in:products in:sku-of 42.5 ms; worst of 3 imports",
  ),
  row(
    "waitForReplicas, single imports 2,000, redis + replica",
    "Redis with one replica, single-product imports one after another (2,000), waitForReplicas: 1",
    3_456,
    "products/s",
    ["no wait", "the same without waitForReplicas", 5_678],
  ),
  row(
    "server CPU per GET, npm start, memory",
    `HTTP GET by id, memory, ${SERVER} (access log on), wrk -t1, 50 connections, 10 s x 3 (10,000 products stored): server CPU per request`,
    19.6,
    "µs/request",
    ["fastify", "fastify, same catalog", 15.5],
    { label: "<= 1.0x", maxRatio: 1 },
  ),
  row(
    "GET by id, handler, redis",
    "HTTP GET by id, redis, handler alone (no access log), wrk -t1, 50 connections, 10 s x 3 (10,000 products stored)",
    21_345,
    "req/s",
    ["bare node:http", "bare node:http, fixed JSON", 41_234],
    undefined,
    "p99 latency 12.55 ms, server CPU 51.63 µs a request, load generator CPU 22.30 µs a request; baseline 7.27 ms",
  ),
  row(
    "server CPU per request, POST bulk 1,000 + key, redis",
    "HTTP POST bulk of 1,000 products, redis, handler alone, a fresh Idempotency-Key on every request, 10 connections, every product updated: server CPU per request",
    9_876,
    "µs/request",
    ["no key", "the same load without the header, same server", 9_543],
  ),
  row(
    "POST bulk 1,000, npm start, postgres",
    `HTTP POST bulk of 1,000 products, postgres, ${SERVER} (access log on), 10 connections, every product updated`,
    45_678,
    "products/s",
    ["Redis", "the same server on Redis (adapter-redis), the same products", 56_789],
  ),
  row(
    "HTTP, postgres",
    "HTTP scenarios with PostgreSQL storage",
    null,
    "",
    undefined,
    undefined,
    "failed: x".repeat(70),
  ),
  row(
    "RSS above heap, stream NDJSON gzip 1 GiB, memory",
    `server peak RSS above the heap in use once it answered (the stored products, and garbage not yet collected), streamed gzipped NDJSON import (Content-Encoding: gzip, level 1) over HTTP, memory, ${STREAM}, ${SERVER}`,
    120,
    "MB",
    undefined,
    atMost(300, "MB"),
    "peak RSS 1641 MB, heap in use afterwards 1521 MB (1311 B a product; `nodejs_heap_size_used_bytes` of /metrics)",
  ),
  row(
    "stream NDJSON 1 GiB, redis",
    `streamed NDJSON import over HTTP, redis, ${STREAM}, ${SERVER}`,
    31_234,
    "products/s",
    [BUFFERED.label, BUFFERED.name, 29_876],
    atLeast(1),
    "40.6 MB/s, answer 0.08 s after the last byte, server peak RSS 247 MB (100 MB idle, 201 MB at half the body)",
  ),
  row(
    "redis-server CPU/product, stream NDJSON + key 1 GiB, redis",
    `redis-server CPU per product, streamed NDJSON import with an Idempotency-Key header over HTTP, redis, ${STREAM}, ${SERVER}`,
    21.88,
    "µs/product",
    ["no key", "the same body without the header, fresh server and redis-server", 21.5],
  ),
  row(
    "longest script call, stream NDJSON via CLI 1 GiB, redis",
    `longest single Redis script call, ${CLI}, redis, 1024 MB, 1,216,763 products in one request with a Content-Length, ${SERVER}`,
    118.48,
    "ms",
    ["curl -T", "`curl -T` of the same file", 97.3],
    undefined,
    "EVALSHA in:products in:sku-of in:skus in:ids in:pos; 1190 script calls of 10 ms or more",
  ),
  row(
    "stream NDJSON with bad last line 1 GiB, redis",
    `streamed NDJSON import with an invalid last line over HTTP, redis, 1024 MB, 1,216,745 products + 1 bad line, ${SERVER}: refused whole`,
    31_187,
    "products/s",
    undefined,
    undefined,
    "as expected: answer 400 VALIDATION_FAILED after 39.0 s (0.33 s after the last byte), 1 error(s)",
  ),
  row(
    "stream NDJSON 1 GiB, postgres",
    `streamed NDJSON import over HTTP, postgres, ${STREAM}, ${SERVER}`,
    23_456,
    "products/s",
    [
      "COPY floor",
      'floor: a bare `COPY ... FROM STDIN` of the same 1,216,763 products as rows (site, id, sku, canonical body) into a table with the adapter\'s columns, primary key (site, id) and unique (site, sku), COLLATE "C", on the same PostgreSQL right after, generated while sent',
      43_210,
    ],
    atLeast(0.5),
  ),
  row(
    "PostgreSQL CPU/product, stream NDJSON 1 GiB, postgres",
    `PostgreSQL CPU per product, streamed NDJSON import over HTTP, postgres, ${STREAM}, ${SERVER}`,
    31.2,
    "µs/product",
    ["COPY floor", "the floor's", 12.3],
  ),
  row(
    "peak RSS, export NDJSON 1,000,000, memory",
    `server peak RSS during the export as NDJSON (\`GET\`, \`Accept: application/x-ndjson\`) of a site of 1,000,000 products, memory, ${SERVER}`,
    1_933,
    "MB",
    ["RSS before", "server RSS just before the export (the site loaded, idle)", 1_719],
    undefined,
    "median of 3 rounds, VmHWM reset before each; peaks 1404, 1933, 1337 MB; the list walk's peak 1732 MB",
  ),
  row(
    "longest script call, export CSV 1,000,000, redis",
    `longest single Redis script call, export as CSV (\`GET\`, \`Accept: text/csv\`) of a site of 1,000,000 products, ${SERVER}`,
    88.07,
    "ms",
    [LIST.label, LIST.name, 106.13],
  ),
  row(
    "longest script call, mode=replace 100,000, bulk JSON, redis",
    `longest single Redis script call, ${REPLACE}, redis, ${SERVER}`,
    59.45,
    "ms",
    ["mode=upsert", "mode=upsert of the same body into an equal fresh site of 100,000", 131.42],
    undefined,
    LONG_NOTE,
  ),
  row(
    "mode=replace 100,000, NDJSON, postgres",
    `full sync: mode=replace of a site of 100,000 products with 90,000 of them (every tenth gone), raw NDJSON body, postgres, ${SERVER}`,
    34_567,
    "products/s",
    ["Redis", "the same replace through the same server on Redis (adapter-redis), same rounds", 45_678],
    undefined,
    LONG_NOTE,
  ),
  row("export and mode=replace, redis", "export and replace on Redis", null, "", undefined, undefined, "not available"),
  row(
    "mode=replace 100,000, postgres",
    "full sync (mode=replace), postgres",
    null,
    "",
    undefined,
    undefined,
    "failed: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect [as oncomplete]\n",
  ),
  row(
    "stream scenario",
    "stream scenario (scenarios/stream.ts)",
    null,
    "",
    undefined,
    undefined,
    "failed with exit code 1",
  ),
];
