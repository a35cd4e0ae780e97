// The standalone server with Redis storage, as `npm start` runs it: one server or a Cluster,
// restarts, a streamed import cut by SIGTERM, and Redis away at start-up.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort, type RedisServer, redisCli, startRedisServer } from "@catalog-kit/test-support";
import { type CliProcess, startCli, stopCli } from "@catalog-kit/test-support/http";
import { describeWithRedis, FILE_TAG, sharedRedisCluster } from "@catalog-kit/test-support/vitest";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";

const site = { siteId: "shop-1", siteType: "shopify" };
const product = {
  id: "r-1",
  sku: "R-1",
  title: "Redis product",
  available: true,
  featured_image: "https://i",
  url: "https://u",
};
const headers = { "x-service-access-token": "redis-admin", "content-type": "application/json" };

describeWithRedis("the standalone server with Redis storage", () => {
  let dir: string;
  let redis: RedisServer;
  const running: CliProcess[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "catalog-cli-redis-"));
    redis = await startRedisServer();
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map(stopCli));
  });
  afterAll(async () => {
    await redis?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  async function serve(storage: unknown): Promise<{ server: CliProcess; url: string }> {
    const file = join(dir, `config-${running.length}-${Date.now()}.json`);
    await writeFile(file, JSON.stringify({ sites: [site], tokens: [{ token: "redis-admin", sites: "*" }], storage }));
    const server = startCli({ CATALOG_CONFIG: file });
    running.push(server);
    const url = /listening on (http:\S+)/.exec(await server.waitForOutput(/listening on http:\S+\n/))?.[1] as string;
    return { server, url };
  }

  async function roundTrip(url: string): Promise<void> {
    const imported = await fetch(`${url}/external/product/v1`, {
      method: "POST",
      headers,
      body: JSON.stringify({ ...site, product }),
    });
    expect(await imported.json()).toMatchObject({ total: 1 });
    const found = await fetch(`${url}/external/product/v1/R-1?siteId=shop-1&siteType=shopify`, { headers });
    expect(await found.json()).toEqual({
      id: "r-1",
      sku: "R-1",
      title: "Redis product",
      featured_image: "https://i",
      url: "https://u",
    });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  }

  it("imports and reads through a Redis url, keeps data across restarts, and stops cleanly", async () => {
    const storage = { adapter: "redis", url: redis.url, keyPrefix: "cli-test" };
    const first = await serve(storage);
    await roundTrip(first.url);
    first.server.child.kill("SIGTERM");
    expect(await first.server.exited).toBe(0);

    const second = await serve(storage);
    const found = await fetch(`${second.url}/external/product/v1/r-1?siteId=shop-1&siteType=shopify`, { headers });
    expect(found.status).toBe(200);
    second.server.child.kill("SIGTERM");
    expect(await second.server.exited).toBe(0);
  });

  it("a streamed import cut by SIGTERM mid-body leaves nothing visible and no staging behind", async () => {
    const file = join(dir, `config-stream-${Date.now()}.json`);
    const storage = { adapter: "redis", url: redis.url, keyPrefix: "cli-stream" };
    const config = {
      sites: [site],
      tokens: [{ token: "redis-admin", sites: "*" }],
      storage,
      limits: { bodyIdleTimeoutMs: 500 },
    };
    await writeFile(file, JSON.stringify(config));
    const server = startCli({ CATALOG_CONFIG: file });
    running.push(server);
    const url = /listening on (http:\S+)/.exec(await server.waitForOutput(/listening on http:\S+\n/))?.[1] as string;
    const req = request(`${url}/external/product/v1/bulk?siteId=shop-1&siteType=shopify`, {
      method: "POST",
      headers: { "x-service-access-token": "redis-admin", "content-type": "application/x-ndjson" },
    });
    const status = new Promise<number>((resolve) => {
      req.on("response", (res) => resolve(res.statusCode ?? 0));
      req.on("error", () => resolve(0));
    });
    for (let i = 0; i < 5_000; i++) req.write(`${JSON.stringify({ ...product, id: `s-${i}`, sku: `S-${i}` })}\n`);
    // The staging's keys: the site's import history, which records the import, is not staging.
    const scan = async () => (await redisCli(redis.port, "--scan", "--pattern", "cli-stream*")).split("\n");
    const keys = async () => (await scan()).filter((key) => key !== "" && !key.includes(":history:")).join("\n");
    // Chunks reach Redis while the body is still arriving.
    for (let i = 0; i < 100 && (await keys()) === ""; i++) await sleep(20);
    expect(await keys()).not.toBe("");
    server.child.kill("SIGTERM");
    expect([0, 408]).toContain(await status);
    expect(await server.exited).toBe(0);
    req.destroy();
    expect(await keys()).toBe("");
    // Its record stays, and says it failed.
    const records = (await scan()).find((key) => key.endsWith(":history:records")) as string;
    const [record] = (await redisCli(redis.port, "HVALS", records)).trim().split("\n");
    expect(JSON.parse(record as string)).toMatchObject({ state: "failed", channel: "stream", format: "ndjson" });
  });

  it("works with a Redis Cluster", async () => {
    const cluster = await sharedRedisCluster();
    const { server, url } = await serve({ adapter: "redis", cluster, keyPrefix: `${FILE_TAG}-cli-cluster` });
    await roundTrip(url);
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  });

  it("starts while Redis is away, answers 503 with Retry-After, and still stops on SIGTERM", async () => {
    const { server, url } = await serve({ adapter: "redis", url: `redis://127.0.0.1:${await freePort()}` });
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(503);
    expect(health.headers.get("retry-after")).toBe("5");
    const lookup = await fetch(`${url}/external/product/v1/x?siteId=shop-1&siteType=shopify`, { headers });
    expect(await lookup.json()).toMatchObject({ status: 503, code: "STORAGE_UNAVAILABLE" });
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  });
});
