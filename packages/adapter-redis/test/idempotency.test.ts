// Idempotency keys on Redis: what the record and the claim are in Redis (strings Redis expires),
// that every commit path (one call, and each way a staged import is published) checks and
// records its key in the publishing call, and that a record survives a restart.
import { setTimeout as sleep } from "node:timers/promises";
import type { CatalogStore, CommitResult, KeyToRecord, Product, Site, WriteOptions } from "@catalog-kit/catalog-core";
import { uniqueSite, upsert } from "@catalog-kit/catalog-core/testing";
import { describeWithRedis } from "@catalog-kit/test-support/vitest";
import { expect, test } from "vitest";
import { createRedisStore, type RedisStoreTuning } from "../src/index.ts";
import { checkKeyPrefix, idempotencyKeys, siteKeys } from "../src/keys.ts";
import { checkIndex, productIds } from "../src/testing/index.ts";
import { privateRedis } from "./support/private-redis.ts";
import { product } from "./support/products.ts";
import { until } from "./support/wait.ts";

const PREFIX = "idem";
const HOUR = 60 * 60 * 1000;
const write = { dryRun: false } as const;
const keyOf = (key: string, fingerprint = "f1", retainMs = HOUR): KeyToRecord => ({
  key,
  fingerprint,
  retainMs,
  claimed: true,
});
const range = (from: number, count: number, tag = "") =>
  Array.from({ length: count }, (_, i) => product(`id-${from + i}`, `sku-${from + i}`, { title: `t${tag}` }));

// One import, in adds of `chunk` products, committed under `key`.
async function commitWith(
  store: CatalogStore,
  site: Site,
  products: readonly Product[],
  key: KeyToRecord | undefined,
  options: WriteOptions = write,
  chunk = 100,
): Promise<CommitResult> {
  const staged = await store.beginImport(site, options);
  for (let at = 0; at < products.length; at += chunk) {
    const part = products.slice(at, at + chunk);
    await staged.add(
      part,
      part.map((_, i) => at + i + 1),
    );
  }
  return staged.commit(key);
}

