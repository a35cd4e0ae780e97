import { createHash } from "node:crypto";
import { encodeProduct, type Product, type Site, type StagedImport } from "@catalog-kit/catalog-core";
import { uniqueSite, upsert } from "@catalog-kit/catalog-core/testing";
import { describeWithRedis } from "@catalog-kit/test-support/vitest";
import { expect, test } from "vitest";
import { createRedisStore, type RedisStoreTuning } from "../src/index.ts";
import { checkKeyPrefix, type IncomingKeys, incomingKeys, siteKeys } from "../src/keys.ts";
import { productIds } from "../src/testing/index.ts";
import { privateRedis } from "./support/private-redis.ts";
import { product, realisticProduct } from "./support/products.ts";
import { settle, until } from "./support/wait.ts";

// A merge's bases staged in Redis (clause 7 of commit), as digests: what the conformance clauses
// cannot see from outside the store. Bases this store found and bases it did not, null bases, a
// base gone stale on any page of the commit's walk, and an evicted in:bases.

const PREFIX = "bases";
const write = { dryRun: false } as const;
const STALE = { applied: false, conflicts: [], stale: true };
const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");

describeWithRedis("a merge's bases on Redis", () => {
  const redis = privateRedis();
  const open = (options: RedisStoreTuning = {}) => {
    const store = createRedisStore({ url: redis.server.url, keyPrefix: PREFIX, chunkSize: 100, ...options });
    redis.stores.push(store);
    return store;
  };
  const keysOf = (site: Site) => siteKeys(checkKeyPrefix(PREFIX), site);
  const incomingOf = async (site: Site): Promise<IncomingKeys> => {
    const [key] = await redis.admin.keys(`${keysOf(site).products.slice(0, -"products".length)}in:*:sku-of`);
    const token = /:in:([0-9a-f]+):sku-of$/.exec(key as string)?.[1] as string;
    return incomingKeys(keysOf(site), token);
  };
  const stagingOf = async (site: Site) => {
    const base = keysOf(site).products.slice(0, -"products".length);
    return [...(await redis.admin.keys(`${base}in:*`)), ...(await redis.admin.keys(`${base}stage:*`))];
  };
  const many = (count: number, version = 0) => Array.from({ length: count }, (_, i) => realisticProduct(i, version));
  // Adds `products` in one call, with their bases, positions counting from 1.
  const addBased = (staged: StagedImport, products: readonly Product[], bases: readonly (Product | null)[]) =>
    staged.add(
      products,
      products.map((_, i) => i + 1),
      bases,
    );

  test("in:bases holds the SHA-1 of each base's JSON (as found, or encoded), and '' for a null base", async () => {
    const store = open();
    const site = uniqueSite();
    const stored = many(250);
    await upsert(store, site, stored, write);
    const found = await Promise.all(stored.map((p) => store.find(site, p.sku, "sku") as Promise<Product>));
    const staged = await store.beginImport(site, write);
    // Found bases, a copy this store never returned, and a null one.
    const bases: (Product | null)[] = [...found.slice(0, 249), { ...(found[249] as Product) }, null];
    const next = [...found.map((p) => ({ ...p, price: 1 })), product("new", "new-sku")];
    await addBased(staged, next, bases);
    // The first call of a script on a fresh server is sent again (NOSCRIPT), after any ping.
    const keys = await until("the adds to land", async () => {
      const keys = await incomingOf(site);
      return (await redis.admin.hlen(keys.inBases)) === next.length ? keys : undefined;
    });
    const digests = await redis.admin.hmget(keys.inBases, "new", ...stored.map((p) => p.id));
    expect(digests).toEqual(["", ...stored.map((p) => sha1(encodeProduct(p)))]);
    expect(await staged.commit()).toEqual({ applied: true, counts: { created: 1, updated: 250, unchanged: 0 } });
  });

  test("a null base whose id has a product, and a base whose product is gone, are stale", async () => {
    const store = open();
    const site = uniqueSite();
    const stored = many(300);
    await upsert(store, site, stored, write);
    const nulls = await store.beginImport(site, write);
    await addBased(nulls, many(300, 1), [...stored.slice(0, 299), null]);
    expect(await nulls.commit()).toEqual(STALE);
    await store.remove(site, stored[0]?.id as string, "id");
    const gone = await store.beginImport(site, write);
    await addBased(gone, many(300, 1), stored);
    expect(await gone.commit()).toEqual(STALE);
    expect(await productIds(redis.admin, keysOf(site))).toHaveLength(299);
    expect(await stagingOf(site)).toEqual([]);
  });

  test("a base gone stale after the commit's first page is found, in a dry run and beside conflicts too", async () => {
    const store = open({ chunkSize: 50 });
    const site = uniqueSite();
    const stored = many(400);
    await upsert(store, site, [...stored, product("holder", "held")], write);
    // Ids are judged in the order of their bytes: the last of them changes under the merge.
    const last = [...stored].sort((a, b) => (a.id < b.id ? -1 : 1)).at(-1) as Product;
    await upsert(store, site, [{ ...last, title: "meanwhile" }], write);
    for (const options of [write, { dryRun: true }]) {
      const staged = await store.beginImport(site, options);
      await addBased(staged, many(400, 1), stored);
      expect(await staged.commit()).toEqual(STALE);
    }
    // A conflict with a product of the site on an early page, the stale base on the last.
    const clash = many(400, 1).map((p, i) => (i === 0 ? { ...p, sku: "held" } : p));
    const staged = await store.beginImport(site, write);
    await addBased(staged, clash, stored);
    expect(await staged.commit()).toEqual(STALE);
    expect(await store.find(site, last.id, "id")).toEqual({ ...last, title: "meanwhile" });
    expect(await stagingOf(site)).toEqual([]);
  });

  test("an in:bases evicted after the adds: STORAGE_UNAVAILABLE, nothing written, in an empty site too", async () => {
    const store = open();
    for (const seeded of [true, false]) {
      const site = uniqueSite();
      if (seeded) await upsert(store, site, [product("seed", "seed-sku")], write);
      const staged = await store.beginImport(site, write);
      await addBased(
        staged,
        many(300),
        Array.from({ length: 300 }, () => null),
      );
      const keys = await until("the adds to land", async () => {
        const keys = await incomingOf(site);
        return (await redis.admin.hlen(keys.inBases)) === 300 ? keys : undefined;
      });
      await redis.admin.del(keys.inBases);
      const outcome = await settle(staged.commit());
      expect(outcome.ok ? "" : (outcome.error as Error).message).toMatch(/evicted.*nothing was written/);
      expect(await productIds(redis.admin, keysOf(site))).toEqual(seeded ? ["seed"] : []);
      expect(await stagingOf(site)).toEqual([]);
    }
  });
});
