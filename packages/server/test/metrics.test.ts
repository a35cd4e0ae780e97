// GET /metrics: the Prometheus text format, read back with a real parser, whose counters move as
// requests are made, with no site or token in any label; and where the standalone server serves it.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { CatalogError, type CatalogStore, createCatalog } from "@catalog-kit/catalog-core";
import { createCatalogHandler, type RunningServer, startServer } from "@catalog-kit/http-node";
import { freePort } from "@catalog-kit/test-support";
import { startCli, stopCli } from "@catalog-kit/test-support/http";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterEach, describe, expect, it } from "vitest";
import { createMetrics } from "../src/metrics.ts";
import { ADMIN_TOKEN, product, SITE_A, SITES } from "./support/fixtures.ts";

const BASE = "/external/product/v1";
const TOKENS = { admin: ADMIN_TOKEN };
let running: RunningServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function serve(store: CatalogStore = createMemoryStore()): Promise<string> {
  const catalog = createCatalog({ store, sites: SITES });
  const metrics = createMetrics(() => handler.stats(), store);
  const handler = createCatalogHandler(catalog, {
    tokens: [{ token: ADMIN_TOKEN, sites: "*" }],
    accessLog: metrics.observe,
    metrics: metrics.render,
    onError: (error) => {
      if (error instanceof CatalogError && error.code === "STORAGE_UNAVAILABLE") metrics.storageError();
    },
  });
  running = await startServer({ handler, port: 0 });
  return running.url;
}

