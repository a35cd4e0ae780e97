import {
  type CatalogStore,
  isCatalogError,
  type Product,
  type Site,
  type StagedImport,
} from "@catalog-kit/catalog-core";
import { uniqueSite, upsert } from "@catalog-kit/catalog-core/testing";
import { describeWithRedis } from "@catalog-kit/test-support/vitest";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRedisStore, type RedisStoreTuning } from "../src/index.ts";
import { checkKeyPrefix, type IncomingKeys, idempotencyKeys, incomingKeys, LOCK_FIELD, siteKeys } from "../src/keys.ts";
import { callScript } from "../src/lua.ts";
import { COMMIT } from "../src/scripts/commit.ts";
import { ADD } from "../src/scripts/import-add.ts";
import { PUBLISH } from "../src/scripts/import-publish.ts";
import { SPANS } from "../src/scripts/import-spans.ts";
import { INCOMING_TTL_MS } from "../src/staged-stream.ts";
import { checkIndex, productIds } from "../src/testing/index.ts";
import { type Argv, type FaultProxy, isScriptCall, mentions, startFaultProxy } from "./support/fault-proxy.ts";
import { privateRedis } from "./support/private-redis.ts";
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

/**
 * Adds the chunks, and waits for them to land in Redis: an add may return with its last calls in
 * flight, and a ping on the store's connection is answered after them.
 */
async function addLanded(store: CatalogStore, staged: StagedImport, chunks: readonly (readonly Product[])[]) {
  await addAll(staged, chunks);
  await store.ping();
}

const isUnavailable = (error: unknown) => isCatalogError(error, "STORAGE_UNAVAILABLE");

