// Exactly-once imports through the standalone server on Redis, as `npm start` runs it: the server
// killed (SIGKILL) after Redis committed an import and before it could answer, then the retry
// with the same key on a fresh server is a replay, not a second application; the key outlives
// the server that recorded it.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RedisServer, startRedisServer } from "@catalog-kit/test-support";
import { type FaultProxy, mentions, startFaultProxy } from "@catalog-kit/test-support/fault-proxy";
import { type CliProcess, startCli, stopCli } from "@catalog-kit/test-support/http";
import { describeWithRedis } from "@catalog-kit/test-support/vitest";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";

const site = { siteId: "shop-1", siteType: "shopify" };
const headers = { "x-service-access-token": "redis-admin", "content-type": "application/json" };
const product = (id: string, title = "Sent once") => ({
  id,
  sku: `SKU-${id}`,
  title,
  available: true,
  featured_image: "https://i",
  url: "https://u",
});

describeWithRedis("Idempotency-Key through the standalone server on Redis", () => {
  let dir: string;
  let redis: RedisServer;
  let proxy: FaultProxy;
  const running: CliProcess[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "catalog-keys-"));
    redis = await startRedisServer();
    proxy = await startFaultProxy(redis.port);
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map(stopCli));
  });
  afterAll(async () => {
    await proxy?.close();
    await redis?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  async function serve(url: string): Promise<{ server: CliProcess; url: string }> {
    const file = join(dir, `config-${running.length}-${Date.now()}.json`);
    const storage = { adapter: "redis", url, keyPrefix: "keys" };
    await writeFile(file, JSON.stringify({ sites: [site], tokens: [{ token: "redis-admin", sites: "*" }], storage }));
    const server = startCli({ CATALOG_CONFIG: file });
    running.push(server);
    const listening = await server.waitForOutput(/listening on http:\S+\n/);
    return { server, url: /listening on (http:\S+)/.exec(listening)?.[1] as string };
  }

  const importWith = (url: string, key: string | undefined, products: unknown[]) =>
    fetch(`${url}/external/product/v1/bulk`, {
      method: "POST",
      headers: key === undefined ? headers : { ...headers, "idempotency-key": key },
      body: JSON.stringify({ ...site, products }),
    });

  it("a server killed between Redis's commit and its answer: the retry on a fresh server is a replay", async () => {
    const first = await serve(proxy.url);
    // Redis knows the import's script afterwards: the call below runs it, never a NOSCRIPT first.
    expect((await importWith(first.url, "warm-up", [product("warm-1")])).status).toBe(200);
    const body = [product("victim-1"), product("victim-2")];
    // The call that carries the products is the commit: Redis runs it, then its reply is withheld
    // and the server is killed before the connection closes, so it can never answer.
    const committed = proxy.dropReplyAfter(mentions("victim-1"), {
      onReply: () => first.server.child.kill("SIGKILL"),
    });
    const cut = await importWith(first.url, "order-42", body).then(
      (response) => `answered ${response.status}`,
      () => "cut",
    );
    await committed;
    expect(cut).toBe("cut");
    expect(await first.server.exited).toBe("SIGKILL");

    const second = await serve(redis.url);
    const changed = await importWith(second.url, undefined, [product("victim-1", "changed since")]);
    expect(changed.status).toBe(200);
    const retry = await importWith(second.url, "order-42", body);
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await retry.json()).toMatchObject({ total: 2, created: 2, updated: 0, unchanged: 0 });
    const found = await fetch(`${second.url}/external/product/v1/victim-1?siteId=shop-1&siteType=shopify`, { headers });
    expect(await found.json()).toMatchObject({ title: "changed since" });
  });
});