async function scrape(url: string) {
  const response = await fetch(`${url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await response.text();
  const families = parsePrometheusTextFormat(text);
  const value = (name: string, labels: Record<string, string> = {}) => {
    const family = families.find((f) => f.name === name);
    const sample = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
    return Number(sample?.value ?? sample?.count ?? 0);
  };
  return { text, families, value };
}

const post = (url: string, path: string, body: string, type = "application/json", extra = {}) =>
  fetch(url + path, {
    method: "POST",
    headers: { "x-service-access-token": TOKENS.admin, "content-type": type, ...extra },
    body,
  });

describe("GET /metrics", () => {
  it("counts requests, latencies, imported products by outcome and format, bodies, and process figures", async () => {
    const url = await serve();
    const before = await scrape(url);
    expect(before.value("catalog_products_imported_total", { format: "json", outcome: "created" })).toBe(0);

    // Sent twice with its key: the replay applies nothing, and counts no product again.
    for (let i = 0; i < 2; i++) {
      const first = JSON.stringify({ ...SITE_A, products: [product("a"), product("b"), product("c")] });
      await post(url, `${BASE}/bulk`, first, "application/json", { "idempotency-key": "metrics-1" });
    }
    await post(url, `${BASE}/bulk?dryRun=true`, JSON.stringify({ ...SITE_A, products: [product("d")] }));
    const ndjson = `${JSON.stringify(product("a", "SKU-a", { price: 2 }))}\n${JSON.stringify(product("e"))}\n`;
    await post(url, `${BASE}/bulk?siteId=${SITE_A.siteId}&siteType=${SITE_A.siteType}`, ndjson, "application/x-ndjson");
    await post(
      url,
      `${BASE}/bulk?mode=replace`,
      JSON.stringify({ ...SITE_A, products: [product("a", "SKU-a", { price: 2 }), product("e")] }),
    );
    for (let i = 0; i < 3; i++) {
      await fetch(`${url}${BASE}/a?siteId=${SITE_A.siteId}&siteType=${SITE_A.siteType}`, {
        headers: { "x-service-access-token": TOKENS.admin },
      });
    }
    await fetch(`${url}/nowhere`, { method: "BREW" as string }).catch(() => undefined);

    const after = await scrape(url);
    const { value } = after;
    expect(value("catalog_products_imported_total", { format: "json", outcome: "created" })).toBe(3);
    expect(value("catalog_products_imported_total", { format: "ndjson", outcome: "created" })).toBe(1);
    expect(value("catalog_products_imported_total", { format: "ndjson", outcome: "updated" })).toBe(1);
    expect(value("catalog_products_imported_total", { format: "json", outcome: "unchanged" })).toBe(2);
    expect(value("catalog_products_imported_total", { format: "json", outcome: "deleted" })).toBe(2);
    expect(value("catalog_http_requests_total", { route: "get", method: "GET", status: "200" })).toBe(3);
    expect(value("catalog_http_requests_total", { route: "bulk", method: "POST", status: "200" })).toBe(5);
    // The parser folds labelled histograms into one sample (prom2json's shape): their types come
    // from it, their counts from the exposition's own _count lines.
    const histogram = (name: string) => after.families.find((f) => f.name === name)?.type;
    expect(histogram("catalog_http_request_duration_seconds")).toBe("HISTOGRAM");
    expect(histogram("catalog_import_body_bytes")).toBe("HISTOGRAM");
    expect(after.text).toContain('catalog_http_request_duration_seconds_count{route="get"} 3\n');
    expect(after.text).toContain('catalog_import_body_bytes_count{format="ndjson"} 1\n');
    expect(value("catalog_http_requests_total", { route: "metrics", method: "GET", status: "200" })).toBe(1);
    for (const name of ["catalog_imports_in_flight", "catalog_imports_waiting", "process_resident_memory_bytes"]) {
      expect(
        after.families.some((f) => f.name === name),
        name,
      ).toBe(true);
    }
    expect(after.families.some((f) => f.name.startsWith("nodejs_eventloop_lag"))).toBe(true);
    // No site, token, id or path in any label: only the route table's names.
    for (const secret of [SITE_A.siteId, SITE_A.siteType, TOKENS.admin, "/nowhere", "BREW"]) {
      expect(after.text).not.toContain(secret);
    }
  });

  it("counts storage errors", async () => {
    const inner = createMemoryStore();
    const down = () => Promise.reject(new CatalogError("STORAGE_UNAVAILABLE", "down"));
    const url = await serve({ ...inner, find: down, ping: down });
    await fetch(`${url}${BASE}/x?siteId=${SITE_A.siteId}&siteType=${SITE_A.siteType}`, {
      headers: { "x-service-access-token": TOKENS.admin },
    });
    await fetch(`${url}/healthz`);
    expect((await scrape(url)).value("catalog_storage_errors_total")).toBe(2);
  });

  it("shows a pooled store's figures as they are at each scrape, and no pool gauge for a store without one", async () => {
    const figures = { total: 4, idle: 1, inUse: 3, waiting: 2, imports: 1, importsWaiting: 0 };
    const pooled = { ...createMemoryStore(), poolStats: () => figures };
    const url = await serve(pooled);
    const first = await scrape(url);
    expect(first.value("catalog_storage_pool_connections")).toBe(4);
    expect(first.value("catalog_storage_pool_connections_idle")).toBe(1);
    expect(first.value("catalog_storage_pool_connections_in_use")).toBe(3);
    expect(first.value("catalog_storage_pool_waiting")).toBe(2);
    expect(first.value("catalog_storage_pool_imports")).toBe(1);
    figures.waiting = 0;
    figures.importsWaiting = 5;
    const second = await scrape(url);
    expect(second.value("catalog_storage_pool_waiting")).toBe(0);
    expect(second.value("catalog_storage_pool_imports_waiting")).toBe(5);
    await running?.close();
    const plain = await scrape(await serve());
    expect(plain.text).not.toContain("catalog_storage_pool_");
  });
});

describe("metrics in the standalone server", () => {
  it("are on the server's own port by default, can move to an address of their own, or be turned off", async () => {
    const dir = await mkdtemp(join(tmpdir(), "catalog-metrics-"));
    const started: ReturnType<typeof startCli>[] = [];
    try {
      const port = await freePort();
      for (const [metrics, where] of [
        [undefined, "same"],
        [{ port }, "own"],
        [false, "none"],
      ] as const) {
        const file = join(dir, `config-${where}.json`);
        const config = {
          sites: [SITE_A],
          tokens: [{ token: "t", sites: "*" }],
          ...(metrics === undefined ? {} : { metrics }),
        };
        await writeFile(file, JSON.stringify(config));
        const server = startCli({ CATALOG_CONFIG: file });
        started.push(server);
        const out = await server.waitForOutput(/listening on http:\S+\n/);
        const url = /listening on (http:\S+)/.exec(out)?.[1] as string;
        const same = await fetch(`${url}/metrics`);
        expect(same.status, where).toBe(where === "same" ? 200 : 404);
        if (where === "own") {
          const own = await fetch(`http://127.0.0.1:${port}/metrics`);
          expect(own.status).toBe(200);
          expect(parsePrometheusTextFormat(await own.text()).length).toBeGreaterThan(5);
        }
        await stopCli(server);
      }
    } finally {
      await Promise.all(started.map(stopCli));
      await rm(dir, { recursive: true, force: true });
    }
  });
});
