import { type CatalogStore, isCatalogError, type Product, type Site } from "@catalog-kit/catalog-core";
import { uniqueSite, upsert } from "@catalog-kit/catalog-core/testing";
import { describeWithRedis, FILE_TAG, sharedRedisCluster } from "@catalog-kit/test-support/vitest";
import fc from "fast-check";
import { Redis } from "ioredis";
import { beforeAll, expect, test, vi } from "vitest";
import { createRedisStore, redisClientOptions } from "../src/index.ts";
import { checkKeyPrefix, siteKeys } from "../src/keys.ts";
import { FIND_MERGING } from "../src/scripts/find-merging.ts";
import { FIND_SKUS } from "../src/scripts/find-skus.ts";
import { leaveMerging } from "./support/merging.ts";
import { privateRedis } from "./support/private-redis.ts";
import { product } from "./support/products.ts";

// Lookups by id asked at once go to Redis as one HMGET per site; lookups by sku as one HMGET of
// their holders per site, then their products with those by id, and the lookups that may be by
// id or sku, or whose sku has no holder, as one FIND_SKUS call per site (lookup-batch.ts). Each
// must still get its own answer, whatever else shares its batch: other sites, missing keys, a
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

// How many times each script was sent through `client` (by EVALSHA, or EVAL after NOSCRIPT).
function scriptCalls(client: Redis) {
  const call = vi.spyOn(client, "call");
  const sent = (sha: string) =>
    call.mock.calls.filter(([command, args]) => {
      const argv = args as unknown as unknown[];
      return command === "EVALSHA" && Array.isArray(argv) && argv[0] === sha;
    });
  return { call, sent };
}

