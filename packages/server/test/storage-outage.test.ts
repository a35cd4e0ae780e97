// A storage outage as the operator sees it on stderr, with the server as `npm start` runs it and
// a redis-server the test stops and starts again: one JSON line where it starts, one where it
// ends with the number of requests it failed, and nothing per request in between.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type RedisServer, startRedisServer } from "@catalog-kit/test-support";
import { type CliProcess, startCli, stopCli } from "@catalog-kit/test-support/http";
import { describeWithRedis } from "@catalog-kit/test-support/vitest";
import { afterAll, beforeAll, expect, it } from "vitest";

const headers = { "x-service-access-token": "outage-admin" };
const lookup = "/external/product/v1/x?siteId=shop-1&siteType=shopify";

describeWithRedis("a storage outage on the standalone server's stderr", () => {
  let dir: string;
  let redis: RedisServer;
  let server: CliProcess;
  let url: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "catalog-outage-"));
    redis = await startRedisServer();
    const file = join(dir, "config.json");
    const config = {
      sites: [{ siteId: "shop-1", siteType: "shopify" }],
      tokens: [{ token: "outage-admin", sites: "*" }],
      storage: { adapter: "redis", url: redis.url, keyPrefix: "outage" },
    };
    await writeFile(file, JSON.stringify(config));
    server = startCli({ CATALOG_CONFIG: file });
    url = /listening on (http:\S+)/.exec(await server.waitForOutput(/listening on http:\S+\n/))?.[1] as string;
  });
  afterAll(async () => {
    await stopCli(server);
    await redis?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("is one line when it starts and one when it ends, with the count of requests it failed", async () => {
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    await redis.kill();
    let failed = 0;
    for (let i = 0; i < 10; i++) {
      const response = await fetch(i % 2 === 0 ? `${url}/healthz` : url + lookup, { headers });
      expect(response.status).toBe(503);
      failed++;
    }
    await redis.restart();
    // The client reconnects on its own; probes fail until it has.
    for (let answered = false; !answered; ) {
      const response = await fetch(`${url}/healthz`);
      answered = response.status === 200;
      if (!answered) {
        expect(response.status).toBe(503);
        failed++;
        await sleep(50);
      }
    }
    expect((await fetch(url + lookup, { headers })).status).toBe(400); // PRODUCT_NOT_FOUND: Redis answered

    const lines = server.stderr().split("\n").slice(0, -1);
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.map((record) => record.event)).toEqual(["storage_unavailable", "storage_available"]);
    expect(records[0]).toMatchObject({ level: "error", error: { name: "CatalogError" } });
    expect(records[1]).toMatchObject({ level: "info", failedRequests: failed, downMs: expect.any(Number) });
    expect(server.stderr()).not.toContain("    at ");

    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  });
});
