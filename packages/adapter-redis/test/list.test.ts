import { compareIds, encodeProduct, type Product, type Site } from "@catalog-kit/catalog-core";
import { uniqueSite, upsert } from "@catalog-kit/catalog-core/testing";
import { describeWithRedis } from "@catalog-kit/test-support/vitest";
import { expect, test } from "vitest";
import { createRedisStore, type RedisStoreTuning } from "../src/index.ts";
import { checkKeyPrefix, INDEXED_FIELD, siteKeys } from "../src/keys.ts";
import { callScript } from "../src/lua.ts";
import { ACQUIRE } from "../src/scripts/acquire.ts";
import { COMMIT } from "../src/scripts/commit.ts";
import { PUBLISH } from "../src/scripts/import-publish.ts";
import { MERGE } from "../src/scripts/merge.ts";
import { checkIndex } from "../src/testing/index.ts";
import { leaveMerging } from "./support/merging.ts";
import { privateRedis } from "./support/private-redis.ts";
import { product } from "./support/products.ts";

// list and replace on Redis: what the conformance clauses cannot see from outside the store. The
// id index beside the products hash (kept by every write, rebuilt for a site written without
// it), list through a committed import still merging, and how long a replace blocks Redis.

const PREFIX = "list";
const write = { dryRun: false } as const;

