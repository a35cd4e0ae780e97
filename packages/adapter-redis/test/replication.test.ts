import { type CatalogStore, isCatalogError } from "@catalog-kit/catalog-core";
import { uniqueSite, upsert } from "@catalog-kit/catalog-core/testing";
import { type RedisServer, startRedisServer } from "@catalog-kit/test-support";
import { describeWithRedis } from "@catalog-kit/test-support/vitest";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createRedisStore } from "../src/index.ts";
import { product } from "./support/products.ts";
import { until } from "./support/wait.ts";

const write = { dryRun: false } as const;

describeWithRedis("waitForReplicas", () => {
  let primary: RedisServer;
  let replica: RedisServer;
  let replicaClient: Redis;
  const stores: CatalogStore[] = [];
  const open = (replicas: number) => {
    const store = createRedisStore({
      url: primary.url,
      keyPrefix: "wait",
      waitForReplicas: { replicas, timeoutMs: 200 },
    });
    stores.push(store);
    return store;
  };

  beforeAll(async () => {
    primary = await startRedisServer();
    replica = await startRedisServer({ args: ["--replicaof", "127.0.0.1", String(primary.port)] });
    replicaClient = new Redis(replica.url);
    await until("the replica to sync", async () =>
      (await replicaClient.info("replication")).includes("master_link_status:up") ? true : undefined,
    );
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    replicaClient?.disconnect();
    await replica?.stop();
    await primary?.stop();
  });

  test("a write the replicas confirm is acknowledged, and the replica has it", async () => {
    const store = open(1);
    const site = uniqueSite();
    const batch = Array.from({ length: 2_500 }, (_, i) => product(`id-${i}`, `sku-${i}`));
    expect(await upsert(store, site, batch, write)).toMatchObject({ applied: true });
    expect(await upsert(store, site, [product("one", "one-sku")], write)).toMatchObject({ applied: true });
    expect(await store.remove(site, "id-7")).toEqual(product("id-7", "sku-7"));
    // WAIT returned: the replica holds the state of the last write already.
    const keys = await replicaClient.keys(`wait:{*${site.siteId}}:products`);
    expect(await replicaClient.hexists(keys[0] as string, "one")).toBe(1);
    expect(await replicaClient.hexists(keys[0] as string, "id-7")).toBe(0);
  });

  test("an import's record and its deliveries, and a claim and a settle, wait for the replicas", async () => {
    const site = uniqueSite();
    const id = `wait-${crypto.randomUUID()}`;
    const save = { problems: "p", deliveries: [{ id, dueAt: 7_000_000_000_000, value: "{}" }] };
    await open(1).saveImport(site, { id: "01a", value: "{}" }, save);
    expect(await replicaClient.hget("wait:{deliveries}:values", id)).toBe("{}");
    const [records] = await replicaClient.keys(`wait:{*${site.siteId}}:history:records`);
    expect(await replicaClient.hget(records as string, "01a")).toBe("{}");
    const [claimed] = await open(1).claimDeliveries(7_000_000_000_000, 60_000, 1);
    expect(await replicaClient.hexists("wait:{deliveries}:leases", id)).toBe(1);
    expect(await open(1).settleDelivery(id, claimed?.lease as string)).toBe(true);
    expect(await replicaClient.hexists("wait:{deliveries}:values", id)).toBe(0);
    // Two replicas asked of one: each write fails, saying it is applied on the primary.
    const strict = open(2);
    const again = { id: `${id}-2`, dueAt: 7_000_000_000_000, value: "{}" };
    const failures = [
      strict.saveImport(site, { id: "02a", value: "{}" }, { deliveries: [again] }),
      strict.claimDeliveries(7_000_000_000_000, 60_000, 1),
    ];
    for (const error of await Promise.all(failures.map((call) => call.catch((e: unknown) => e)))) {
      expect(isCatalogError(error, "STORAGE_UNAVAILABLE")).toBe(true);
      expect((error as Error).message).toMatch(/applied on the Redis primary/);
    }
    const lease = (await replicaClient.hget("wait:{deliveries}:leases", again.id))?.split(" ")[2] as string;
    const settled = await strict.settleDelivery(again.id, lease).catch((e: unknown) => e);
    expect(isCatalogError(settled, "STORAGE_UNAVAILABLE")).toBe(true);
  });

  test("a write fewer replicas confirm fails with STORAGE_UNAVAILABLE that says it is applied on the primary", async () => {
    const store = open(2);
    const site = uniqueSite();
    const error = await upsert(store, site, [product("a", "s")], write).catch((e: unknown) => e);
    expect(isCatalogError(error, "STORAGE_UNAVAILABLE")).toBe(true);
    expect((error as Error).message).toMatch(/applied on the Redis primary, but 1 of 2 replicas/);
    // A retry changes nothing, and still waits: it is how a caller learns that the write is safe.
    await expect(upsert(store, site, [product("a", "s")], write)).rejects.toThrow(/1 of 2 replicas/);
    await expect(store.remove(site, "missing")).rejects.toThrow(/1 of 2 replicas/);
    expect(await store.find(site, "a")).toEqual(product("a", "s"));
  });

  test("a dry run writes nothing, so it does not wait", async () => {
    const store = open(2);
    expect(await upsert(store, uniqueSite(), [product("a", "s")], { dryRun: true })).toMatchObject({ applied: true });
  });
});
