import { isCatalogError, type Product, type Site, type StagedImport } from "@catalog-kit/catalog-core";
import { uniqueSite, upsert } from "@catalog-kit/catalog-core/testing";
import { type RedisServer, startRedisServer } from "@catalog-kit/test-support";
import { describeWithRedis } from "@catalog-kit/test-support/vitest";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createRedisStore } from "../src/index.ts";
import { checkKeyPrefix, idempotencyKeys, MERGING_FIELD, siteKeys } from "../src/keys.ts";
import { checkIndex, productIds } from "../src/testing/index.ts";
import { leaveMerging } from "./support/merging.ts";
import { product } from "./support/products.ts";
import { settle } from "./support/wait.ts";

// Under `noeviction`, a Redis at maxmemory refuses every command that may grow memory, the HSET
// that takes a site's lock included, but not deletes. A site whose merge memory stopped (its
// MERGING field set) must still accept the one write that frees memory, remove, and a write
// Redis refused must say that nothing was written. A commit under an idempotency key that Redis
// refuses writes neither the key's record nor a product.

const PREFIX = "oom";
const write = { dryRun: false } as const;

// Large, so that removing a few frees memory that INFO shows.
const big = (id: string, sku: string): Product => product(id, sku, { description: "x".repeat(100_000) });

describeWithRedis("a site left merging when Redis is out of memory (noeviction)", () => {
  let server: RedisServer;
  let admin: Redis;
  const keysOf = (site: Site) => siteKeys(checkKeyPrefix(PREFIX), site);
  const used = async () => Number(/used_memory:(\d+)/.exec(await admin.info("memory"))?.[1]);
  beforeAll(async () => {
    server = await startRedisServer({ args: ["--maxmemory-policy", "noeviction"] });
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    admin?.disconnect();
    await server?.stop();
  });

  test("remove works and frees memory; a write Redis refused says that nothing was written", async () => {
    const store = createRedisStore({ url: server.url, keyPrefix: PREFIX, busyTimeoutMs: 2_000 });
    const site = uniqueSite();
    const keys = keysOf(site);
    await upsert(store, site, [big("a", "s1"), big("b", "s2"), big("c", "s3"), big("e", "s5")], write);
    // A committed import whose merge never ran (memory stopped it): a and b swap skus, c moves
    // to a new one, d takes c's old one.
    const batch = [big("a", "s2"), big("b", "s1"), big("c", "s4"), big("d", "s3")];
    await leaveMerging(admin, keys, batch);
    expect(await admin.hexists(keys.products, MERGING_FIELD)).toBe(1);

    let filled = 0;
    try {
      await admin.config("SET", "maxmemory", String((await used()) + 2_000_000));
      for (;;) {
        const set = await settle(admin.set(`filler:${filled}`, "y".repeat(100_000)));
        if (!set.ok) {
          expect(String(set.error)).toMatch(/^ReplyError: OOM /);
          break;
        }
        filled += 1;
      }
      // Client buffers freed after the refusal (the refused SET's own 100 KB) can leave Redis
      // just under the limit: it goes under what is used, as when accepted writes overshoot it.
      await admin.config("SET", "maxmemory", String((await used()) - 1_000_000));

      const refused = await settle(upsert(store, site, [product("f", "s6")], write));
      expect(refused.ok).toBe(false);
      if (!refused.ok) {
        expect((refused.error as Error).message).toMatch(/out of memory.*; nothing was written$/);
        expect((refused.error as Error).message).not.toMatch(/may or may not/);
      }

      const full = await used();
      expect(await store.remove(site, "s1", "sku")).toEqual(batch[1]);
      expect(await store.remove(site, "c")).toEqual(batch[2]);
      expect(await store.remove(site, "e")).toEqual(big("e", "s5"));
      expect(await store.remove(site, "nothing")).toBeUndefined();
      expect(await used()).toBeLessThan(full - 300_000);

      // What readers see is what a finished merge followed by these removes would show.
      const left = [batch[0], batch[3]];
      expect(await store.list(site, undefined, 10)).toEqual(left);
      for (const key of ["b", "c", "e", "s1", "s4", "s5"]) expect(await store.find(site, key)).toBeUndefined();
      expect(await store.find(site, "s2", "sku")).toEqual(batch[0]);
      expect(await store.find(site, "s3", "sku")).toEqual(batch[3]);
      expect(await store.find(site, "a", "id")).toEqual(batch[0]);
    } finally {
      await admin.config("SET", "maxmemory", "0");
      for (let i = 0; i < filled; i++) await admin.del(`filler:${i}`);
    }

    // With memory back, the next write finishes the merge.
    expect(await upsert(store, site, [product("f", "s6")], write)).toMatchObject({ applied: true });
    expect(await admin.hexists(keys.products, MERGING_FIELD)).toBe(0);
    expect(await store.list(site, undefined, 10)).toEqual([batch[0], batch[3], product("f", "s6")]);
    expect(await checkIndex(admin, PREFIX, site)).toEqual([]);
    await store.close();
  });

  test("a keyed commit Redis refuses for memory writes neither its record nor its products", async () => {
    const store = createRedisStore({ url: server.url, keyPrefix: PREFIX, chunkSize: 50, busyTimeoutMs: 2_000 });
    const sites = [uniqueSite(), uniqueSite()];
    // One held in the process (one call), one staged in Redis: only their commits meet the refusal.
    const batches = [[product("a", "sa")], Array.from({ length: 120 }, (_, i) => product(`id-${i}`, `sku-${i}`))];
    const key = { key: "k", fingerprint: "f", retainMs: 60_000, claimed: false };
    const begin = async (site: Site, batch: Product[]) => {
      const staging = await store.beginImport(site, write);
      await staging.add(
        batch,
        batch.map((_, at) => at + 1),
      );
      return staging;
    };
    const staged = await Promise.all(sites.map((site, i) => begin(site, batches[i] as Product[])));
    let filled = 0;
    try {
      await admin.config("SET", "maxmemory", String((await used()) + 2_000_000));
      for (;;) {
        const set = await settle(admin.set(`filler:${filled}`, "y".repeat(100_000)));
        if (!set.ok) break;
        filled += 1;
      }
      await admin.config("SET", "maxmemory", String((await used()) - 1_000_000));
      for (const [i, site] of sites.entries()) {
        const outcome = await settle((staged[i] as StagedImport).commit(key));
        expect(outcome.ok).toBe(false);
        const error = outcome.ok ? undefined : outcome.error;
        expect(isCatalogError(error, "STORAGE_UNAVAILABLE")).toBe(true);
        expect((error as Error).message).toMatch(/out of memory.*nothing was written/);
        expect(await admin.exists(idempotencyKeys(keysOf(site), "k").keyRecord)).toBe(0);
        expect(await productIds(admin, keysOf(site))).toEqual([]);
      }
    } finally {
      await admin.config("SET", "maxmemory", "0");
      for (let i = 0; i < filled; i++) await admin.del(`filler:${i}`);
    }
    // Once memory is back, the same import under the key applies and records it.
    for (const [i, site] of sites.entries()) {
      expect(await (await begin(site, batches[i] as Product[])).commit(key)).toMatchObject({ applied: true });
      expect((await store.claimKey(site, "k", 60_000)).state).toBe("recorded");
    }
    await store.close();
  });
});