// Sites whose keys hold hash-tag braces: none may move a key out of its site's slot.
function bracedSite(): Site {
  const { siteId } = uniqueSite();
  return { siteType: "t{x}", siteId: `{${siteId}}` };
}
const BRACED = [product("{a}", "{b}"), product("b}", "{a"), product("{", "}")];

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

  test("lookups by sku asked at once, mixed with lookups by id: those without a holder go out as one FIND_SKUS call a site", async () => {
    const client = new Redis(redis.server.url, redisClientOptions);
    const store = createRedisStore({ client, keyPrefix: "skus" });
    stores.push(store);
    const { sites, expected } = await seed(store, redis.admin, "skus");
    const { call, sent } = scriptCalls(client);
    const skus = ["sa", "sb", "sc", "sd", "a", "missing", "\u0000merging", `s-${sites[0].siteId}`];
    const asks = sites.flatMap((site) => [
      ...skus.map((key) => ({ site, key, by: "sku" as const })),
      ...IDS.map((key) => ({ site, key, by: "id" as const })),
    ]);
    call.mockClear();
    const found = await Promise.all(asks.map(({ site, key, by }) => store.find(site, key, by)));
    asks.forEach(({ site, key, by }, i) => {
      expect(found[i]).toEqual(answerOf(expected.get(site) as Map<string, Product>, key, by));
    });
    // One call a site for the skus no product of the site's own hashes holds (a state field's
    // name is asked of none); the merging site's lookups then go through its import one by one,
    // as its lookups by id do.
    const unheld = sites.map((site) =>
      skus.filter((sku) => !["sa", "sb", `s-${site.siteId}`, "\u0000merging"].includes(sku)),
    );
    expect(sent(FIND_SKUS.sha).map(([, args]) => (args as unknown as unknown[]).length)).toEqual(
      unheld.map((keys) => 4 + 2 * keys.length),
    );
    expect(sent(FIND_MERGING.sha)).toHaveLength(skus.length - 1 + IDS.length);
    client.disconnect();
  });

  test("a burst of lookups by sku larger than one call takes is split, and each gets its own answer", async () => {
    const client = new Redis(redis.server.url, redisClientOptions);
    const store = createRedisStore({ client, keyPrefix: "sku-burst" });
    stores.push(store);
    const site = uniqueSite();
    const stored = Array.from({ length: 600 }, (_, i) => product(`p${i}`, `s${i}`));
    await upsert(store, site, stored, write);
    const { call, sent } = scriptCalls(client);
    const hmgets = vi.spyOn(client, "hmget");
    call.mockClear();
    const skus = Array.from({ length: 1_200 }, (_, i) => `s${(i * 7) % 700}`);
    const found = await Promise.all(skus.map((sku) => store.find(site, sku, "sku")));
    skus.forEach((sku, i) => {
      expect(found[i]).toEqual(stored.find((p) => p.sku === sku));
    });
    // 1,200 holders read in commands of at most 500 skus (after the key); the skus without one
    // (s600 to s699) asked of FIND_SKUS, in calls of at most 500 (two arguments each, after the
    // SHA, count and keys). How many calls depends on whether the holders' replies arrive in one
    // turn of the loop: at most one call per holders' command.
    const skusKey = siteKeys(checkKeyPrefix("sku-burst"), site).skus;
    expect(hmgets.mock.calls.filter(([key]) => key === skusKey).map((args) => args.length - 1)).toEqual([
      500, 500, 200,
    ]);
    const unheld = skus.filter((sku) => Number(sku.slice(1)) >= 600).length;
    const asked = sent(FIND_SKUS.sha).map(([, args]) => ((args as unknown as unknown[]).length - 4) / 2);
    expect(asked.length).toBeLessThanOrEqual(3);
    expect(Math.max(...asked)).toBeLessThanOrEqual(500);
    expect(asked.reduce((sum, n) => sum + n, 0)).toBe(unheld);
    client.disconnect();
  });

  test("lookups at once on sites whose skus were swapped, in the site or by an import still merging", async () => {
    const store = createRedisStore({ url: redis.server.url, keyPrefix: "swapped" });
    stores.push(store);
    const plain = uniqueSite();
    const merging = uniqueSite();
    // Each key is one product's id and the other's sku.
    const before = [product("k1", "k2", { price: 1 }), product("k2", "k1", { price: 1 }), product("k3", "s3")];
    const after = [product("k1", "k1", { price: 2 }), product("k2", "s3", { price: 2 }), product("k3", "k2")];
    for (const site of [plain, merging]) await upsert(store, site, before, write);
    await upsert(store, plain, after, write);
    await leaveMerging(redis.admin, siteKeys(checkKeyPrefix("swapped"), merging), after);
    const now = new Map(after.map((p) => [p.id, p]));
    const asks = [plain, merging].flatMap((site) =>
      ["k1", "k2", "k3", "s3", "missing"].flatMap((key) =>
        (["sku", "id", undefined] as const).map((by) => ({ site, key, by })),
      ),
    );
    for (let round = 0; round < 3; round++) {
      const found = await Promise.all(asks.map(({ site, key, by }) => store.find(site, key, by)));
      asks.forEach(({ key, by }, i) => {
        expect(found[i]).toEqual(answerOf(now, key, by));
      });
    }
  });

  test("keys and sites that hold hash-tag braces answer their own", async () => {
    const store = createRedisStore({ url: redis.server.url, keyPrefix: "braced" });
    stores.push(store);
    const sites = [bracedSite(), bracedSite()];
    for (const site of sites) await upsert(store, site, BRACED, write);
    const expected = new Map(BRACED.map((p) => [p.id, p]));
    const keys = ["{a}", "{b}", "b}", "{a", "{", "}", "{}", "a"];
    const asks = sites.flatMap((site) =>
      keys.flatMap((key) => (["sku", "id", undefined] as const).map((by) => ({ site, key, by }))),
    );
    const found = await Promise.all(asks.map(({ site, key, by }) => store.find(site, key, by)));
    asks.forEach(({ key, by }, i) => {
      expect(found[i]).toEqual(answerOf(expected, key, by));
    });
  });

  test("many lookups by sku and by id at once, while an import merges, answer as one by one", async () => {
    const store = createRedisStore({ url: redis.server.url, keyPrefix: "merging-many" });
    stores.push(store);
    const site = uniqueSite();
    const stored = Array.from({ length: 300 }, (_, i) => product(`p${i}`, `s${i}`));
    await upsert(store, site, stored, write);
    // The import moves every tenth product to a new sku, and adds new products.
    const merged = [
      ...Array.from({ length: 30 }, (_, i) => product(`p${i * 10}`, `moved${i}`)),
      ...Array.from({ length: 50 }, (_, i) => product(`n${i}`, `sn${i}`)),
    ];
    await leaveMerging(redis.admin, siteKeys(checkKeyPrefix("merging-many"), site), merged);
    const expected = new Map(stored.map((p) => [p.id, p]));
    for (const p of merged) expected.set(p.id, p);
    const keys = [
      ...Array.from({ length: 320 }, (_, i) => `s${i}`),
      ...Array.from({ length: 30 }, (_, i) => `moved${i}`),
      ...Array.from({ length: 60 }, (_, i) => `sn${i}`),
      ...Array.from({ length: 60 }, (_, i) => `n${i}`),
    ];
    const asks = keys.flatMap((key, i) => [
      { key, by: "sku" as const },
      { key, by: i % 2 ? undefined : ("id" as const) },
    ]);
    const found = await Promise.all(asks.map(({ key, by }) => store.find(site, key, by)));
    asks.forEach(({ key, by }, i) => {
      expect(found[i]).toEqual(answerOf(expected, key, by));
    });
  });

  test("a batch whose FIND_SKUS call fails fails each of its lookups as STORAGE_UNAVAILABLE", async () => {
    const client = new Redis(redis.server.url, redisClientOptions);
    const store = createRedisStore({ client, keyPrefix: "sku-failing" });
    stores.push(store);
    const site = uniqueSite();
    await upsert(store, site, [product("a", "sa"), product("b", "sb")], write);
    vi.spyOn(client, "call").mockRejectedValue(new Error("Connection is closed."));
    // Skus no product holds: FIND_SKUS is asked of them.
    const outcomes = await Promise.allSettled(["sc", "sd", "se"].map((sku) => store.find(site, sku, "sku")));
    for (const outcome of outcomes) {
      expect(outcome.status).toBe("rejected");
      expect(isCatalogError((outcome as PromiseRejectedResult).reason, "STORAGE_UNAVAILABLE")).toBe(true);
    }
    client.disconnect();
  });

  test("a batch whose HMGET fails fails each of its lookups as STORAGE_UNAVAILABLE", async () => {
    const client = new Redis(redis.server.url, redisClientOptions);
    const store = createRedisStore({ client, keyPrefix: "failing" });
    stores.push(store);
    const site = uniqueSite();
    await upsert(store, site, [product("a", "sa"), product("b", "sb")], write);
    vi.spyOn(client, "hmget").mockRejectedValue(new Error("Connection is closed."));
    const outcomes = await Promise.allSettled([
      ...["a", "b", "c"].map((id) => store.find(site, id, "id")),
      ...["sa", "sb", "sc"].map((sku) => store.find(site, sku, "sku")),
    ]);
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

  test("lookups by sku at once on sites in several slots, braces in their keys: each answers its own", async () => {
    const store = createRedisStore({ cluster: nodes, keyPrefix: `${FILE_TAG}-cl-skus` });
    try {
      const sites = [...Array.from({ length: 6 }, () => uniqueSite()), bracedSite(), bracedSite()];
      for (const site of sites) await upsert(store, site, [...BRACED, product("a", `sa-${site.siteId}`)], write);
      const expected = new Map(
        sites.map((site) => [site, new Map([...BRACED, product("a", `sa-${site.siteId}`)].map((p) => [p.id, p]))]),
      );
      const asks = sites.flatMap((site) =>
        ["{a}", "{b}", "b}", "{a", "}", "a", `sa-${site.siteId}`, `sa-${(sites[0] as Site).siteId}`, "missing"].flatMap(
          (key) => (["sku", undefined] as const).map((by) => ({ site, key, by })),
        ),
      );
      const found = await Promise.all(asks.map(({ site, key, by }) => store.find(site, key, by)));
      asks.forEach(({ site, key, by }, i) => {
        expect(found[i]).toEqual(answerOf(expected.get(site) as Map<string, Product>, key, by));
      });
    } finally {
      await store.close();
    }
  });
});