describeWithRedis("beginImport on Redis", () => {
  const redis = privateRedis();
  const { stores } = redis;
  const open = (options: RedisStoreTuning & { url?: string } = {}) => {
    const store = createRedisStore({ url: redis.server.url, keyPrefix: PREFIX, chunkSize: 300, ...options });
    stores.push(store);
    return store;
  };
  const keysOf = (site: Site) => siteKeys(checkKeyPrefix(PREFIX), site);
  /** Every staging key of the site, of beginImport imports (`in:`) and of commits (`stage:`). */
  const stagingOf = async (site: Site) => {
    const base = keysOf(site).products.slice(0, -"products".length);
    return [...(await redis.admin.keys(`${base}in:*`)), ...(await redis.admin.keys(`${base}stage:*`))];
  };
  /** The keys of the one import staging into `site`. */
  const incomingOf = async (site: Site): Promise<IncomingKeys> => {
    const [key] = await redis.admin.keys(`${keysOf(site).products.slice(0, -"products".length)}in:*:sku-of`);
    const token = /:in:([0-9a-f]+):sku-of$/.exec(key as string)?.[1] as string;
    return incomingKeys(keysOf(site), token);
  };
  /** Keyspace events on the site's keys (all of them, the import's included) from now until `stop()`, in order. */
  const watchKeys = async (site: Site) => {
    const base = keysOf(site).products.slice(0, -"products".length);
    const channel = "__keyspace@0__:";
    const marker = `end-${site.siteId}`;
    const subscriber = new Redis(redis.server.url);
    const events: [key: string, event: string][] = [];
    let ended = false;
    subscriber.on("pmessage", (_pattern: string, from: string, event: string) => {
      events.push([from.slice(channel.length), event]);
    });
    subscriber.on("message", (from: string) => {
      if (from === marker) ended = true;
    });
    await redis.admin.config("SET", "notify-keyspace-events", "KA");
    // Connected first: ioredis's ready check (INFO) is refused once the connection subscribes.
    await subscriber.ping();
    await subscriber.psubscribe(`${channel}${base}*`);
    await subscriber.subscribe(marker);
    return {
      /** The events so far: Redis sends them in order, so once the marker is in, all of them are. */
      async stop(): Promise<[key: string, event: string][]> {
        await redis.admin.publish(marker, "end");
        await until("the keyspace events", async () => ended || undefined);
        await redis.admin.config("SET", "notify-keyspace-events", "");
        subscriber.disconnect();
        return events;
      },
    };
  };
  /** The events of one key, in order. */
  const eventsOf = (events: [string, string][], key: string) => events.filter(([k]) => k === key).map(([, e]) => e);
  /** Keys of the site that are neither its own nor the import's: a `stage:` or `merging:` key. */
  const copies = (events: [string, string][]) => [
    ...new Set(events.map(([key]) => key).filter((key) => /:(stage|merging):/.test(key))),
  ];

  for (const [path, seed] of [
    ["into an empty site", []],
    ["into a site with products (merged)", [product("seed", "seed-sku")]],
  ] as const) {
    test(`5 adds of 1,000 in chunks of 300, ${path}: nothing visible until commit, then all of it`, async () => {
      const store = open();
      const site = uniqueSite();
      if (seed.length > 0) await upsert(store, site, seed, write);
      const chunks = Array.from({ length: 5 }, (_, n) => range("id", n * 1_000, 1_000));
      const staged = await store.beginImport(site, write);
      await addAll(staged, chunks);
      expect(await store.find(site, "id-0")).toBeUndefined();
      expect(await productIds(redis.admin, keysOf(site))).toHaveLength(seed.length);
      expect(await staged.commit()).toEqual({ applied: true, counts: { created: 5_000, updated: 0, unchanged: 0 } });
      for (const p of [chunks[0]?.[0], chunks[4]?.[999], ...seed] as Product[]) {
        expect(await store.find(site, p.sku, "sku")).toEqual(p);
      }
      expect(await productIds(redis.admin, keysOf(site))).toHaveLength(5_000 + seed.length);
      expect(await checkIndex(redis.admin, PREFIX, site)).toEqual([]);
      expect(await stagingOf(site)).toEqual([]);
    });
  }

  test("an id given again in a later add replaces the earlier product and counts once", async () => {
    const store = open();
    const site = uniqueSite();
    await upsert(store, site, [product("id-0", "sku-id-0"), product("id-1", "sku-id-1")], write);
    const staged = await store.beginImport(site, write);
    // 1,000 ids, then 500 of them again changed (id-1 back to what the site holds), then 500 new.
    const again = range("id", 0, 500, { price: 7 });
    again[1] = product("id-1", "sku-id-1");
    await addAll(staged, [range("id", 0, 1_000), again, range("id", 1_000, 500)]);
    expect(await staged.commit()).toEqual({ applied: true, counts: { created: 1_498, updated: 1, unchanged: 1 } });
    expect(await store.find(site, "id-0")).toEqual(product("id-0", "sku-id-0", { price: 7 }));
    expect(await store.find(site, "id-600")).toEqual(product("id-600", "sku-id-600"));
    expect(await productIds(redis.admin, keysOf(site))).toHaveLength(1_500);
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
    await upsert(store, site, [product("h1", "sku-id-10"), product("h2", "sku-id-2500"), product("m", "sku-m")], write);
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
    expect(await productIds(redis.admin, keysOf(site))).toHaveLength(3);
    expect(await store.find(site, "sku-m", "sku")).toEqual(product("m", "sku-m"));
    expect(await stagingOf(site)).toEqual([]);
  });

  test("a dry run answers as the import would and writes nothing", async () => {
    const store = open();
    const site = uniqueSite();
    await upsert(store, site, range("id", 0, 400), write);
    const chunks = [range("id", 0, 200), range("id", 200, 200, { price: 9 }), range("id", 400, 600)];
    const staged = await store.beginImport(site, { dryRun: true });
    await addAll(staged, chunks);
    expect(await staged.commit()).toEqual({ applied: true, counts: { created: 600, updated: 200, unchanged: 200 } });
    expect(await store.find(site, "id-300")).toEqual(product("id-300", "sku-id-300"));
    expect(await productIds(redis.admin, keysOf(site))).toHaveLength(400);
    expect(await stagingOf(site)).toEqual([]);
  });

  test("staging keys expire, adds renew them, and abort drops them: nothing visible, the site stays writable", async () => {
    const store = open();
    const site = uniqueSite();
    const staged = await store.beginImport(site, write);
    await addLanded(store, staged, [range("id", 0, 700)]);
    const keys = await incomingOf(site);
    const all = [keys.inProducts, keys.inSkuOf, keys.inSkus, keys.inIds, keys.inPositions];
    for (const key of all) {
      expect(await redis.admin.pttl(key)).toBeGreaterThan(INCOMING_TTL_MS - 5_000);
      await redis.admin.pexpire(key, 30_000);
    }
    await staged.add([product("more", "more-sku")], [701]);
    await store.ping();
    for (const key of all) expect(await redis.admin.pttl(key)).toBeGreaterThan(INCOMING_TTL_MS - 5_000);
    await staged.abort();
    await staged.abort();
    expect(await stagingOf(site)).toEqual([]);
    expect(await store.find(site, "id-0")).toBeUndefined();
    expect(await upsert(store, site, [product("id-0", "x")], write)).toMatchObject({ applied: true });
    await expect(staged.commit()).rejects.toThrow(/already committed or aborted/);
  });

  test("adds take no lock: a one-call write between them goes through at once, and commit judges against it", async () => {
    const store = open({ busyTimeoutMs: 200 });
    const site = uniqueSite();
    await upsert(store, site, [product("a", "sa")], write);
    const staged = await store.beginImport(site, write);
    await addAll(staged, [range("id", 0, 600), [product("a", "sa", { price: 4 })]]);
    // busyTimeoutMs is short: a held lock would make these fail.
    expect(await upsert(store, site, [product("b", "sku-id-5")], write)).toMatchObject({ applied: true });
    expect(await upsert(store, site, [product("a", "sa", { price: 4 })], write)).toMatchObject({ applied: true });
    expect(await staged.commit()).toEqual({
      applied: false,
      conflicts: [{ sku: "sku-id-5", id: "id-5", heldBy: "b", position: 6 }],
    });
    await store.remove(site, "b");
    const again = await store.beginImport(site, write);
    await addAll(again, [range("id", 0, 600), [product("a", "sa", { price: 4 })]]);
    expect(await again.commit()).toEqual({ applied: true, counts: { created: 600, updated: 0, unchanged: 1 } });
  });

  describe("the bulk load of an empty site", () => {
    test("is published by renaming the import's keys into the site's: no product written again, no staging copy", async () => {
      const store = open();
      const site = uniqueSite();
      const keys = keysOf(site);
      const watch = await watchKeys(site);
      const staged = await store.beginImport(site, write);
      await addAll(staged, [range("id", 0, 1_000), range("id", 1_000, 1_000), range("id", 2_000, 1_000)]);
      expect(await staged.commit()).toEqual({ applied: true, counts: { created: 3_000, updated: 0, unchanged: 0 } });
      const events = await watch.stop();
      expect(copies(events)).toEqual([]);
      // The site's products hash is written only for the lock (a field of its own): the products
      // arrive with the RENAME.
      const onProducts = eventsOf(events, keys.products);
      expect(onProducts.filter((e) => e === "hset").length).toBeLessThanOrEqual(3);
      expect(onProducts.filter((e) => e !== "hset" && e !== "hdel")).toEqual(["del", "rename_to", "persist"]);
      for (const key of [keys.skus, keys.skuOf, keys.ids])
        expect(eventsOf(events, key)).toEqual(["rename_to", "persist"]);
      for (const key of [keys.products, keys.skus, keys.skuOf, keys.ids]) expect(await redis.admin.pttl(key)).toBe(-1);
      expect(await productIds(redis.admin, keys)).toHaveLength(3_000);
      expect(await store.find(site, "sku-id-2999", "sku")).toEqual(product("id-2999", "sku-id-2999"));
      expect((await store.list(site, undefined, 3)).map((p) => p.id)).toEqual(["id-0", "id-1", "id-10"]);
      expect(await checkIndex(redis.admin, PREFIX, site)).toEqual([]);
      expect(await stagingOf(site)).toEqual([]);
    });

    test("a dry run answers every product created and writes nothing", async () => {
      const store = open();
      const site = uniqueSite();
      const staged = await store.beginImport(site, { dryRun: true });
      await addAll(staged, [range("id", 0, 700), range("id", 0, 100, { price: 5 })]);
      expect(await staged.commit()).toEqual({ applied: true, counts: { created: 700, updated: 0, unchanged: 0 } });
      expect(await redis.admin.exists(...Object.values(keysOf(site)))).toBe(0);
      expect(await stagingOf(site)).toEqual([]);
    });

    test("replace: renamed the same way, every product created, none deleted", async () => {
      const store = open();
      const site = uniqueSite();
      const watch = await watchKeys(site);
      const staged = await store.beginImport(site, { dryRun: false, replace: true });
      await addAll(staged, [range("id", 0, 800), range("id", 800, 400)]);
      expect(await staged.commit()).toEqual({
        applied: true,
        counts: { created: 1_200, updated: 0, unchanged: 0, deleted: 0 },
      });
      const events = await watch.stop();
      expect(copies(events)).toEqual([]);
      expect(eventsOf(events, keysOf(site).skus)).toEqual(["rename_to", "persist"]);
      expect(await productIds(redis.admin, keysOf(site))).toHaveLength(1_200);
      expect(await checkIndex(redis.admin, PREFIX, site)).toEqual([]);
      expect(await stagingOf(site)).toEqual([]);
    });

    test("a site filled by another writer between the adds and the commit is judged: counts and conflicts against its products", async () => {
      const store = open();
      const site = uniqueSite();
      const staged = await store.beginImport(site, write);
      await addAll(staged, [range("id", 0, 600)]);
      // Another writer creates the site meanwhile: id-5 as the import has it, id-6 otherwise, w apart.
      const writer = [product("id-5", "sku-id-5"), product("id-6", "sku-id-6", { price: 3 }), product("w", "sku-w")];
      await upsert(store, site, writer, write);
      expect(await staged.commit()).toEqual({ applied: true, counts: { created: 598, updated: 1, unchanged: 1 } });
      expect(await productIds(redis.admin, keysOf(site))).toHaveLength(601);
      expect(await store.find(site, "w")).toEqual(product("w", "sku-w"));
      expect(await store.find(site, "id-6")).toEqual(product("id-6", "sku-id-6"));
      expect(await checkIndex(redis.admin, PREFIX, site)).toEqual([]);
      expect(await stagingOf(site)).toEqual([]);

      const other = uniqueSite();
      const refused = await store.beginImport(other, write);
      await addAll(refused, [range("id", 0, 600)]);
      await upsert(store, other, [product("x", "sku-id-7")], write);
      expect(await refused.commit()).toEqual({
        applied: false,
        conflicts: [{ sku: "sku-id-7", id: "id-7", heldBy: "x", position: 8 }],
      });
      expect(await productIds(redis.admin, keysOf(other))).toEqual(["x"]);
      expect(await stagingOf(other)).toEqual([]);
    });
  });

  describe("skus several ids claim during the import", () => {
    for (const [path, seed] of [
      ["into an empty site", []],
      ["into a site with products", [product("seed", "seed-sku")]],
    ] as const) {
      test(`${path}: the holder moving off while others still claim it, each sku goes to its one claimer at the end`, async () => {
        const store = open();
        const site = uniqueSite();
        if (seed.length > 0) await upsert(store, site, seed, write);
        const staged = await store.beginImport(site, write);
        const filler = range("f", 0, 400);
        // a, b and c claim x; a moves to y, then b to z: c is x's only claimer, which the
        // import's keys no longer name.
        await addAll(staged, [
          [product("a", "x"), product("b", "x"), ...filler, product("c", "x")],
          [product("a", "y")],
          [product("b", "z")],
        ]);
        expect(await staged.commit()).toEqual({ applied: true, counts: { created: 403, updated: 0, unchanged: 0 } });
        expect((await store.find(site, "x", "sku"))?.id).toBe("c");
        expect((await store.find(site, "y", "sku"))?.id).toBe("a");
        expect((await store.find(site, "z", "sku"))?.id).toBe("b");
        expect(await checkIndex(redis.admin, PREFIX, site)).toEqual([]);
        expect(await stagingOf(site)).toEqual([]);
      });
    }

    test("still claimed twice at commit: those conflicts with their last positions, and those with the site", async () => {
      const store = open();
      const site = uniqueSite();
      // The site's holder of sku-id-3 stays: a conflict answered with the import's own.
      await upsert(store, site, [product("h", "sku-id-3")], write);
      const staged = await store.beginImport(site, write);
      await addAll(staged, [
        range("id", 0, 500),
        [product("twin", "sku-id-7"), product("id-7", "sku-id-7", { price: 1 })],
        [product("twin", "sku-id-7", { price: 2 })],
      ]);
      expect(await staged.commit()).toEqual({
        applied: false,
        conflicts: [
          { sku: "sku-id-3", id: "id-3", heldBy: "h", position: 4 },
          { sku: "sku-id-7", id: "twin", heldBy: "id-7", position: 503 },
        ],
      });
      expect(await productIds(redis.admin, keysOf(site))).toEqual(["h"]);
      expect(await stagingOf(site)).toEqual([]);
    });
  });

  test("replace into a site with products: judged, then renamed in place of the site; nothing copied, nothing merged", async () => {
    const store = open();
    const site = uniqueSite();
    await upsert(store, site, range("id", 0, 500), write);
    const next = range("id", 250, 500).map((p, i) => (i >= 50 && i < 100 ? { ...p, price: 9 } : p));
    const watch = await watchKeys(site);
    const staged = await store.beginImport(site, { dryRun: false, replace: true });
    await addAll(staged, [next.slice(0, 300), next.slice(300)]);
    expect(await staged.commit()).toEqual({
      applied: true,
      counts: { created: 250, updated: 50, unchanged: 200, deleted: 250 },
    });
    const events = await watch.stop();
    expect(copies(events)).toEqual([]);
    expect(eventsOf(events, keysOf(site).skus)).toEqual(["del", "rename_to", "persist"]);
    expect(await store.find(site, "sku-id-0", "sku")).toBeUndefined();
    expect(await store.find(site, "id-300")).toEqual(product("id-300", "sku-id-300", { price: 9 }));
    expect(await productIds(redis.admin, keysOf(site))).toHaveLength(500);
    expect(await checkIndex(redis.admin, PREFIX, site)).toEqual([]);
    expect(await stagingOf(site)).toEqual([]);
  });

  /**
   * Runs `body` with every command in the SLOWLOG; then, for a script, the ARGV of each of its
   * calls (EVALSHA, sha, numkeys and the keys come first), indexed from 1 as in Lua.
   */
  const recording = async (body: () => Promise<void>) => {
    await redis.admin.config("SET", "slowlog-max-len", "1024");
    await redis.admin.config("SET", "slowlog-log-slower-than", "0");
    let entries: [number, number, number, string[]][];
    try {
      await redis.admin.call("SLOWLOG", "RESET");
      await body();
      entries = (await redis.admin.call("SLOWLOG", "GET", "-1")) as typeof entries;
    } finally {
      await redis.admin.config("SET", "slowlog-log-slower-than", "10000");
      await redis.admin.config("SET", "slowlog-max-len", "128");
    }
    return (script: typeof PUBLISH | typeof COMMIT) =>
      entries
        .map(([, , , args]) => args)
        .filter((args) => args[1] === script.sha)
        .map((args) => [undefined, ...args.slice(3 + script.keys.length)]);
  };

  for (const [what, changes, mode] of [
    [
      "most products: the unchanged ones are dropped from the import's keys, which are renamed into the merging keys",
      900,
      "drop",
    ],
    [
      "few products: the changed ones are copied into the stage: keys, which are renamed into the merging keys",
      100,
      "copy",
    ],
  ] as const) {
    test(`a re-import that changes ${what}`, async () => {
      const store = open();
      const site = uniqueSite();
      await upsert(store, site, range("id", 0, 1_000), write);
      const watch = await watchKeys(site);
      const staged = await store.beginImport(site, write);
      const again = range("id", 0, 1_000).map((p, i) =>
        (i % 10 === 0) === (mode === "copy") ? { ...p, price: 4 } : p,
      );
      // The new ids sort after the others: the first page judged is a fair sample of the re-import.
      await addAll(staged, [again, range("new", 0, 200)]);
      let result: unknown;
      const calls = await recording(async () => {
        result = await staged.commit();
      });
      expect(result).toEqual({ applied: true, counts: { created: 200, updated: changes, unchanged: 1_000 - changes } });
      const events = await watch.stop();
      // What is renamed into the merging keys is what changed, no more: PUBLISH (the import's
      // keys) or COMMIT (the stage: keys) is told how many products, and refuses unless its keys
      // hold exactly that many.
      const published = calls(PUBLISH)
        .filter((argv) => argv[3] === "merge")
        .map((argv) => argv[5]);
      const committed = calls(COMMIT).map((argv) => argv[3]);
      const staging = copies(events).filter((key) => key.includes(":stage:"));
      if (mode === "drop") {
        expect({ published, committed, staging }).toEqual({
          published: [String(changes + 200)],
          committed: [],
          staging: [],
        });
      } else {
        expect({ published, committed }).toEqual({ published: [], committed: [String(changes + 200)] });
        expect(staging).not.toEqual([]);
      }
      expect(eventsOf(events, keysOf(site).mergingProducts)[0]).toBe("rename_to");
      expect(await redis.admin.exists(keysOf(site).mergingProducts)).toBe(0);
      expect(await store.find(site, "id-10")).toEqual(again[10]);
      expect(await productIds(redis.admin, keysOf(site))).toHaveLength(1_200);
      expect(await checkIndex(redis.admin, PREFIX, site)).toEqual([]);
      expect(await stagingOf(site)).toEqual([]);
    });
  }

  describe.each(["inProducts", "inSkuOf", "inSkus", "inIds", "inPositions"] as const)(
    "a key of the import evicted before commit (%s)",
    (name) => {
      for (const [path, seed] of [
        ["into an empty site (renamed)", []],
        ["into a site with products (judged)", [product("seed", "seed-sku")]],
      ] as const) {
        for (const dryRun of [false, true]) {
          test(`${path}, ${dryRun ? "dry run" : "write"}: STORAGE_UNAVAILABLE saying so, nothing written, no key left`, async () => {
            const store = open();
            const site = uniqueSite();
            if (seed.length > 0) await upsert(store, site, seed, write);
            const staged = await store.beginImport(site, { dryRun });
            await addLanded(store, staged, [range("id", 0, 500), range("id", 500, 500)]);
            await redis.admin.del((await incomingOf(site))[name]);
            const outcome = await settle(staged.commit());
            expect(outcome.ok ? outcome.value : isUnavailable(outcome.error)).toBe(true);
            expect(outcome.ok ? "" : (outcome.error as Error).message).toMatch(/evicted.*nothing was written/);
            expect(await productIds(redis.admin, keysOf(site))).toEqual(seed.map((p) => p.id));
            expect(await stagingOf(site)).toEqual([]);
            expect(await upsert(store, site, [product("after", "after-sku")], write)).toMatchObject({ applied: true });
          });
        }
      }

      test("evicted after commit counted it: the publishing script itself refuses, and renames nothing", async () => {
        const store = open();
        const site = uniqueSite();
        const staged = await store.beginImport(site, write);
        // Chunks of 300: 4 chunks, 1,000 ids and skus.
        await addLanded(store, staged, [range("id", 0, 500), range("id", 500, 500)]);
        const keys = { ...keysOf(site), ...(await incomingOf(site)), ...idempotencyKeys(keysOf(site)) };
        await redis.admin.del(keys[name]);
        const token = "evict-test";
        await redis.admin.hset(keys.products, LOCK_FIELD, `${token} ${Date.now() + 60_000}`);
        const publish = {
          where: "empty",
          checkOnly: false,
          products: 1_000,
          skus: 1_000,
          chunks: 4,
          siteSize: 0,
        } as const;
        expect(await callScript(redis.admin, PUBLISH, keys, { token, lockTtlMs: 10_000, ...publish })).toEqual({
          outcome: "evicted",
        });
        expect(await productIds(redis.admin, keysOf(site))).toEqual([]);
        expect(await redis.admin.exists(keysOf(site).skus, keysOf(site).skuOf, keysOf(site).ids)).toBe(0);
        await redis.admin.hdel(keys.products, LOCK_FIELD);
        await staged.abort();
        expect(await stagingOf(site)).toEqual([]);
      });
    },
  );

  test("positions gathered for conflicts: an in:spans evicted between two chunks is found, not rebuilt in part", async () => {
    const store = open();
    const site = uniqueSite();
    const staged = await store.beginImport(site, write);
    await addLanded(store, staged, [range("id", 0, 500)]);
    const keys = await incomingOf(site);
    expect(await callScript(redis.admin, SPANS, keys, { ttlMs: 60_000, first: true, chunks: [1] })).toEqual({
      outcome: "ok",
    });
    expect(await redis.admin.hget(keys.inSpans, "id-3")).toBe("4 4");
    await redis.admin.del(keys.inSpans);
    expect(await callScript(redis.admin, SPANS, keys, { ttlMs: 60_000, first: false, chunks: [2] })).toEqual({
      outcome: "evicted",
    });
    await staged.abort();
    expect(await stagingOf(site)).toEqual([]);
  });

  test("a contested import whose positions were evicted: STORAGE_UNAVAILABLE, never conflicts without positions", async () => {
    const store = open();
    const site = uniqueSite();
    const staged = await store.beginImport(site, write);
    await addLanded(store, staged, [range("id", 0, 500), [product("twin", "sku-id-7")]]);
    await redis.admin.del((await incomingOf(site)).inPositions);
    const outcome = await settle(staged.commit());
    expect(outcome.ok ? "" : (outcome.error as Error).message).toMatch(/evicted.*nothing was written/);
    expect(await stagingOf(site)).toEqual([]);
  });

  describe("bases of a merge staged in Redis (clause 7 of commit)", () => {
    const STALE = { applied: false, conflicts: [], stale: true };
    // Each chunk staged with its products' bases, positions counting from 1.
    async function addBased(
      staged: StagedImport,
      chunks: readonly (readonly Product[])[],
      bases: (p: Product) => Product | null,
    ) {
      let position = 0;
      for (const chunk of chunks) {
        await staged.add(
          chunk,
          chunk.map(() => ++position),
          chunk.map(bases),
        );
      }
    }

    test("bases that hold apply, into an empty site and beside products; one changed refuses the whole import", async () => {
      const store = open();
      const site = uniqueSite();
      const first = await store.beginImport(site, write);
      await addBased(first, [range("id", 0, 700)], () => null);
      expect(await first.commit()).toEqual({ applied: true, counts: { created: 700, updated: 0, unchanged: 0 } });
      const stored = new Map(range("id", 0, 700).map((p) => [p.id, p]));
      const base = (p: Product) => stored.get(p.id) ?? null;
      await upsert(store, site, [product("id-650", "sku-id-650", { title: "meanwhile" })], write);
      const stale = await store.beginImport(site, write);
      await addBased(stale, [range("id", 0, 700, { price: 3 }), range("id", 700, 100)], base);
      expect(await stale.commit()).toEqual(STALE);
      expect(await store.find(site, "id-0")).toEqual(product("id-0", "sku-id-0"));
      expect(await store.find(site, "id-700")).toBeUndefined();
      stored.set("id-650", product("id-650", "sku-id-650", { title: "meanwhile" }));
      const again = await store.beginImport(site, write);
      await addBased(again, [range("id", 0, 700, { price: 3 }), range("id", 700, 100)], base);
      expect(await again.commit()).toEqual({ applied: true, counts: { created: 100, updated: 700, unchanged: 0 } });
      expect(await stagingOf(site)).toEqual([]);
      // Into an empty site, a base that is a product is stale.
      const empty = uniqueSite();
      const into = await store.beginImport(empty, write);
      await addBased(into, [range("id", 0, 700)], (p) => (p.id === "id-5" ? p : null));
      expect(await into.commit()).toEqual(STALE);
      expect(await productIds(redis.admin, keysOf(empty))).toEqual([]);
      expect(await stagingOf(empty)).toEqual([]);
    });

    test("in:bases expires with the import's keys, and an id staged again without a base loses its own", async () => {
      const store = open();
      const site = uniqueSite();
      await upsert(store, site, [product("id-1", "sku-id-1")], write);
      const staged = await store.beginImport(site, write);
      await addBased(staged, [range("id", 0, 700, { price: 2 })], (p) => (p.id === "id-1" ? p : null));
      await store.ping();
      const keys = await incomingOf(site);
      expect(await redis.admin.hlen(keys.inBases)).toBe(700);
      expect(await redis.admin.pttl(keys.inBases)).toBeGreaterThan(INCOMING_TTL_MS - 5_000);
      // id-1's base is not what the site holds: once staged again without one, it is no precondition.
      await staged.add(
        range("id", 0, 10, { price: 5 }),
        range("id", 0, 10).map((_, i) => 701 + i),
      );
      await store.ping();
      expect(await redis.admin.hlen(keys.inBases)).toBe(690);
      expect(await staged.commit()).toEqual({ applied: true, counts: { created: 699, updated: 1, unchanged: 0 } });
      expect(await stagingOf(site)).toEqual([]);
    });

    test("stale comes before the import's own conflicts, and a replace is refused alike", async () => {
      const store = open();
      const site = uniqueSite();
      await upsert(store, site, [product("a", "sa")], write);
      const contested = await store.beginImport(site, write);
      await addBased(contested, [range("id", 0, 400), [product("x", "sku-id-3")]], () => null);
      // x claims the sku of id-3 (a conflict among the import's own ids), and a's base is stale.
      await contested.add([product("a", "sa", { price: 1 })], [402], [product("a", "sa", { title: "old" })]);
      expect(await contested.commit()).toEqual(STALE);
      const replace = await store.beginImport(site, { dryRun: false, replace: true });
      await addBased(replace, [range("id", 0, 400)], (p) => (p.id === "id-0" ? p : null));
      expect(await replace.commit()).toEqual(STALE);
      expect(await productIds(redis.admin, keysOf(site))).toEqual(["a"]);
      expect(await stagingOf(site)).toEqual([]);
    });

    test("concurrent read-modify-writes staged in Redis all land (no lost update)", async () => {
      // Two products per import, one per chunk: every commit takes the staged path.
      const store = open({ chunkSize: 1 });
      const site = uniqueSite();
      await upsert(store, site, [product("p", "sp"), product("q", "sq")], write);
      const fields = ["title", "description", "url", "featured_image"] as const;
      await Promise.all(
        fields.map(async (field) => {
          for (let attempt = 0; attempt < 100; attempt++) {
            const bases = [(await store.find(site, "p")) as Product, (await store.find(site, "q")) as Product];
            const staged = await store.beginImport(site, write);
            await staged.add(
              bases.map((base) => ({ ...base, [field]: `${field}-new` })),
              [1, 2],
              bases,
            );
            const result = await staged.commit();
            if (result.applied) return;
            expect(result).toEqual(STALE);
          }
          throw new Error(`${field} never landed`);
        }),
      );
      const landed = Object.fromEntries(fields.map((field) => [field, `${field}-new`]));
      expect(await store.find(site, "p")).toEqual({ ...product("p", "sp"), ...landed });
      expect(await store.find(site, "q")).toEqual({ ...product("q", "sq"), ...landed });
      expect(await stagingOf(site)).toEqual([]);
    });

    test("an in:bases evicted before commit: STORAGE_UNAVAILABLE saying so, never applied without its preconditions", async () => {
      const store = open();
      const site = uniqueSite();
      await upsert(store, site, [product("seed", "seed-sku")], write);
      const staged = await store.beginImport(site, write);
      await addBased(staged, [range("id", 0, 700)], () => null);
      await store.ping();
      await redis.admin.del((await incomingOf(site)).inBases);
      const outcome = await settle(staged.commit());
      expect(outcome.ok ? "" : (outcome.error as Error).message).toMatch(/evicted.*nothing was written/);
      expect(await productIds(redis.admin, keysOf(site))).toEqual(["seed"]);
      expect(await stagingOf(site)).toEqual([]);
    });
  });

  describe("lost replies", () => {
    let proxy: FaultProxy;
    beforeAll(async () => {
      proxy = await startFaultProxy(redis.server.port);
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
      // Past one call's size: the products held so far go to Redis with these.
      const outcome = await settle(
        staged.add(
          range("id", 100, 300),
          range("id", 100, 300).map((_, i) => 101 + i),
        ),
      );
      await dropped;
      // The add may return with its calls still in flight: the commit then meets the lost reply.
      if (!outcome.ok) expect(isUnavailable(outcome.error)).toBe(true);
      await until("the store to reconnect", async () => (await store.ping().then(() => true)) || undefined);
      const committed = await settle(staged.commit());
      expect(committed.ok).toBe(false);
      if (!committed.ok) {
        expect(isUnavailable(committed.error)).toBe(true);
        expect(String(committed.error)).toMatch(/nothing was written/);
      }
      expect(await productIds(redis.admin, keysOf(site))).toEqual([]);
      expect(await stagingOf(site)).toEqual([]);
    });

    const publishing = (site: Site, where: string) => (argv: Argv) =>
      scriptCall(site, PUBLISH.sha)(argv) && argv.some((arg) => arg.toString() === where);

    test("a commit into an empty site whose reply is lost: STORAGE_UNAVAILABLE that does not claim nothing was written; all or nothing", async () => {
      const store = open({ url: proxy.url });
      const site = uniqueSite();
      const staged = await store.beginImport(site, write);
      await addAll(staged, [range("id", 0, 900)]);
      const dropped = proxy.dropReplyAfter(publishing(site, "empty"));
      const outcome = await settle(staged.commit());
      await dropped;
      expect(outcome.ok ? outcome.value : (outcome.error as Error).message).toMatch(/may or may not have been applied/);
      const direct = open();
      expect(await upsert(direct, site, [product("after", "after-sku")], write)).toMatchObject({ applied: true });
      expect([1, 901]).toContain((await productIds(redis.admin, keysOf(site))).length);
      expect(await checkIndex(redis.admin, PREFIX, site)).toEqual([]);
      expect(await stagingOf(site)).toEqual([]);
    });

    test("a commit whose reply is lost: STORAGE_UNAVAILABLE that does not claim nothing was written; all or nothing", async () => {
      const store = open({ url: proxy.url });
      const site = uniqueSite();
      await upsert(store, site, [product("seed", "seed-sku")], write);
      const staged = await store.beginImport(site, write);
      const batch = range("id", 0, 900);
      await addAll(staged, [batch]);
      const dropped = proxy.dropReplyAfter(publishing(site, "merge"));
      const outcome = await settle(staged.commit());
      await dropped;
      expect(outcome.ok ? outcome.value : (outcome.error as Error).message).toMatch(/may or may not have been applied/);
      const direct = open();
      // The next writer finishes the merge the lost reply interrupted.
      expect(await upsert(direct, site, [product("after", "after-sku")], write)).toMatchObject({ applied: true });
      const stored = (await productIds(redis.admin, keysOf(site))).length;
      expect([2, 902]).toContain(stored);
      expect(await checkIndex(redis.admin, PREFIX, site)).toEqual([]);
    });
  });
});
