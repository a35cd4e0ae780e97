import {
  type CatalogStore,
  isCatalogError,
  type Product,
  type Site,
  type StagedImport,
} from "@catalog-kit/catalog-core";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { type RedisServer, startRedisServer } from "@catalog-kit/test-support";
import { describeWithRedis } from "@catalog-kit/test-support/vitest";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRedisStore, type RedisStoreTuning } from "../src/index.ts";
import { checkKeyPrefix, type IncomingKeys, incomingKeys, siteKeys } from "../src/keys.ts";
import { ADD, COMMIT } from "../src/scripts.ts";
import { INCOMING_TTL_MS } from "../src/staged-stream.ts";
import { checkIndex, productIds } from "../src/testing/index.ts";
import { type Argv, type FaultProxy, isScriptCall, mentions, startFaultProxy } from "./support/fault-proxy.ts";
import { product } from "./support/products.ts";
import { settle, until } from "./support/wait.ts";

// beginImport on Redis: what the conformance clauses cannot see from outside the store. Chunks
// larger than a script call, the staging's keys and their TTL, eviction, lost replies.

const PREFIX = "stream";
const write = { dryRun: false } as const;

const range = (prefix: string, from: number, count: number, extra: Partial<Product> = {}): Product[] =>
  Array.from({ length: count }, (_, i) => product(`${prefix}-${from + i}`, `sku-${prefix}-${from + i}`, extra));

/** Adds `chunks` one after the other, positions counting from 1 over the whole import. */
async function addAll(staged: StagedImport, chunks: readonly (readonly Product[])[]): Promise<void> {
  let position = 0;
  for (const chunk of chunks)
    await staged.add(
      chunk,
      chunk.map(() => ++position),
    );
}

const isUnavailable = (error: unknown) => isCatalogError(error, "STORAGE_UNAVAILABLE");

