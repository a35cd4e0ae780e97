// The error log's lines: a storage outage as two, any other failure as one with its stack.
import type { IncomingMessage } from "node:http";
import { CatalogError } from "@catalog-kit/catalog-core";
import type { AccessLogEntry } from "@catalog-kit/http-node";
import { expect, it } from "vitest";
import { createErrorLog } from "../src/error-log.ts";

const req = (url: string) => ({ method: "GET", url }) as IncomingMessage;
const entry = (route: AccessLogEntry["route"], status: number): AccessLogEntry => ({
  method: "GET",
  path: "/",
  status,
  durationMs: 1,
  requestId: "r",
  route,
});
const down = () =>
  new CatalogError("STORAGE_UNAVAILABLE", "Redis is not reachable", {
    cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6390"), { code: "ECONNREFUSED" }),
  });

function logged() {
  const lines: string[] = [];
  let clock = Date.parse("2025-01-01T12:00:00.000Z");
  const log = createErrorLog(
    (line) => lines.push(line),
    () => clock,
  );
  const records = () =>
    lines.map((line) => {
      expect(line.endsWith("\n") && !line.slice(0, -1).includes("\n")).toBe(true);
      return JSON.parse(line) as Record<string, unknown>;
    });
  return { log, records, tick: (ms: number) => (clock += ms) };
}

it("logs an outage where it starts and where it ends, counting the requests it failed", () => {
  const { log, records, tick } = logged();
  log.failed(down(), req("/external/product/v1/x?siteId=secret-site"));
  for (let i = 0; i < 40; i++) log.failed(down(), req("/healthz"));
  // Answers that say nothing of the storage do not end it: a refusal, the document, a 503.
  log.observe(entry("get", 400));
  log.observe(entry("openapi", 200));
  log.observe(entry("health", 503));
  expect(records()).toHaveLength(1);
  tick(12_345);
  log.observe(entry("health", 200));
  log.observe(entry("get", 200));
  const [start, end] = records();
  expect(start).toMatchObject({
    time: "2025-01-01T12:00:00.000Z",
    level: "error",
    event: "storage_unavailable",
    method: "GET",
    path: "/external/product/v1/x",
    error: {
      name: "CatalogError",
      message: "Redis is not reachable",
      cause: { name: "Error", code: "ECONNREFUSED", message: "connect ECONNREFUSED 127.0.0.1:6390" },
    },
  });
  expect(JSON.stringify(start)).not.toContain("secret-site");
  expect(JSON.stringify(start)).not.toContain("    at ");
  expect(end).toEqual({
    time: "2025-01-01T12:00:12.345Z",
    level: "info",
    event: "storage_available",
    message: "The storage answers again after 12.3 s; 41 request(s) failed meanwhile",
    downMs: 12_345,
    failedRequests: 41,
  });
  expect(records()).toHaveLength(2);
  // The next outage is a new one; one found outside a request (at start-up) counts none.
  log.failed(down());
  log.failed(down(), req("/healthz"));
  log.observe(entry("bulk", 200));
  expect(
    records()
      .slice(2)
      .map((record) => [record.event, record.failedRequests]),
  ).toEqual([
    ["storage_unavailable", undefined],
    ["storage_available", 1],
  ]);
});

it("logs any other failure as one line with its stack and causes", () => {
  const { log, records } = logged();
  const bug = new TypeError("Cannot read properties of undefined", { cause: "a string cause" });
  log.failed(bug, req("/external/product/v1/bulk"));
  log.failed(bug, req("/external/product/v1/bulk"));
  const lines = records();
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatchObject({
    level: "error",
    event: "internal_error",
    message: "Request failed: Cannot read properties of undefined",
    path: "/external/product/v1/bulk",
    error: { name: "TypeError", cause: { name: "string", message: "a string cause" } },
  });
  expect(JSON.stringify(lines[0])).toMatch(/"stack":"TypeError: Cannot read[^"]*error-log\.test\.ts/);
});