describeWithRedis("idempotency keys on Redis", () => {
  // Fsynced on every write, so that a killed server comes back with all it acknowledged.
  const redis = privateRedis({ persistent: true });
  const { stores } = redis;
  // Chunks of 50: an import of more goes through the staged path.
  const open = (options: RedisStoreTuning = {}) => {
    const store = createRedisStore({ url: redis.server.url, keyPrefix: PREFIX, chunkSize: 50, ...options });
    stores.push(store);
    return store;
  };
  const keysOf = (site: Site, key: string) => idempotencyKeys(siteKeys(checkKeyPrefix(PREFIX), site), key);

  test("the claim is a string holding its token, which Redis expires after the lease (PX): no sweep", async () => {
    const store = open();
    const site = uniqueSite();
    const { keyClaim, keyRecord } = keysOf(site, "k{1}:*");
    const claim = await store.claimKey(site, "k{1}:*", 300);
    expect(claim.state).toBe("claimed");
    expect(await redis.admin.type(keyClaim)).toBe("string");
    expect(await redis.admin.pttl(keyClaim)).toBeGreaterThan(0);
    expect(await redis.admin.pttl(keyClaim)).toBeLessThanOrEqual(300);
    expect(await redis.admin.exists(keyRecord)).toBe(0);
    await until("the claim to expire", async () => ((await redis.admin.exists(keyClaim)) === 0 ? true : undefined));
    expect((await store.claimKey(site, "k{1}:*", HOUR)).state).toBe("claimed");
  });

  test("the record is a string of the fingerprint and counts, which Redis expires after the retention", async () => {
    const store = open();
    const site = uniqueSite();
    const { keyRecord } = keysOf(site, "k");
    expect(await commitWith(store, site, [product("a", "sa")], keyOf("k", "print", 60_000))).toMatchObject({
      applied: true,
    });
    expect(JSON.parse((await redis.admin.get(keyRecord)) as string)).toEqual({
      fingerprint: "print",
      counts: { created: 1, updated: 0, unchanged: 0 },
    });
    expect(await redis.admin.pttl(keyRecord)).toBeGreaterThan(50_000);
    expect(await redis.admin.pttl(keyRecord)).toBeLessThanOrEqual(60_000);
  });

  test("a record survives a restart of Redis (appendonly), and still expires", async () => {
    const store = open();
    const site = uniqueSite();
    const counts = { created: 2, updated: 0, unchanged: 0 };
    expect(await commitWith(store, site, [product("a", "sa"), product("b", "sb")], keyOf("k"))).toEqual({
      applied: true,
      counts,
    });
    await redis.server.kill();
    await redis.server.restart();
    await until("the store to reconnect", async () => ((await store.ping().then(() => true)) ? true : undefined));
    await until("the redis.admin to reconnect", async () => (redis.admin.status === "ready" ? true : undefined));
    expect(await store.claimKey(site, "k", HOUR)).toEqual({ state: "recorded", record: { fingerprint: "f1", counts } });
    expect(await redis.admin.pttl(keysOf(site, "k").keyRecord)).toBeGreaterThan(HOUR - 60_000);
  });

  test("an empty import under a key records it", async () => {
    const store = open();
    const site = uniqueSite();
    const zero = { created: 0, updated: 0, unchanged: 0 };
    expect(await commitWith(store, site, [], keyOf("k"))).toEqual({ applied: true, counts: zero });
    expect(await store.claimKey(site, "k", HOUR)).toEqual({
      state: "recorded",
      record: { fingerprint: "f1", counts: zero },
    });
  });

  test("a dry run under a key (which the contract never sends) records nothing", async () => {
    const store = open();
    const site = uniqueSite();
    expect(await commitWith(store, site, range(0, 120), keyOf("k"), { dryRun: true })).toMatchObject({ applied: true });
    expect(await redis.admin.exists(keysOf(site, "k").keyRecord)).toBe(0);
  });

  test("a retention or lease that is not a positive number of milliseconds is refused before anything is sent", async () => {
    const store = open();
    const site = uniqueSite();
    await expect(store.claimKey(site, "k", 0)).rejects.toThrow(TypeError);
    await expect(commitWith(store, site, [product("a", "sa")], keyOf("k", "f", Number.NaN))).rejects.toThrow(TypeError);
    expect(await store.find(site, "a")).toBeUndefined();
  });

  // Each way a commit makes an import visible: the one UPSERT call, PUBLISH into an empty site,
  // PUBLISH as the merging keys (the unchanged dropped), COMMIT of the stage: keys (the changed
  // copied), PUBLISH in place of the site (replace), and a re-import that changes nothing.
  const seed = range(0, 200);
  const paths: [name: string, seed: Product[], batch: Product[], options: WriteOptions][] = [
    ["one call", [], range(0, 10), write],
    ["into an empty site", [], range(0, 200), write],
    ["merged into a site (most changed)", seed, range(0, 200, "new"), write],
    ["merged into a site (few changed)", seed, [...range(0, 190), ...range(190, 10, "new")], write],
    ["in place of the site", seed, range(100, 200), { dryRun: false, replace: true }],
    ["changing nothing", seed, seed, write],
  ];
  for (const [name, before, batch, options] of paths) {
    test(`${name}: the commit records its key; a second one under it writes nothing and answers the record`, async () => {
      const store = open();
      const site = uniqueSite();
      if (before.length > 0) await upsert(store, site, before, write);
      const first = await commitWith(store, site, batch, keyOf("k", "first"), options);
      expect(first.applied).toBe(true);
      const counts = first.applied ? first.counts : undefined;
      const recorded = { fingerprint: "first", counts };
      expect(await store.claimKey(site, "k", HOUR)).toEqual({ state: "recorded", record: recorded });
      const ids = await productIds(redis.admin, siteKeys(checkKeyPrefix(PREFIX), site));

      const again = [...range(0, 30, "again"), ...range(1_000, 70)];
      for (const second of [again.slice(0, 5), again]) {
        expect(await commitWith(store, site, second, keyOf("k", "second"), options)).toEqual({
          applied: false,
          conflicts: [],
          recorded,
        });
      }
      expect(await productIds(redis.admin, siteKeys(checkKeyPrefix(PREFIX), site))).toEqual(ids);
      expect(await store.find(site, "id-1000")).toBeUndefined();
      expect(await checkIndex(redis.admin, PREFIX, site)).toEqual([]);
      // No staging left behind by the commits that recorded nothing.
      const base = siteKeys(checkKeyPrefix(PREFIX), site).products.slice(0, -"products".length);
      expect([...(await redis.admin.keys(`${base}in:*`)), ...(await redis.admin.keys(`${base}stage:*`))]).toEqual([]);
    });
  }

  test("a recorded key is the answer to an import whose skus conflict, held or staged", async () => {
    const store = open();
    const site = uniqueSite();
    const recorded = { fingerprint: "f1", counts: { created: 1, updated: 0, unchanged: 0 } };
    await commitWith(store, site, [product("holder", "taken")], keyOf("k"));
    // With the site's products, and among its own ids (a sku claimed twice), in one call and staged.
    const clashes = [
      [product("a", "taken")],
      [product("a", "twice"), product("b", "twice")],
      [...range(0, 100), product("a", "taken")],
      [...range(0, 100), product("a", "twice"), product("b", "twice")],
    ];
    for (const batch of clashes) {
      expect(await commitWith(store, site, batch, keyOf("k", "other"))).toEqual({
        applied: false,
        conflicts: [],
        recorded,
      });
      // Without the key, the same import is refused for its conflicts.
      expect(await commitWith(store, site, batch, undefined)).toMatchObject({ applied: false, conflicts: [{}] });
    }
  });

  test("of staged commits racing under one key, exactly one applies, and the others answer its record", async () => {
    const store = open();
    const site = uniqueSite();
    await upsert(store, site, range(0, 100), write);
    const racers = ["one", "two", "three"].map((tag) => commitWith(store, site, range(0, 150, tag), keyOf("k", tag)));
    const results = await Promise.all(racers);
    const applied = results.filter((result) => result.applied);
    expect(applied).toHaveLength(1);
    const winner = ["one", "two", "three"][results.findIndex((result) => result.applied)] as string;
    for (const result of results) {
      if (!result.applied) expect(result).toMatchObject({ conflicts: [], recorded: { fingerprint: winner } });
    }
    expect((await store.find(site, "id-149"))?.title).toBe(`t${winner}`);
    expect((await store.find(site, "id-0"))?.title).toBe(`t${winner}`);
  });

  test("a released claim is deleted, and a lapsed claim's release leaves the next claim alone", async () => {
    const store = open();
    const site = uniqueSite();
    const { keyClaim } = keysOf(site, "k");
    const first = await store.claimKey(site, "k", 100);
    await sleep(250);
    const second = await store.claimKey(site, "k", HOUR);
    const token = await redis.admin.get(keyClaim);
    if (first.state === "claimed") await first.release();
    expect(await redis.admin.get(keyClaim)).toBe(token);
    if (second.state === "claimed") await second.release();
    expect(await redis.admin.exists(keyClaim)).toBe(0);
  });
});
