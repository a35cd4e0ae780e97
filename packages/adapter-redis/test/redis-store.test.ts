import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { type CatalogStore, encodeProduct, isCatalogError, type Product, type Site } from "@catalog-kit/catalog-core";
import { testCatalogStore, uniqueSite, upsert } from "@catalog-kit/catalog-core/testing";
import { freePort, type RedisServer, startRedisServer } from "@catalog-kit/test-support";
import { describeWithRedis } from "@catalog-kit/test-support/vitest";
import fc from "fast-check";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRedisStore, redisClientOptions } from "../src/index.ts";
import { checkKeyPrefix, LOCK_FIELD, MERGING_FIELD, siteKeys } from "../src/keys.ts";
import { callScript } from "../src/lua.ts";
import { ACQUIRE } from "../src/scripts/acquire.ts";
import { RELEASE } from "../src/scripts/release.ts";
import { REMOVE_MERGING } from "../src/scripts/remove-merging.ts";
import { checkIndex } from "../src/testing/index.ts";
import { leaveMerging } from "./support/merging.ts";
import { product } from "./support/products.ts";

const write = { dryRun: false } as const;

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );
}

describeWithRedis("Redis store on a standalone server", () => {
  let server: RedisServer;
  let admin: Redis;
  beforeAll(async () => {
    server = await startRedisServer();
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    admin?.disconnect();
    await server?.stop();
  });

  testCatalogStore(() => createRedisStore({ url: server.url, keyPrefix: "test" }), {
    numRuns: 50,
    // A server of the clause's own, killed: the suite's server serves the other clauses on.
    breakable: async () => {
      const own = await startRedisServer();
      return { store: createRedisStore({ url: own.url, keyPrefix: "lost" }), breakBackend: () => own.stop() };
    },
  });

  describe("Redis specifics", () => {
    const stores: CatalogStore[] = [];
    const open = (options: Partial<Parameters<typeof createRedisStore>[0]> = {}) => {
      const store = createRedisStore({ url: server.url, keyPrefix: "specific", ...options } as Parameters<
        typeof createRedisStore
      >[0]);
      stores.push(store);
      return store;
    };
    const keysOf = (site: Site, prefix = "specific") => siteKeys(checkKeyPrefix(prefix), site);
    afterAll(async () => {
      for (const store of stores) await store.close();
    });

    test("many calls on a store still connecting share one wait: no listener warning", async () => {
      const warnings: Error[] = [];
      const onWarning = (warning: Error) => warnings.push(warning);
      process.on("warning", onWarning);
      try {
        const store = open();
        const site = uniqueSite();
        const found = await Promise.all(Array.from({ length: 40 }, (_, i) => store.find(site, `p${i}`)));
        expect(found.every((product) => product === undefined)).toBe(true);
        // Node emits the warning on the next tick.
        await new Promise((resolve) => setImmediate(resolve));
        expect(warnings.filter((warning) => warning.name === "MaxListenersExceededWarning")).toEqual([]);
      } finally {
        process.off("warning", onWarning);
      }
    });

    test("products, skus and sku-of hold what the key layout documents", async () => {
      const store = open();
      const site = { siteType: "shop{1}", siteId: "a:b%" };
      const p = product("p1", "s1", { price: 3 });
      await upsert(store, site, [p], write);
      expect(await admin.exists("specific:{shop%7B1%7D:a%3Ab%25}:products")).toBe(1);
      const keys = keysOf(site);
      expect(await admin.hget(keys.products, "p1")).toBe(encodeProduct(p));
      expect(await admin.hget(keys.skus, "s1")).toBe("p1");
      expect(await admin.hget(keys.skuOf, "p1")).toBe("s1");
    });

    test("stores with different key prefixes on one server never see each other", async () => {
      const one = open({ keyPrefix: "one" });
      const two = open({ keyPrefix: "two" });
      const site = uniqueSite();
      await upsert(one, site, [product("a", "s")], write);
      expect(await two.find(site, "a")).toBeUndefined();
      expect(await upsert(two, site, [product("b", "s")], write)).toMatchObject({ applied: true });
      expect((await one.find(site, "s"))?.id).toBe("a");
      expect(await admin.exists(keysOf(site, "one").products, keysOf(site, "two").products)).toBe(2);
    });

    test("a given client whose settings could send a command twice is refused, naming the setting", () => {
      const defaults = new Redis(server.url, { lazyConnect: true });
      expect(() => createRedisStore({ client: defaults })).toThrow(/autoResendUnfulfilledCommands/);
      const queued = new Redis(server.url, { ...redisClientOptions, enableOfflineQueue: true, lazyConnect: true });
      expect(() => createRedisStore({ client: queued })).toThrow(/enableOfflineQueue/);
      defaults.disconnect();
      queued.disconnect();
    });

    test("a store on a given client leaves the client open when it closes", async () => {
      const client = new Redis(server.url, redisClientOptions);
      const store = createRedisStore({ client, keyPrefix: "given" });
      const site = uniqueSite();
      await upsert(store, site, [product("a", "s")], write);
      await store.close();
      await store.close();
      expect(await client.ping()).toBe("PONG");
      await expect(store.find(site, "a")).rejects.toMatchObject({ code: "STORAGE_UNAVAILABLE" });
      client.disconnect();
    });

    test("a closed store answers STORAGE_UNAVAILABLE, and closing twice is safe", async () => {
      const store = createRedisStore({ url: server.url });
      await store.ping();
      await store.close();
      await store.close();
      const error = await rejection(store.ping());
      expect(isCatalogError(error, "STORAGE_UNAVAILABLE")).toBe(true);
    });

    test("bad options are refused at creation", () => {
      expect(() => createRedisStore({ url: server.url, keyPrefix: "a{b" })).toThrow(TypeError);
      expect(() => createRedisStore({ url: server.url, chunkSize: 0 })).toThrow(TypeError);
      expect(() => createRedisStore({ cluster: [] })).toThrow(TypeError);
    });

    test("scripts are sent again after Redis forgot them (SCRIPT FLUSH)", async () => {
      const store = open();
      const site = uniqueSite();
      await upsert(store, site, [product("a", "s")], write);
      await admin.script("FLUSH");
      expect(await store.find(site, "s")).toEqual(product("a", "s"));
      expect(await upsert(store, site, [product("b", "t")], write)).toMatchObject({ applied: true });
    });

    test("an unreachable Redis is STORAGE_UNAVAILABLE, quickly, with the cause kept", async () => {
      const port = await freePort();
      const store = createRedisStore({ url: `redis://127.0.0.1:${port}` });
      const started = Date.now();
      const site = uniqueSite();
      for (const call of [
        store.ping(),
        store.find(site, "a"),
        upsert(store, site, [product("a", "s")], write),
        store.remove(site, "a"),
      ]) {
        const error = await rejection(call);
        expect(isCatalogError(error, "STORAGE_UNAVAILABLE")).toBe(true);
        expect(String((error as Error).cause)).toMatch(/ECONNREFUSED/);
      }
      expect(Date.now() - started).toBeLessThan(10_000);
      await store.close();
    });

    test("writes wait for a site another import holds, then give up with STORAGE_UNAVAILABLE; reads never wait", async () => {
      const store = open({ busyTimeoutMs: 150 });
      const site = uniqueSite();
      await upsert(store, site, [product("a", "s")], write);
      await callScript(admin, ACQUIRE, keysOf(site), { token: "someone-else", lockTtlMs: 60_000 });
      for (const call of [upsert(store, site, [product("b", "t")], write), store.remove(site, "a")]) {
        expect(await rejection(call)).toMatchObject({ code: "STORAGE_UNAVAILABLE" });
      }
      expect(await store.find(site, "a")).toEqual(product("a", "s"));
      const waiting = upsert(store, site, [product("b", "t")], write);
      await callScript(admin, RELEASE, keysOf(site), { token: "someone-else" });
      expect(await waiting).toMatchObject({ applied: true });
    });

    test("a write that keeps finding the site busy while its lock is free still gives up in time", async () => {
      const store = open({ busyTimeoutMs: 300 });
      const site = uniqueSite();
      // A merging hash that no merge can empty: only a torn state could look like this.
      await admin.hset(keysOf(site).mergingProducts, "ghost", "not a product");
      await admin.hset(keysOf(site).products, MERGING_FIELD, "1");
      const started = Date.now();
      const settled = await upsert(store, site, [product("a", "s")], write).then(
        () => "applied",
        (error: unknown) => (isCatalogError(error, "STORAGE_UNAVAILABLE") ? "unavailable" : error),
      );
      expect(["applied", "unavailable"]).toContain(settled);
      expect(Date.now() - started).toBeLessThan(5_000);
      await admin.del(keysOf(site).mergingProducts);
    });

    test("an import that stopped before its commit leaves nothing, and its lock expires", async () => {
      const store = open({ lockTtlMs: 300 });
      const site = uniqueSite();
      const keys = keysOf(site);
      await upsert(store, site, [product("old", "s1")], write);
      // A writer stages a batch in Redis, then stops while its commit holds the lock.
      const token = "abandoned0000000000000000";
      const staged = await open({ chunkSize: 1 }).beginImport(site, write);
      await staged.add([product("new", "s2"), product("old", "s3")], [1, 2]);
      await callScript(admin, ACQUIRE, keys, { token, lockTtlMs: 300 });
      expect(await store.find(site, "new")).toBeUndefined();
      expect(await store.find(site, "s1", "sku")).toEqual(product("old", "s1"));
      // The lock is a field of the products hash: its name finds no product, by any field.
      for (const by of [undefined, "id", "sku"] as const)
        expect(await store.find(site, LOCK_FIELD, by)).toBeUndefined();
      expect(await upsert(store, site, [product("x", "s9")], write)).toMatchObject({ applied: true });
      expect(await store.find(site, "new")).toBeUndefined();
      expect(await checkIndex(admin, "specific", site)).toEqual([]);
    });

    test("an import that stopped after its commit is visible whole, and the next writer finishes it", async () => {
      const store = open({ lockTtlMs: 300 });
      const site = uniqueSite();
      const keys = keysOf(site);
      await upsert(store, site, [product("a", "s1"), product("b", "s2"), product("c", "s3")], write);
      const token = "committed000000000000000";
      // a and b swap skus, c takes a new one, d is new: committed, never merged, lock left to expire.
      const batch = [product("a", "s2"), product("b", "s1"), product("c", "s4"), product("d", "s3")];
      await callScript(admin, ACQUIRE, keys, { token, lockTtlMs: 300 });
      await leaveMerging(admin, keys, batch);
      const expectAll = async () => {
        for (const p of batch) {
          expect(await store.find(site, p.id, "id")).toEqual(p);
          expect(await store.find(site, p.sku, "sku")).toEqual(p);
        }
      };
      await expectAll();
      expect(await admin.exists(keys.mergingProducts)).toBe(1);
      expect(await store.remove(site, "d")).toEqual(product("d", "s3"));
      expect(await admin.exists(keys.mergingProducts)).toBe(0);
      expect(await admin.hmget(keys.products, LOCK_FIELD, MERGING_FIELD)).toEqual([null, null]);
      expect(await checkIndex(admin, "specific", site)).toEqual([]);
      expect(await store.find(site, "s3", "sku")).toBeUndefined();
    });

    test("a remove through an unfinished merge (out of memory) with an expected product removes it only while it is that one", async () => {
      const site = uniqueSite();
      const keys = keysOf(site);
      await admin.hset(keys.products, "a", encodeProduct(product("a", "s1")));
      await leaveMerging(admin, keys, [product("a", "s2")]);
      const remove = (expected: Product) =>
        callScript(admin, REMOVE_MERGING, keys, { key: "a", by: "id", expected: encodeProduct(expected) });
      expect(await remove(product("a", "s1"))).toEqual({ outcome: "ok", product: product("a", "s2") });
      expect(await admin.hexists(keys.mergingProducts, "a")).toBe(1);
      expect(await remove(product("a", "s2"))).toEqual({ outcome: "ok", product: product("a", "s2") });
      expect(await admin.hexists(keys.mergingProducts, "a")).toBe(0);
      expect(await admin.hexists(keys.products, "a")).toBe(0);
    });

    for (const [path, others] of [
      ["merged into the site", [product("other", "other-sku")]],
      ["replacing the site", []],
    ] as const) {
      test(`readers see a chunked import all or nothing while it runs (${path})`, async () => {
        const store = open({ chunkSize: 100 });
        const reader = open();
        const site = uniqueSite();
        await upsert(store, site, [product("seed", "seed-sku"), ...others], write);
        const batch = Array.from({ length: 5_000 }, (_, i) => product(`id-${i}`, `sku-${i}`));
        batch.push(product("seed", "seed-new-sku"));
        let done = false;
        const importing = upsert(store, site, batch, write).finally(() => {
          done = true;
        });
        let sawBefore = false;
        let sawAfter = false;
        // Three reads in a row, not one atomic snapshot: each one may only see the import
        // committed if the reads before it allow it.
        while (!done) {
          const old = await reader.find(site, "seed-sku", "sku");
          const last = await reader.find(site, "seed-new-sku", "sku");
          const first = await reader.find(site, "sku-0", "sku");
          if (last === undefined) {
            expect(old).toEqual(product("seed", "seed-sku"));
            sawBefore = true;
          } else {
            expect(last).toEqual(product("seed", "seed-new-sku"));
            expect(first).toEqual(product("id-0", "sku-0"));
            sawAfter = true;
          }
          if (old === undefined) expect(last).toBeDefined();
        }
        expect(await importing).toEqual({ applied: true, counts: { created: 5_000, updated: 1, unchanged: 0 } });
        expect(sawBefore || sawAfter).toBe(true);
        for (const p of others) expect(await store.find(site, p.sku, "sku")).toEqual(p);
        expect(await checkIndex(admin, "specific", site)).toEqual([]);
      });
    }

    test("a full sync that changes most products replaces the site whole, unchanged products included", async () => {
      const store = open({ chunkSize: 100 });
      const site = uniqueSite();
      const before = Array.from({ length: 1_000 }, (_, i) => product(`id-${i}`, `sku-${i}`));
      await upsert(store, site, before, write);
      // 100 unchanged, 900 changed (of which 200 swap skus pairwise), 50 new.
      const after = before.map((p, i) => {
        if (i < 100) return p;
        if (i < 300) return product(p.id, `sku-${i % 2 === 0 ? i + 1 : i - 1}`);
        return { ...p, price: 5 };
      });
      after.push(...Array.from({ length: 50 }, (_, i) => product(`new-${i}`, `new-sku-${i}`)));
      expect(await upsert(store, site, after, write)).toEqual({
        applied: true,
        counts: { created: 50, updated: 900, unchanged: 100 },
      });
      for (const p of [after[0], after[150], after[151], after[500], after[1_049]] as Product[]) {
        expect(await store.find(site, p.id, "id")).toEqual(p);
        expect(await store.find(site, p.sku, "sku")).toEqual(p);
      }
      expect(await admin.hlen(keysOf(site).products)).toBe(1_050);
      expect(await checkIndex(admin, "specific", site)).toEqual([]);
    });

    test("chunked imports, replaces and lists agree with the memory store and keep the indexes consistent", async () => {
      const store = open({ chunkSize: 2 });
      const key = fc.constantFrom("a", "b", "c", "d", "e", "f");
      const batch = fc
        .uniqueArray(fc.record({ id: key, sku: key, price: fc.constantFrom(1, 2) }), {
          selector: (p) => p.id,
          maxLength: 6,
        })
        .filter((list) => new Set(list.map((p) => p.sku)).size === list.length)
        .map((list) => list.map((p) => product(p.id, p.sku, { price: p.price })));
      const step = fc.oneof(
        fc.record({ kind: fc.constant("upsert" as const), batch, dryRun: fc.boolean(), replace: fc.boolean() }),
        fc.record({
          kind: fc.constant("list" as const),
          after: fc.option(key, { nil: undefined }),
          limit: fc.integer({ min: 1, max: 7 }),
        }),
        fc.record({
          kind: fc.constant("remove" as const),
          key,
          by: fc.constantFrom(undefined, "id" as const, "sku" as const),
        }),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(step, { maxLength: 12 }), async (steps) => {
          const site = uniqueSite();
          const model = createMemoryStore();
          for (const s of steps) {
            if (s.kind === "upsert") {
              const options = { dryRun: s.dryRun, replace: s.replace };
              expect(await upsert(store, site, s.batch, options)).toEqual(await upsert(model, site, s.batch, options));
            } else if (s.kind === "list") {
              expect(await store.list(site, s.after, s.limit)).toEqual(await model.list(site, s.after, s.limit));
            } else {
              expect(await store.remove(site, s.key, s.by)).toEqual(await model.remove(site, s.key, s.by));
            }
            expect(await checkIndex(admin, "specific", site)).toEqual([]);
          }
          for (const k of ["a", "b", "c", "d", "e", "f"])
            expect(await store.find(site, k)).toEqual(await model.find(site, k));
        }),
        { numRuns: 40 },
      );
    });

    describe("two clients importing into one site at once", () => {
      const range = (prefix: string, from: number, count: number, skuFrom: number): Product[] =>
        Array.from({ length: count }, (_, i) => product(`${prefix}-${from + i}`, `sku-${skuFrom + i}`));

      for (const [name, seeded, size] of [
        ["empty site, chunked imports", false, 3_000],
        ["filled site, chunked imports", true, 3_000],
        ["filled site, one-call imports", true, 400],
      ] as const) {
        test(`overlapping skus: exactly one wins and the index stays consistent (${name})`, async () => {
          const first = open({ chunkSize: 500 });
          const second = open({ chunkSize: 500 });
          const site = uniqueSite();
          if (seeded) await upsert(first, site, [product("seed", "seed-sku")], write);
          const a = range("a", 0, size, 0);
          const b = range("b", 0, size, size / 2);
          const [ra, rb] = await Promise.all([upsert(first, site, a, write), upsert(second, site, b, write)]);
          expect([ra.applied, rb.applied].filter(Boolean)).toHaveLength(1);
          const [winner, loser] = ra.applied ? (["a", rb] as const) : (["b", ra] as const);
          expect(loser.applied).toBe(false);
          if (!loser.applied) {
            expect(loser.conflicts).toHaveLength(size / 2);
            for (const conflict of loser.conflicts) expect(conflict.heldBy.startsWith(`${winner}-`)).toBe(true);
          }
          expect(await admin.hlen(keysOf(site).products)).toBe(size + (seeded ? 1 : 0));
          expect(await checkIndex(admin, "specific", site)).toEqual([]);
        });
      }

      test("random concurrent imports and removes from two clients keep the index consistent", async () => {
        const clients = [open({ chunkSize: 3 }), open({ chunkSize: 3 })];
        const key = fc.integer({ min: 0, max: 9 }).map(String);
        const op = fc.oneof(
          fc
            .uniqueArray(fc.tuple(key, key), { selector: ([id]) => id, maxLength: 8 })
            .filter((list) => new Set(list.map(([, sku]) => sku)).size === list.length)
            .map((list) => ({ kind: "upsert" as const, batch: list.map(([id, sku]) => product(`p${id}`, `s${sku}`)) })),
          key.map((k) => ({ kind: "remove" as const, key: `s${k}` })),
        );
        await fc.assert(
          fc.asyncProperty(fc.array(op, { maxLength: 6 }), fc.array(op, { maxLength: 6 }), async (opsA, opsB) => {
            const site = uniqueSite();
            await Promise.all(
              [opsA, opsB].map(async (ops, n) => {
                const store = clients[n] as CatalogStore;
                for (const o of ops) {
                  if (o.kind === "upsert") await upsert(store, site, o.batch, write);
                  else await store.remove(site, o.key);
                }
              }),
            );
            expect(await checkIndex(admin, "specific", site)).toEqual([]);
          }),
          { numRuns: 30 },
        );
      });
    });
  });
});
