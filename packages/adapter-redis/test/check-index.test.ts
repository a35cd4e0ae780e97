import { encodeProduct, type Site } from "@catalog-kit/catalog-core";
import { uniqueSite, upsert } from "@catalog-kit/catalog-core/testing";
import { type RedisServer, startRedisServer } from "@catalog-kit/test-support";
import { describeWithRedis } from "@catalog-kit/test-support/vitest";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createRedisStore } from "../src/index.ts";
import { checkKeyPrefix, MERGING_FIELD, siteKeys } from "../src/keys.ts";
import { checkIndex } from "../src/testing/index.ts";
import { product, realisticProduct } from "./support/products.ts";

// checkIndex is what an operator runs on a live Redis after an incident: it must find every
// disagreement between a site's keys without one long command, or a reply the size of the
// site, on the server everyone else is using.

const PREFIX = "check";
const write = { dryRun: false } as const;

describeWithRedis("checkIndex", () => {
  let server: RedisServer;
  let admin: Redis;
  const keysOf = (site: Site) => siteKeys(checkKeyPrefix(PREFIX), site);
  beforeAll(async () => {
    server = await startRedisServer();
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    admin?.disconnect();
    await server?.stop();
  });

  test("finds each kind of disagreement", async () => {
    const store = createRedisStore({ url: server.url, keyPrefix: PREFIX });
    const site = uniqueSite();
    const keys = keysOf(site);
    await upsert(
      store,
      site,
      ["a", "b", "c", "d"].map((id) => product(id, `s${id}`)),
      write,
    );
    await store.close();
    await admin.hset(keys.products, "a", encodeProduct(product("z", "sa")));
    await admin.hset(keys.skus, "sb", "c");
    await admin.hset(keys.skuOf, "c", "other");
    await admin.hset(keys.skus, "ghost-sku", "ghost");
    await admin.hset(keys.skuOf, "ghost", "x");
    await admin.zadd(keys.ids, 0, "gone");
    await admin.zrem(keys.ids, "d");
    await admin.zadd(keys.ids, 5, "b");
    await admin.hset(keys.products, MERGING_FIELD, "1");
    expect((await checkIndex(admin, PREFIX, site)).sort()).toEqual(
      [
        "a merge is unfinished",
        "product a holds id z",
        "product b's sku sb points to c",
        "sku sb points to c, which holds sc",
        "sku-of c is other, the product has sc",
        "sku ghost-sku points to missing product ghost",
        "sku-of has missing product ghost",
        "the id index has missing product gone",
        "the id index lacks product d",
        "1 ids of the index are not scored 0",
      ].sort(),
    );
  });

  test("reads a site of 50,000 products in pages: no command is long, none reads more than a page", async () => {
    const store = createRedisStore({ url: server.url, keyPrefix: PREFIX });
    const site = uniqueSite();
    const products = Array.from({ length: 50_000 }, (_, i) => realisticProduct(i));
    for (let i = 0; i < products.length; i += 10_000) await upsert(store, site, products.slice(i, i + 10_000), write);
    await store.close();
    const peak = async () => Number(/used_memory_peak:(\d+)/.exec(await admin.info("memory"))?.[1]);
    const before = await peak();
    await admin.config("SET", "slowlog-log-slower-than", "0");
    await admin.config("SET", "slowlog-max-len", "100000");
    let entries: [number, number, number, string[]][];
    try {
      await admin.call("SLOWLOG", "RESET");
      expect(await checkIndex(admin, PREFIX, site)).toEqual([]);
      entries = (await admin.call("SLOWLOG", "GET", "-1")) as typeof entries;
    } finally {
      await admin.config("SET", "slowlog-log-slower-than", "10000");
    }
    const raised = (await peak()) - before;
    const commands = entries
      .map(([, , micros, args]) => ({ name: String(args[0]).toLowerCase(), micros, args: args.map(String) }))
      .filter(({ name }) => name !== "slowlog");
    // Pages of at least a few hundred, or a walk of a million products would take too many calls.
    expect(commands.length).toBeLessThan(1_000);
    expect(commands.map((c) => c.name).filter((n) => n !== "hscan" && n !== "zscan" && n !== "exists")).toEqual([]);
    for (const { args } of commands.filter((c) => c.name !== "exists")) {
      expect(args.slice(-2)).toEqual(["COUNT", "1000"]);
    }
    // One HGETALL of these 50,000 products took 210 ms on a 2-core VM and raised Redis's peak
    // memory by 46 MB (its reply). A page takes 1 to 2 ms there, but SLOWLOG counts wall time:
    // with other processes taking the CPU from Redis (a load of 7), pages took up to 41 ms.
    expect(Math.max(...commands.map((c) => c.micros))).toBeLessThan(100_000);
    expect(raised).toBeLessThan(5_000_000);
  });
});
