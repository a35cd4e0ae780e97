import { type CatalogStore, isCatalogError, type Product, type Site } from "@catalog-kit/catalog-core";
import { uniqueSite, upsert } from "@catalog-kit/catalog-core/testing";
import { type RedisServer, startRedisServer } from "@catalog-kit/test-support";
import { describeWithRedis } from "@catalog-kit/test-support/vitest";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { createRedisStore, redisClientOptions } from "../src/index.ts";
import { checkKeyPrefix, siteKeys } from "../src/keys.ts";
import { checkIndex, productIds } from "../src/testing/index.ts";
import { product } from "./support/products.ts";

const PREFIX = "fault";
const write = { dryRun: false } as const;

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

const batchOf = (count: number, from = 0): Product[] =>
  Array.from({ length: count }, (_, i) => product(`id-${from + i}`, `sku-${from + i}`));

// The server keeps an append-only file, fsynced on every write, so that a SIGKILL (a crash)
// followed by a restart shows exactly what Redis had applied: the way to see whether a batch
// was ever half-visible.
describeWithRedis("Redis store when Redis fails", () => {
  let server: RedisServer;
  let store: CatalogStore;
  let watcher: Redis;
  beforeAll(async () => {
    server = await startRedisServer({ persistent: true });
    store = createRedisStore({ url: server.url, keyPrefix: PREFIX, chunkSize: 50, lockTtlMs: 1_000 });
    watcher = new Redis(server.url, { retryStrategy: () => 20 });
    watcher.on("error", () => {});
  });
  afterEach(async () => {
    // Every test leaves the server running for the next one.
    if (!server.running) await server.restart();
  });
  afterAll(async () => {
    await store?.close();
    watcher?.disconnect();
    await server?.stop();
  });

  /** Starts an import, kills Redis as soon as `moment` holds, restarts it; returns the import's outcome. */
  async function crashDuring(site: Site, batch: readonly Product[], moment: () => Promise<boolean>): Promise<unknown> {
    const outcome = upsert(store, site, batch, write).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    await until("the moment to crash", async () => ((await moment()) ? true : undefined));
    await server.kill();
    const settled = await outcome;
    for (const call of [store.ping(), store.find(site, "id-0"), upsert(store, site, [product("x", "y")], write)]) {
      // The cause says what the operator's log needs: why Redis is not there.
      await expect(call).rejects.toSatisfy(
        (error) => isCatalogError(error, "STORAGE_UNAVAILABLE") && (error as Error).cause instanceof Error,
      );
    }
    await server.restart();
    await until("the store to reconnect", async () => ((await store.ping().then(() => true)) ? true : undefined));
    await until("the watcher to reconnect", async () => (watcher.status === "ready" ? true : undefined));
    return settled;
  }

  test("killed while a chunked import stages: nothing of it was ever written, and the next import succeeds", async () => {
    const site = uniqueSite();
    const keys = siteKeys(checkKeyPrefix(PREFIX), site);
    const seed = batchOf(20, 0).map((p) => ({ ...p, title: "seed" }));
    await upsert(store, site, seed, write);
    const batch = batchOf(20_000, 10);
    const outcome = await crashDuring(site, batch, async () => (await watcher.keys(`${PREFIX}:*:in:*`)).length > 0);
    expect(outcome).toMatchObject({ error: { code: "STORAGE_UNAVAILABLE" } });

    for (const p of seed) expect(await store.find(site, p.id)).toEqual(p);
    for (const i of [20, 1_000, 19_999]) expect(await store.find(site, `id-${i + 10}`)).toBeUndefined();
    expect(await productIds(watcher, keys)).toHaveLength(20);
    expect(await checkIndex(watcher, PREFIX, site)).toEqual([]);

    expect(await upsert(store, site, batch, write)).toEqual({
      applied: true,
      counts: { created: 19_990, updated: 10, unchanged: 0 },
    });
    expect(await watcher.hlen(keys.products)).toBe(20_010);
    expect(await checkIndex(watcher, PREFIX, site)).toEqual([]);
  });

  test("killed while the first import of an empty site stages: the site stays empty", async () => {
    const site = uniqueSite();
    const keys = siteKeys(checkKeyPrefix(PREFIX), site);
    const batch = batchOf(20_000);
    const outcome = await crashDuring(site, batch, async () => (await watcher.keys(`${PREFIX}:*:in:*`)).length > 0);
    expect(outcome).toMatchObject({ error: { code: "STORAGE_UNAVAILABLE" } });
    expect(await productIds(watcher, keys)).toEqual([]);
    expect(await watcher.exists(keys.skus, keys.skuOf)).toBe(0);
    expect(await store.find(site, "sku-0")).toBeUndefined();
    expect(await upsert(store, site, batch, write)).toEqual({
      applied: true,
      counts: { created: 20_000, updated: 0, unchanged: 0 },
    });
    expect(await checkIndex(watcher, PREFIX, site)).toEqual([]);
  });

  test("killed while a committed import merges: all of it is visible, and the next writer completes it", async () => {
    const site = uniqueSite();
    const keys = siteKeys(checkKeyPrefix(PREFIX), site);
    // "bystander" is not in the batch, so the batch is merged into the site (not swapped in).
    await upsert(
      store,
      site,
      [product("id-0", "old-sku"), product("holder", "sku-77"), product("bystander", "b-sku")],
      write,
    );
    // id-0 changes its sku, and "holder" gives sku-77 to id-77 by moving to a new one.
    const batch = [...batchOf(20_000), product("holder", "holder-sku")];
    await crashDuring(site, batch, async () => (await watcher.exists(keys.mergingSkuOf)) === 1);

    expect(await watcher.exists(keys.mergingSkuOf)).toBe(1);
    for (const i of [0, 77, 5_000, 19_999]) {
      expect(await store.find(site, `id-${i}`)).toEqual(product(`id-${i}`, `sku-${i}`));
      expect(await store.find(site, `sku-${i}`, "sku")).toEqual(product(`id-${i}`, `sku-${i}`));
    }
    expect(await store.find(site, "old-sku", "sku")).toBeUndefined();
    expect(await store.find(site, "holder-sku", "sku")).toEqual(product("holder", "holder-sku"));

    expect(await upsert(store, site, [product("after", "after-sku")], write)).toMatchObject({ applied: true });
    expect(await watcher.exists(keys.mergingProducts, keys.mergingSkus, keys.mergingSkuOf)).toBe(0);
    expect(await watcher.hlen(keys.products)).toBe(20_003);
    expect(await store.find(site, "b-sku", "sku")).toEqual(product("bystander", "b-sku"));
    expect(await checkIndex(watcher, PREFIX, site)).toEqual([]);
  });

  test("out of memory mid-import: STORAGE_UNAVAILABLE, nothing visible, and the import succeeds once memory is back", async () => {
    const site = uniqueSite();
    await upsert(store, site, [product("seed", "seed-sku")], write);
    const used = Number(/used_memory:(\d+)/.exec(await watcher.info("memory"))?.[1]);
    await watcher.config("SET", "maxmemory", String(used + 1_000_000));
    try {
      const batch = [...batchOf(20_000), product("seed", "sku-x")];
      const error = await upsert(store, site, batch, write).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isCatalogError(error, "STORAGE_UNAVAILABLE")).toBe(true);
      expect(String((error as Error).cause)).toMatch(/OOM/);
      expect(await store.find(site, "id-0")).toBeUndefined();
      expect(await store.find(site, "seed")).toEqual(product("seed", "seed-sku"));
      expect(await checkIndex(watcher, PREFIX, site)).toEqual([]);
    } finally {
      await watcher.config("SET", "maxmemory", "0");
    }
    expect(await upsert(store, site, [...batchOf(20_000), product("seed", "sku-x")], write)).toMatchObject({
      applied: true,
    });
    expect(await checkIndex(watcher, PREFIX, site)).toEqual([]);
  });

  test("a given client with the store's client options fails fast while Redis is down and works again after", async () => {
    const client = new Redis(server.url, redisClientOptions);
    client.on("error", () => {});
    const given = createRedisStore({ client, keyPrefix: PREFIX });
    const site = uniqueSite();
    await upsert(given, site, [product("a", "s")], write);
    await server.kill();
    const started = Date.now();
    await expect(given.find(site, "a")).rejects.toSatisfy((error) => isCatalogError(error, "STORAGE_UNAVAILABLE"));
    await expect(upsert(given, site, [product("b", "t")], write)).rejects.toSatisfy((error) =>
      isCatalogError(error, "STORAGE_UNAVAILABLE"),
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    await server.restart();
    await until("the given client to reconnect", async () => (client.status === "ready" ? true : undefined));
    expect(await given.find(site, "a")).toEqual(product("a", "s"));
    await given.close();
    client.disconnect();
  });
});
