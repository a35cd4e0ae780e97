// The standalone server with PostgreSQL storage, as `npm start` runs it: imports and lookups over
// HTTP, the pool on /metrics, data kept across restarts in the configured schema, and PostgreSQL
// away at start-up.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, type PostgresServer, startPostgres } from "@catalog-kit/test-support";
import { type CliProcess, startCli, stopCli } from "@catalog-kit/test-support/http";
import { describeWithPostgres } from "@catalog-kit/test-support/vitest";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";

const site = { siteId: "shop-1", siteType: "shopify" };
const product = {
  id: "p-1",
  sku: "P-1",
  title: "PostgreSQL product",
  available: true,
  featured_image: "https://i",
  url: "https://u",
};
const headers = { "x-service-access-token": "pg-admin", "content-type": "application/json" };
const lookup = `/external/product/v1/P-1?siteId=${site.siteId}&siteType=${site.siteType}`;

describeWithPostgres("the standalone server with PostgreSQL storage", () => {
  let dir: string;
  let postgres: PostgresServer;
  const running: CliProcess[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "catalog-cli-postgres-"));
    postgres = await startPostgres();
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map(stopCli));
  });
  afterAll(async () => {
    await postgres?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  async function serve(storage: unknown): Promise<{ server: CliProcess; url: string }> {
    const file = join(dir, `config-${running.length}-${Date.now()}.json`);
    await writeFile(file, JSON.stringify({ sites: [site], tokens: [{ token: "pg-admin", sites: "*" }], storage }));
    const server = startCli({ CATALOG_CONFIG: file });
    running.push(server);
    const url = /listening on (http:\S+)/.exec(await server.waitForOutput(/listening on http:\S+\n/))?.[1] as string;
    return { server, url };
  }

  async function stop(server: CliProcess): Promise<void> {
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  }

  // The value of an unlabelled gauge, or undefined when the server does not expose it.
  async function gauges(url: string): Promise<(name: string) => number | undefined> {
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    const text = await response.text();
    return (name) => {
      const found = new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1];
      return found === undefined ? undefined : Number(found);
    };
  }

  it("imports and reads over HTTP, answers /healthz, shows its pool on /metrics, and keeps data across restarts", async () => {
    const storage = { adapter: "postgres", url: postgres.url, poolSize: 4 };
    const first = await serve(storage);
    const imported = await fetch(`${first.url}/external/product/v1`, {
      method: "POST",
      headers,
      body: JSON.stringify({ ...site, product }),
    });
    expect(await imported.json()).toMatchObject({ total: 1 });
    const found = await fetch(first.url + lookup, { headers });
    expect(await found.json()).toEqual({
      id: "p-1",
      sku: "P-1",
      title: "PostgreSQL product",
      featured_image: "https://i",
      url: "https://u",
    });
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);

    const gauge = await gauges(first.url);
    const open = gauge("catalog_storage_pool_connections") as number;
    expect(open).toBeGreaterThanOrEqual(1);
    expect(open).toBeLessThanOrEqual(4);
    expect(gauge("catalog_storage_pool_connections_in_use")).toBe(0);
    expect(gauge("catalog_storage_pool_connections_idle")).toBe(open);
    expect(gauge("catalog_storage_pool_waiting")).toBe(0);
    expect(gauge("catalog_storage_pool_imports")).toBe(0);
    expect(gauge("catalog_storage_pool_imports_waiting")).toBe(0);
    await stop(first.server);

    const second = await serve(storage);
    expect((await fetch(second.url + lookup, { headers })).status).toBe(200);
    await stop(second.server);
  });

  it("keeps its tables in the configured schema", async () => {
    const { server, url } = await serve({ adapter: "postgres", url: postgres.url, schema: "elsewhere" });
    expect(await (await fetch(url + lookup, { headers })).json()).toMatchObject({ code: "PRODUCT_NOT_FOUND" });
    await stop(server);
  });

  it("starts while PostgreSQL is away, answers 503 with Retry-After, and still stops on SIGTERM", async () => {
    const away = `postgres://catalog@127.0.0.1:${await freePort()}/catalog`;
    const { server, url } = await serve({ adapter: "postgres", url: away });
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(503);
    expect(health.headers.get("retry-after")).toBe("5");
    const answer = await fetch(url + lookup, { headers });
    expect(await answer.json()).toMatchObject({ status: 503, code: "STORAGE_UNAVAILABLE" });
    await stop(server);
  });
});