describeWithRedis("list and replace on Redis", () => {
  const redis = privateRedis();
  const { stores } = redis;
  const open = (options: RedisStoreTuning = {}) => {
    const store = createRedisStore({ url: redis.server.url, keyPrefix: PREFIX, ...options });
    stores.push(store);
    return store;
  };
  const keysOf = (site: Site) => siteKeys(checkKeyPrefix(PREFIX), site);

  /** Every product of the site, walked `limit` at a time. */
  async function walk(store: ReturnType<typeof open>, site: Site, limit: number): Promise<Product[]> {
    const seen: Product[] = [];
    for (let after: string | undefined; ; ) {
      const page = await store.list(site, after, limit);
      seen.push(...page);
      if (page.length < limit) return seen;
      after = page[page.length - 1]?.id;
    }
  }

  test("every write keeps the id index: upsert, remove, chunked imports merged or replacing the site", async () => {
    const store = open({ chunkSize: 3 });
    const site = uniqueSite();
    await upsert(store, site, [product("b", "s1"), product("a", "s2")], write);
    expect(await redis.admin.zrange(keysOf(site).ids, 0, -1)).toEqual(["a", "b"]);
    await upsert(store, site, [product("c", "s3"), product("d", "s4"), product("a", "s5"), product("e", "s6")], write);
    await store.remove(site, "s1", "sku");
    expect(await redis.admin.zrange(keysOf(site).ids, 0, -1)).toEqual(["a", "c", "d", "e"]);
    await upsert(store, site, [product("a", "s5"), product("x", "s7"), product("y", "s8"), product("z", "s9")], {
      dryRun: false,
      replace: true,
    });
    expect(await redis.admin.zrange(keysOf(site).ids, 0, -1)).toEqual(["a", "x", "y", "z"]);
    expect(await checkIndex(redis.admin, PREFIX, site)).toEqual([]);
    for (const id of ["a", "x", "y", "z"]) await store.remove(site, id);
    expect(await redis.admin.exists(keysOf(site).ids, keysOf(site).products)).toBe(0);
  });

  test("list reads through a committed import still merging; the next writer finishes the merge", async () => {
    const store = open({ lockTtlMs: 300 });
    const site = uniqueSite();
    const keys = keysOf(site);
    // Ids whose UTF-8 order is not their UTF-16 order, nor any locale's.
    const before = [product("a", "s1"), product("c", "s2"), product("é", "s3"), product("😀", "s4")];
    await upsert(store, site, before, write);
    // A committed import, never merged (its writer stopped), on top of the site: it changes c
    // and adds B, d and U+FFFF.
    const token = "committed000000000000000";
    const batch = [product("B", "s5"), product("c", "s6"), product("d", "s7"), product("\uffff", "s8")];
    await callScript(redis.admin, ACQUIRE, keys, { token, lockTtlMs: 300 });
    await leaveMerging(redis.admin, keys, batch);

    const expected = [...before.filter((p) => p.id !== "c"), ...batch].sort((x, y) => compareIds(x.id, y.id));
    expect(expected.map((p) => p.id)).toEqual(["B", "a", "c", "d", "é", "\uffff", "😀"]);
    for (const limit of [1, 2, 3, 100]) expect(await walk(store, site, limit)).toEqual(expected);
    expect(await store.list(site, "c", 2)).toEqual(expected.slice(3, 5));

    // The lock expires; the next writer finishes the merge first.
    await new Promise((resolve) => setTimeout(resolve, 350));
    await upsert(store, site, [product("e", "s9")], write);
    expect(await redis.admin.exists(keys.mergingProducts, keys.mergingIds)).toBe(0);
    expect(await walk(store, site, 3)).toEqual(
      [...expected, product("e", "s9")].sort((x, y) => compareIds(x.id, y.id)),
    );
    expect(await checkIndex(redis.admin, PREFIX, site)).toEqual([]);
  });

  test("a site written without the index (or by an older store) gets it rebuilt by its first list", async () => {
    const store = open({ chunkSize: 500 });
    const site = uniqueSite();
    const keys = keysOf(site);
    const products = Array.from({ length: 2_000 }, (_, i) => product(`id-${String(i).padStart(4, "0")}`, `s-${i}`));
    await upsert(store, site, products, write);
    // What the store before the index left: no index at all.
    await redis.admin.del(keys.ids);
    expect(await store.list(site, undefined, 2)).toEqual(products.slice(0, 2));
    expect(await checkIndex(redis.admin, PREFIX, site)).toEqual([]);
    // What an older version writing beside this one leaves: a product removed from the hash but
    // not from the index, one written without its id, and as many of each, so that the counts agree.
    await redis.admin.hdel(keys.products, "id-0001");
    await redis.admin.hset(keys.products, "id-9999", JSON.stringify(product("id-9999", "s-9999")));
    await redis.admin.zadd(keys.ids, 0, "not-a-product");
    expect((await walk(store, site, 700)).map((p) => p.id)).toEqual([
      "id-0000",
      ...products.slice(2).map((p) => p.id),
      "id-9999",
    ]);
    const problems = await checkIndex(redis.admin, PREFIX, site);
    // The hand-made product has no sku entries: only those problems are left.
    expect(problems.filter((p) => p.includes("index"))).toEqual([]);
  });

  test("a walk returns every product of a site whose index an older writer left with one id stale and one missing", async () => {
    const store = open({ chunkSize: 10 });
    const site = uniqueSite();
    const keys = keysOf(site);
    const products = Array.from({ length: 30 }, (_, i) => product(`id-${String(i).padStart(2, "0")}`, `s-${i}`));
    // Staged, then renamed into the empty site, with its index marked whole.
    await upsert(store, site, products, write);
    expect(await redis.admin.hexists(keys.skuOf, INDEXED_FIELD)).toBe(1);
    // What an index kept by the version before the mark can hold after a version older still
    // (which does not keep the index) removed id-25 and added id-05x: as many ids as products,
    // the missing one on the first page of a walk, the stale one on its last.
    const added = product("id-05x", "s-x");
    await redis.admin.hdel(keys.skuOf, INDEXED_FIELD);
    await redis.admin.hdel(keys.products, "id-25");
    await redis.admin.hdel(keys.skuOf, "id-25");
    await redis.admin.hdel(keys.skus, "s-25");
    await redis.admin.hset(keys.products, added.id, encodeProduct(added));
    await redis.admin.hset(keys.skuOf, added.id, added.sku);
    await redis.admin.hset(keys.skus, added.sku, added.id);
    expect(await redis.admin.zcard(keys.ids)).toBe(await redis.admin.hlen(keys.products));

    const expected = [...products.filter((p) => p.id !== "id-25"), added].sort((x, y) => compareIds(x.id, y.id));
    expect(await walk(store, site, 10)).toEqual(expected);
    expect(await redis.admin.hexists(keys.skuOf, INDEXED_FIELD)).toBe(1);
    expect(await walk(store, site, 10)).toEqual(expected);
    expect(await checkIndex(redis.admin, PREFIX, site)).toEqual([]);
  });

  test("a site not yet marked is listed while Redis is out of memory (no rebuild can write), and marked after", async () => {
    const store = open();
    const site = uniqueSite();
    const keys = keysOf(site);
    const products = Array.from({ length: 5 }, (_, i) => product(`id-${i}`, `s-${i}`));
    // One call into an empty site: no publish, so no mark until a rebuild.
    await upsert(store, site, products, write);
    expect(await redis.admin.hexists(keys.skuOf, INDEXED_FIELD)).toBe(0);
    const used = Number(/used_memory:(\d+)/.exec(await redis.admin.info("memory"))?.[1]);
    await redis.admin.config("SET", "maxmemory", String(used - 1_000_000));
    try {
      expect(await walk(store, site, 2)).toEqual(products);
    } finally {
      await redis.admin.config("SET", "maxmemory", "0");
    }
    expect(await redis.admin.hexists(keys.skuOf, INDEXED_FIELD)).toBe(0);
    expect(await walk(store, site, 2)).toEqual(products);
    expect(await redis.admin.hexists(keys.skuOf, INDEXED_FIELD)).toBe(1);
  });

  test("a replace of 12,000 products with a tenth gone never blocks Redis longer than a chunk", async () => {
    const store = open({ chunkSize: 500 });
    const site = uniqueSite();
    const all = Array.from({ length: 12_000 }, (_, i) => product(`id-${i}`, `sku-${i}`));
    const longestScript = async () => {
      const entries = (await redis.admin.call("SLOWLOG", "GET", "-1")) as [number, number, number, string[]][];
      let longest = 0;
      for (const [, , micros, args] of entries) {
        if (/^EVAL/i.test(String(args[0])) && micros > longest) longest = micros;
      }
      await redis.admin.call("SLOWLOG", "RESET");
      return longest;
    };
    await redis.admin.config("SET", "slowlog-log-slower-than", "0");
    await redis.admin.config("SET", "slowlog-max-len", "10000");
    try {
      await redis.admin.call("SLOWLOG", "RESET");
      await upsert(store, site, all, write);
      const filling = await longestScript();
      const kept = all.filter((_, i) => i % 10 !== 0);
      expect(await upsert(store, site, kept, { dryRun: false, replace: true })).toEqual({
        applied: true,
        counts: { created: 0, updated: 0, unchanged: 10_800, deleted: 1_200 },
      });
      const replacing = await longestScript();
      // Filling stages and merges chunks of 500: a replace does no more in any one call (its
      // commit swaps the keys, and UNLINK frees the old ones off the main thread). A call that
      // walked the site (24 chunks) would take far longer than the margin left for a busy machine.
      expect(replacing).toBeLessThan(3 * filling + 5_000);
      const page = await store.list(site, undefined, 1_000);
      expect(await longestScript()).toBeLessThan(3 * filling + 5_000);
      expect(page[0]).toEqual(all[1]);
    } finally {
      await redis.admin.config("SET", "slowlog-log-slower-than", "10000");
    }
    expect(await store.find(site, "sku-10", "sku")).toBeUndefined();
    expect((await walk(store, site, 1_000)).length).toBe(10_800);
    expect(await checkIndex(redis.admin, PREFIX, site)).toEqual([]);
  });

  test("a beginImport replace is renamed over the site: nothing copied, nothing merged", async () => {
    const store = open({ chunkSize: 100 });
    const site = uniqueSite();
    const all = Array.from({ length: 1_000 }, (_, i) => product(`id-${i}`, `sku-${i}`));
    await upsert(store, site, all, write);
    const next = all.map((p, i) => (i < 10 ? { ...p, price: 1 } : p));
    const staged = await store.beginImport(site, { dryRun: false, replace: true });
    await staged.add(
      next,
      next.map((_, i) => i + 1),
    );
    await redis.admin.config("SET", "slowlog-log-slower-than", "0");
    try {
      await redis.admin.call("SLOWLOG", "RESET");
      expect(await staged.commit()).toEqual({
        applied: true,
        counts: { created: 0, updated: 10, unchanged: 990, deleted: 0 },
      });
      const entries = (await redis.admin.call("SLOWLOG", "GET", "-1")) as [number, number, number, string[]][];
      const called = new Set(entries.map(([, , , args]) => String(args[1])));
      expect({
        merge: called.has(MERGE.sha),
        commit: called.has(COMMIT.sha),
        published: called.has(PUBLISH.sha),
      }).toEqual({ merge: false, commit: false, published: true });
    } finally {
      await redis.admin.config("SET", "slowlog-log-slower-than", "10000");
    }
    expect(await store.find(site, "id-3")).toEqual(next[3]);
    expect(await checkIndex(redis.admin, PREFIX, site)).toEqual([]);
  });
});