describeWithRedis("beginImport on Redis", () => {
  let server: RedisServer;
  let admin: Redis;
  const stores: CatalogStore[] = [];
  const open = (options: RedisStoreTuning & { url?: string } = {}) => {
    const store = createRedisStore({ url: server.url, keyPrefix: PREFIX, chunkSize: 300, ...options });
    stores.push(store);
    return store;
  };
  const keysOf = (site: Site) => siteKeys(checkKeyPrefix(PREFIX), site);
  /** Every staging key of the site, of beginImport imports (`in:`) and of commits (`stage:`). */
  const stagingOf = async (site: Site) => {
    const base = keysOf(site).products.slice(0, -"products".length);
    return [...(await admin.keys(`${base}in:*`)), ...(await admin.keys(`${base}stage:*`))];
  };
  /** The keys of the one import staging into `site`. */
  const incomingOf = async (site: Site): Promise<IncomingKeys> => {
    const [key] = await admin.keys(`${keysOf(site).products.slice(0, -"products".length)}in:*:sku-of`);
    const token = /:in:([0-9a-f]+):sku-of$/.exec(key as string)?.[1] as string;
    return incomingKeys(keysOf(site), token);
  };

  beforeAll(async () => {
    server = await startRedisServer();
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    admin?.disconnect();
    await server?.stop();
  });

  for (const [path, seed] of [
    ["into an empty site", []],
    ["into a site with products (merged)", [product("seed", "seed-sku")]],
  ] as const) {
    test(`5 adds of 1,000 in chunks of 300, ${path}: nothing visible until commit, then all of it`, async () => {
      const store = open();
      const site = uniqueSite();
      if (seed.length > 0) await store.upsert(site, seed, write);
      const chunks = Array.from({ length: 5 }, (_, n) => range("id", n * 1_000, 1_000));
      const staged = await store.beginImport(site, write);
      await addAll(staged, chunks);
      expect(await store.find(site, "id-0")).toBeUndefined();
      expect(await productIds(admin, keysOf(site))).toHaveLength(seed.length);
      expect(await staged.commit()).toEqual({ applied: true, counts: { created: 5_000, updated: 0, unchanged: 0 } });
      for (const p of [chunks[0]?.[0], chunks[4]?.[999], ...seed] as Product[]) {
        expect(await store.find(site, p.sku, "sku")).toEqual(p);
      }
      expect(await productIds(admin, keysOf(site))).toHaveLength(5_000 + seed.length);
      expect(await checkIndex(admin, PREFIX, site)).toEqual([]);
      expect(await stagingOf(site)).toEqual([]);
    });
  }

  test("an id given again in a later add replaces the earlier product and counts once", async () => {
    const store = open();
    const site = uniqueSite();
    await store.upsert(site, [product("id-0", "sku-id-0"), product("id-1", "sku-id-1")], write);
    const staged = await store.beginImport(site, write);
    // 1,000 ids, then 500 of them again changed (id-1 back to what the site holds), then 500 new.
    const again = range("id", 0, 500, { price: 7 });
    again[1] = product("id-1", "sku-id-1");
    await addAll(staged, [range("id", 0, 1_000), again, range("id", 1_000, 500)]);
    expect(await staged.commit()).toEqual({ applied: true, counts: { created: 1_498, updated: 1, unchanged: 1 } });
    expect(await store.find(site, "id-0")).toEqual(product("id-0", "sku-id-0", { price: 7 }));
    expect(await store.find(site, "id-600")).toEqual(product("id-600", "sku-id-600"));
    expect(await productIds(admin, keysOf(site))).toHaveLength(1_500);
  });

  test("ids claiming one sku across adds: each claimer but the first staged is a conflict, at its last position", async () => {
    const store = open();
    const site = uniqueSite();
    const staged = await store.beginImport(site, write);
    const filler = range("f", 0, 997);
    await staged.add([product("a", "x"), product("b", "y"), ...filler], [1, 2, ...filler.map((_, i) => i + 3)]);
    // c claims x; d claims y then moves off it (resolved); a is given again, still on x.
    await staged.add([product("c", "x"), product("d", "y"), product("e", "z")], [1_000, 1_001, 1_002]);
    await staged.add([product("d", "w"), product("a", "x", { price: 2 }), product("g", "z")], [1_003, 1_004, 1_005]);
    await staged.add([product("c", "x", { price: 3 })], [1_006]);
    expect(await staged.commit()).toEqual({
      applied: false,
      conflicts: [
        { sku: "x", id: "c", heldBy: "a", position: 1_006 },
        { sku: "z", id: "g", heldBy: "e", position: 1_005 },
      ],
    });
    expect(await store.find(site, "a")).toBeUndefined();
    expect(await stagingOf(site)).toEqual([]);
  });

  test("the first claimer moving off a sku leaves it to the next one staged", async () => {
    const store = open();
    const site = uniqueSite();
    const staged = await store.beginImport(site, write);
    await addAll(staged, [[product("a", "x")], [product("b", "x")], [product("c", "x")], [product("a", "v")]]);
    expect(await staged.commit()).toEqual({
      applied: false,
      conflicts: [{ sku: "x", id: "c", heldBy: "b", position: 3 }],
    });
  });

  test("conflicts with the site list every one, in the order of the import, with positions; nothing is written", async () => {
    const store = open();
    const site = uniqueSite();
    await store.upsert(site, [product("h1", "sku-id-10"), product("h2", "sku-id-2500"), product("m", "sku-m")], write);
    const chunks = [range("id", 0, 1_000), range("id", 1_000, 2_000)];
    // id-10 is given again at the end: its conflict names that last position. m moves off sku-m,
    // so n may take it; h2 is not in the import, so sku-id-2500 is in conflict.
    chunks.push([product("id-10", "sku-id-10", { price: 1 }), product("m", "sku-m2"), product("n", "sku-m")]);
    const staged = await store.beginImport(site, write);
    await addAll(staged, chunks);
    expect(await staged.commit()).toEqual({
      applied: false,
      conflicts: [
        { sku: "sku-id-10", id: "id-10", heldBy: "h1", position: 3_001 },
        { sku: "sku-id-2500", id: "id-2500", heldBy: "h2", position: 2_501 },
      ],
    });
    expect(await productIds(admin, keysOf(site))).toHaveLength(3);
    expect(await store.find(site, "sku-m", "sku")).toEqual(product("m", "sku-m"));
    expect(await stagingOf(site)).toEqual([]);
  });

  test("a dry run answers as the import would and writes nothing", async () => {
    const store = open();
    const site = uniqueSite();
    await store.upsert(site, range("id", 0, 400), write);
    const chunks = [range("id", 0, 200), range("id", 200, 200, { price: 9 }), range("id", 400, 600)];
    const staged = await store.beginImport(site, { dryRun: true });
    await addAll(staged, chunks);
    expect(await staged.commit()).toEqual({ applied: true, counts: { created: 600, updated: 200, unchanged: 200 } });
    expect(await store.find(site, "id-300")).toEqual(product("id-300", "sku-id-300"));
    expect(await productIds(admin, keysOf(site))).toHaveLength(400);
    expect(await stagingOf(site)).toEqual([]);
  });

  test("staging keys expire, adds renew them, and abort drops them: nothing visible, the site stays writable", async () => {
    const store = open();
    const site = uniqueSite();
    const staged = await store.beginImport(site, write);
    await addAll(staged, [range("id", 0, 700)]);
    const keys = await incomingOf(site);
    const all = [keys.inProducts, keys.inSkuOf, keys.inPositions, keys.inClaims];
    for (const key of all) {
      expect(await admin.pttl(key)).toBeGreaterThan(INCOMING_TTL_MS - 5_000);
      await admin.pexpire(key, 30_000);
    }
    await staged.add([product("more", "more-sku")], [701]);
    for (const key of all) expect(await admin.pttl(key)).toBeGreaterThan(INCOMING_TTL_MS - 5_000);
    await staged.abort();
    await staged.abort();
    expect(await stagingOf(site)).toEqual([]);
    expect(await store.find(site, "id-0")).toBeUndefined();
    expect(await store.upsert(site, [product("id-0", "x")], write)).toMatchObject({ applied: true });
    await expect(staged.commit()).rejects.toThrow(/already committed or aborted/);
  });

  test("adds take no lock: a one-call write between them goes through at once, and commit judges against it", async () => {
    const store = open({ busyTimeoutMs: 200 });
    const site = uniqueSite();
    await store.upsert(site, [product("a", "sa")], write);
    const staged = await store.beginImport(site, write);
    await addAll(staged, [range("id", 0, 600), [product("a", "sa", { price: 4 })]]);
    // busyTimeoutMs is short: a held lock would make these fail.
    expect(await store.upsert(site, [product("b", "sku-id-5")], write)).toMatchObject({ applied: true });
    expect(await store.upsert(site, [product("a", "sa", { price: 4 })], write)).toMatchObject({ applied: true });
    expect(await staged.commit()).toEqual({
      applied: false,
      conflicts: [{ sku: "sku-id-5", id: "id-5", heldBy: "b", position: 6 }],
    });
    await store.remove(site, "b");
    const again = await store.beginImport(site, write);
    await addAll(again, [range("id", 0, 600), [product("a", "sa", { price: 4 })]]);
    expect(await again.commit()).toEqual({ applied: true, counts: { created: 600, updated: 0, unchanged: 1 } });
  });

  describe.each(["inProducts", "inSkuOf", "inPositions", "inClaims"] as const)(
    "a staging hash evicted before commit (%s)",
    (name) => {
      for (const dryRun of [false, true]) {
        test(`${dryRun ? "dry run" : "write"}: STORAGE_UNAVAILABLE saying so, nothing written, no key left`, async () => {
          const store = open();
          const site = uniqueSite();
          await store.upsert(site, [product("seed", "seed-sku")], write);
          const staged = await store.beginImport(site, { dryRun });
          await addAll(staged, [range("id", 0, 500), range("id", 500, 500)]);
          await admin.del((await incomingOf(site))[name]);
          const outcome = await settle(staged.commit());
          expect(outcome.ok ? outcome.value : isUnavailable(outcome.error)).toBe(true);
          expect(outcome.ok ? "" : (outcome.error as Error).message).toMatch(/evicted.*nothing was written/);
          expect(await productIds(admin, keysOf(site))).toEqual(["seed"]);
          expect(await stagingOf(site)).toEqual([]);
          expect(await store.upsert(site, [product("after", "after-sku")], write)).toMatchObject({ applied: true });
        });
      }
    },
  );

  describe("lost replies", () => {
    let proxy: FaultProxy;
    beforeAll(async () => {
      proxy = await startFaultProxy(server.port);
      // Loads the scripts, so that no drop lands on an EVALSHA that Redis refuses with NOSCRIPT.
      const warm = await open().beginImport(uniqueSite(), write);
      await warm.add([product("a", "b")], [1]);
      await warm.commit();
    });
    afterAll(() => proxy?.close());
    const scriptCall = (site: Site, sha: string) => (argv: Argv) =>
      isScriptCall(argv) && argv[1]?.toString() === sha && mentions(site.siteId)(argv);

    test("an add whose reply is lost: STORAGE_UNAVAILABLE, and the import can no longer commit", async () => {
      const store = open({ url: proxy.url });
      const site = uniqueSite();
      await until("the store to connect", async () => (await store.ping().then(() => true)) || undefined);
      const staged = await store.beginImport(site, write);
      await addAll(staged, [range("id", 0, 100)]);
      const dropped = proxy.dropReplyAfter(scriptCall(site, ADD.sha));
      const outcome = await settle(
        staged.add(
          range("id", 100, 100),
          range("id", 100, 100).map((_, i) => 101 + i),
        ),
      );
      await dropped;
      expect(outcome.ok ? outcome.value : isUnavailable(outcome.error)).toBe(true);
      await until("the store to reconnect", async () => (await store.ping().then(() => true)) || undefined);
      await expect(staged.commit()).rejects.toThrow(/incomplete; nothing was written/);
      expect(await productIds(admin, keysOf(site))).toEqual([]);
      expect(await stagingOf(site)).toEqual([]);
    });

    test("a commit whose reply is lost: STORAGE_UNAVAILABLE that does not claim nothing was written; all or nothing", async () => {
      const store = open({ url: proxy.url });
      const site = uniqueSite();
      await store.upsert(site, [product("seed", "seed-sku")], write);
      const staged = await store.beginImport(site, write);
      const batch = range("id", 0, 900);
      await addAll(staged, [batch]);
      const dropped = proxy.dropReplyAfter(scriptCall(site, COMMIT.sha));
      const outcome = await settle(staged.commit());
      await dropped;
      expect(outcome.ok ? outcome.value : (outcome.error as Error).message).toMatch(/may or may not have been applied/);
      const direct = open();
      // The next writer finishes the merge the lost reply interrupted.
      expect(await direct.upsert(site, [product("after", "after-sku")], write)).toMatchObject({ applied: true });
      const stored = (await productIds(admin, keysOf(site))).length;
      expect([2, 902]).toContain(stored);
      expect(await checkIndex(admin, PREFIX, site)).toEqual([]);
    });
  });
});
