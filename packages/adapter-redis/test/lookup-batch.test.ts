import { type CatalogStore, isCatalogError, type Product, type Site } from "@catalog-kit/catalog-core";
import { uniqueSite, upsert } from "@catalog-kit/catalog-core/testing";
import { describeWithRedis, FILE_TAG, sharedRedisCluster } from "@catalog-kit/test-support/vitest";
import fc from "fast-check";
import { Redis } from "ioredis";
import { beforeAll, expect, test, vi } from "vitest";
import { createRedisStore, redisClientOptions } from "../src/index.ts";
import { checkKeyPrefix, siteKeys } from "../src/keys.ts";
import { leaveMerging } from "./support/merging.ts";
import { privateRedis } from "./support/private-redis.ts";
import { product } from "./support/products.ts";

// Lookups by id asked at once go to Redis as one HMGET per site (lookup-batch.ts). Each must
// still get its own answer, whatever else shares its batch: other sites, missing ids, skus, a
// site whose last import is still merging.

const write = { dryRun: false } as const;
const IDS = ["a", "b", "c", "d", "missing"];

// Three sites: two plain, one with a committed import still merging over it (c and d, new), and
// what a lookup of each id and sku must answer in each.
async function seed(store: CatalogStore, admin: Redis | undefined, prefix: string) {
  const sites = [uniqueSite(), uniqueSite(), uniqueSite()] as const;
  const expected = new Map<Site, Map<string, Product>>();
  const base = [product("a", "sa"), product("b", "sb")];
  for (const site of sites) {
    await upsert(store, site, [...base, product(`only-${site.siteId}`, `s-${site.siteId}`)], write);
    expected.set(site, new Map([...base, product(`only-${site.siteId}`, `s-${site.siteId}`)].map((p) => [p.id, p])));
  }
  if (admin !== undefined) {
    const merging = [product("c", "sc"), product("d", "sd")];
    await leaveMerging(admin, siteKeys(checkKeyPrefix(prefix), sites[2]), merging);
    const third = expected.get(sites[2]) as Map<string, Product>;
    for (const p of merging) third.set(p.id, p);
  }
  return { sites, expected };
}

function answerOf(expected: Map<string, Product>, key: string, by: "id" | "sku" | undefined): Product | undefined {
  if (by !== "sku" && expected.has(key)) return expected.get(key);
  if (by === "id") return undefined;
  return [...expected.values()].find((p) => p.sku === key);
}

describeWithRedis("lookups asked at once", () => {
  const redis = privateRedis();
  const { stores } = redis;

  test("each gets its own answer, and a site's share one HMGET", async () => {
    const client = new Redis(redis.server.url, redisClientOptions);
    const hmgets = vi.spyOn(client, "hmget");
    const store = createRedisStore({ client, keyPrefix: "batch" });
    stores.push(store);
    const { sites, expected } = await seed(store, redis.admin, "batch");
    const asks = sites.flatMap((site) => IDS.map((id) => ({ site, id })));
    hmgets.mockClear();
    const found = await Promise.all(asks.map(({ site, id }) => store.find(site, id, "id")));
    asks.forEach(({ site, id }, i) => {
      expect(found[i]).toEqual(answerOf(expected.get(site) as Map<string, Product>, id, "id"));
    });
    // One HMGET a site, each naming the merging mark and that site's five ids.
    expect(hmgets).toHaveBeenCalledTimes(sites.length);
    for (const call of hmgets.mock.calls) expect(call).toHaveLength(2 + IDS.length);
    client.disconnect();
  });

  test("a burst larger than one HMGET takes is split, and every lookup still gets its own answer", async () => {
    const client = new Redis(redis.server.url, redisClientOptions);
    const hmgets = vi.spyOn(client, "hmget");
    const store = createRedisStore({ client, keyPrefix: "burst" });
    stores.push(store);
    const site = uniqueSite();
    const stored = Array.from({ length: 600 }, (_, i) => product(`p${i}`, `s${i}`));
    await upsert(store, site, stored, write);
    hmgets.mockClear();
    const ids = Array.from({ length: 1_200 }, (_, i) => `p${(i * 7) % 700}`);
    const found = await Promise.all(ids.map((id) => store.find(site, id, "id")));
    ids.forEach((id, i) => {
      expect(found[i]).toEqual(stored.find((p) => p.id === id));
    });
    // 1,200 ids in HMGETs of at most 500.
    expect(hmgets.mock.calls.map((call) => call.length - 2)).toEqual([500, 500, 200]);
    client.disconnect();
  });

  test("any mix of lookups at once answers as the same lookups one by one", async () => {
    const store = createRedisStore({ url: redis.server.url, keyPrefix: "mixed" });
    stores.push(store);
    const { sites, expected } = await seed(store, redis.admin, "mixed");
    const ask = fc.record({
      site: fc.constantFrom(...sites),
      key: fc.constantFrom(...IDS, "sa", "sb", "sc", "sd", `s-${sites[0].siteId}`, "\u0000lock"),
      by: fc.constantFrom("id" as const, "sku" as const, undefined),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(ask, { minLength: 1, maxLength: 40 }), async (asks) => {
        const found = await Promise.all(asks.map(({ site, key, by }) => store.find(site, key, by)));
        asks.forEach(({ site, key, by }, i) => {
          expect(found[i]).toEqual(answerOf(expected.get(site) as Map<string, Product>, key, by));
        });
      }),
      { numRuns: 60 },
    );
  });

  test("a batch whose HMGET fails fails each of its lookups as STORAGE_UNAVAILABLE", async () => {
    const client = new Redis(redis.server.url, redisClientOptions);
    const store = createRedisStore({ client, keyPrefix: "failing" });
    stores.push(store);
    const site = uniqueSite();
    await upsert(store, site, [product("a", "sa"), product("b", "sb")], write);
    vi.spyOn(client, "hmget").mockRejectedValue(new Error("Connection is closed."));
    const outcomes = await Promise.allSettled(["a", "b", "c"].map((id) => store.find(site, id, "id")));
    for (const outcome of outcomes) {
      expect(outcome.status).toBe("rejected");
      expect(isCatalogError((outcome as PromiseRejectedResult).reason, "STORAGE_UNAVAILABLE")).toBe(true);
    }
    client.disconnect();
  });
});

describeWithRedis("lookups asked at once on a cluster", () => {
  let nodes: readonly string[];
  beforeAll(async () => {
    nodes = await sharedRedisCluster();
  }, 60_000);

  test("sites in several slots, each batch on its own master: every lookup answers its own", async () => {
    const store = createRedisStore({ cluster: nodes, keyPrefix: `${FILE_TAG}-cl-batch` });
    try {
      const sites = Array.from({ length: 8 }, () => uniqueSite());
      for (const site of sites) await upsert(store, site, [product("a", `sa-${site.siteId}`)], write);
      const asks = sites.flatMap((site) => ["a", "missing"].map((id) => ({ site, id })));
      const found = await Promise.all(asks.map(({ site, id }) => store.find(site, id)));
      asks.forEach(({ site, id }, i) => {
        expect(found[i]).toEqual(id === "a" ? product("a", `sa-${site.siteId}`) : undefined);
      });
    } finally {
      await store.close();
    }
  });
});
