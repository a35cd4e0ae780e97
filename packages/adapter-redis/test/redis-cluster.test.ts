import { isDeepStrictEqual as isEqual } from "node:util";
import { encodeProduct, isCatalogError, type Product } from "@catalog-kit/catalog-core";
import { testCatalogStore, uniqueSite, upsert } from "@catalog-kit/catalog-core/testing";
import { type RedisCluster, startRedisCluster } from "@catalog-kit/test-support";
import { describeWithRedis } from "@catalog-kit/test-support/vitest";
import { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { clusterClientOptions, createRedisStore } from "../src/index.ts";
import {
  checkKeyPrefix,
  deliveryKeys,
  historyKeys,
  idempotencyKeys,
  importKeys,
  siteKeys,
  usageKeys,
} from "../src/keys.ts";
import { checkIndex } from "../src/testing/index.ts";
import { product } from "./support/products.ts";

describeWithRedis("Redis store on a 3-master cluster", () => {
  let cluster: RedisCluster;
  let admin: Cluster;
  beforeAll(async () => {
    cluster = await startRedisCluster(3);
    admin = new Cluster(cluster.nodes.map((url) => ({ host: "127.0.0.1", port: Number(new URL(url).port) })));
  }, 60_000);
  afterAll(async () => {
    admin?.disconnect();
    await cluster?.stop();
  });

  // A chunk of one product sends every batch of two or more through the chunked import (the
  // plain staging of a first import and the locked one), and single imports through one call.
  testCatalogStore(() => createRedisStore({ cluster: cluster.nodes, keyPrefix: "cl", chunkSize: 1 }), {
    numRuns: 25,
    largeBatch: 300,
    // A cluster of the clause's own, stopped: the suite's cluster serves the other clauses on.
    breakable: async () => {
      const own = await startRedisCluster(3);
      return { store: createRedisStore({ cluster: own.nodes, keyPrefix: "lost" }), breakBackend: () => own.stop() };
    },
  });

  describe("Cluster specifics", () => {
    test("the tenants registry is in one slot under the key prefix, and counters spread over the masters", async () => {
      const store = createRedisStore({ cluster: cluster.nodes, keyPrefix: "reg" });
      try {
        expect(await store.writeTenant({ key: "site:{x}", value: "{}", when: "absent" })).toBe(true);
        const registry = ["reg:{tenants}:entries", "reg:{tenants}:version"];
        expect(await Promise.all(registry.map((key) => admin.exists(key)))).toEqual([1, 1]);
        const slots = await Promise.all(registry.map((key) => admin.cluster("KEYSLOT", key)));
        expect(new Set(slots).size).toBe(1);
        const counts = Array.from({ length: 30 }, (_, i) => ({ key: `token:${i}:{requests}`, amount: i }));
        expect(await store.countUsage(counts, 60_000)).toEqual(counts.map(({ amount }) => amount));
        const counterKeys = counts.map(({ key }) => usageKeys(checkKeyPrefix("reg"), key).usageCounter);
        expect(counterKeys[1]).toBe("reg:{usage:token%3A1%3A%7Brequests%7D}");
        expect(await admin.get(counterKeys[1] as string)).toBe("1");
        const counterSlots = await Promise.all(counterKeys.map((key) => admin.cluster("KEYSLOT", key)));
        expect(new Set(counterSlots).size).toBeGreaterThan(10);
      } finally {
        await store.close();
      }
    });

    test("a site's history is in the slot of its products, the delivery queue in one slot of its own", async () => {
      const store = createRedisStore({ cluster: cluster.nodes, keyPrefix: "hist" });
      try {
        const site = uniqueSite();
        const delivery = { id: crypto.randomUUID(), dueAt: 1_000, value: "{}" };
        await upsert(store, site, [product("a", "s")], { dryRun: false });
        await store.saveImport(site, { id: "01a", value: "{}" }, { problems: "p", deliveries: [delivery] });
        const keys = siteKeys(checkKeyPrefix("hist"), site);
        const history = Object.values(historyKeys(keys));
        expect(await Promise.all(history.map((key) => admin.exists(key)))).toEqual([1, 1, 1]);
        const slotsOf = (names: string[]) => Promise.all(names.map((key) => admin.cluster("KEYSLOT", key)));
        expect(new Set(await slotsOf([keys.products, ...history])).size).toBe(1);
        const queue = deliveryKeys(checkKeyPrefix("hist"));
        expect(await admin.hget(queue.deliveryValues, delivery.id)).toBe("{}");
        expect(new Set(await slotsOf(Object.values(queue))).size).toBe(1);
        const [claimed] = await store.claimDeliveries(1_000, 60_000, 10);
        expect(claimed?.id).toBe(delivery.id);
        expect(await store.settleDelivery(delivery.id, claimed?.lease as string)).toBe(true);
      } finally {
        await store.close();
      }
    });

    test("sites spread over the masters, and every key of one site is in one slot", async () => {
      const store = createRedisStore({ cluster: cluster.nodes, keyPrefix: "spread" });
      const ranges = await admin.cluster("SLOTS");
      const ownerOf = (slot: number) => ranges.find(([from, to]) => from <= slot && slot <= to)?.[2]?.[1];
      const owners = new Set<number | undefined>();
      for (let i = 0; i < 12; i++) {
        const site = uniqueSite();
        await upsert(store, site, [product("a", "s")], { dryRun: false });
        const keys = importKeys(siteKeys(checkKeyPrefix("spread"), site), "ff");
        const slots = await Promise.all(
          Object.values(keys).map((key) => admin.cluster("KEYSLOT", key) as Promise<number>),
        );
        expect(new Set(slots).size).toBe(1);
        owners.add(ownerOf(slots[0] as number));
      }
      // All twelve random sites on one master (odds 1 in 177,000) would mean the tag ignores the site.
      expect(owners.size).toBeGreaterThan(1);
      await store.close();
    });

    test("a given Cluster client whose settings could send a command twice is refused, naming the setting", () => {
      const nodes = cluster.nodes.map((url) => ({ host: "127.0.0.1", port: Number(new URL(url).port) }));
      const defaults = new Cluster(nodes, { lazyConnect: true });
      expect(() => createRedisStore({ client: defaults })).toThrow(/enableOfflineQueue/);
      const failover = new Cluster(nodes, { ...clusterClientOptions, retryDelayOnFailover: 100, lazyConnect: true });
      expect(() => createRedisStore({ client: failover })).toThrow(/retryDelayOnFailover/);
      defaults.disconnect();
      failover.disconnect();
    });

    test("a store on a given Cluster client imports in chunks and leaves the client open", async () => {
      const client = new Cluster(
        cluster.nodes.map((url) => ({ host: "127.0.0.1", port: Number(new URL(url).port) })),
        clusterClientOptions,
      );
      const store = createRedisStore({ client, keyPrefix: "given", chunkSize: 200 });
      const site = uniqueSite();
      await upsert(store, site, [product("seed", "sku-5")], { dryRun: false });
      const batch = Array.from({ length: 2_000 }, (_, i) => product(`id-${i}`, `sku-${i}`));
      batch.push(product("seed", "seed-sku"));
      expect(await upsert(store, site, batch, { dryRun: false })).toEqual({
        applied: true,
        counts: { created: 2_000, updated: 1, unchanged: 0 },
      });
      expect(await admin.hget(siteKeys(checkKeyPrefix("given"), site).products, "id-1999")).toBe(
        encodeProduct(product("id-1999", "sku-1999")),
      );
      expect(await checkIndex(admin, "given", site)).toEqual([]);
      await store.close();
      expect(await client.ping()).toBe("PONG");
      client.disconnect();
    });

    test("a beginImport import in chunks commits on a Cluster: its own conflicts with the site's, then merged", async () => {
      const store = createRedisStore({ cluster: cluster.nodes, keyPrefix: "stream", chunkSize: 200 });
      const site = uniqueSite();
      await upsert(store, site, [product("seed", "sku-1500")], { dryRun: false });
      const chunks = [0, 1, 2].map((n) =>
        Array.from({ length: 700 }, (_, i) => product(`id-${n * 700 + i}`, `sku-${n * 700 + i}`)),
      );
      const stage = async (extra: Product[]) => {
        const staged = await store.beginImport(site, { dryRun: false });
        let position = 0;
        for (const chunk of [...chunks, extra])
          await staged.add(
            chunk,
            chunk.map(() => ++position),
          );
        return staged.commit();
      };
      expect(await stage([product("twin", "sku-3")])).toEqual({
        applied: false,
        conflicts: [
          { sku: "sku-1500", id: "id-1500", heldBy: "seed", position: 1_501 },
          { sku: "sku-3", id: "twin", heldBy: "id-3", position: 2_101 },
        ],
      });
      expect(await stage([])).toEqual({
        applied: false,
        conflicts: [{ sku: "sku-1500", id: "id-1500", heldBy: "seed", position: 1_501 }],
      });
      expect(await stage([product("seed", "seed-sku")])).toEqual({
        applied: true,
        counts: { created: 2_100, updated: 1, unchanged: 0 },
      });
      expect(await store.find(site, "sku-1500", "sku")).toEqual(product("id-1500", "sku-1500"));
      expect(await checkIndex(admin, "stream", site)).toEqual([]);
      await store.close();
    });

    test("an idempotency key's record and claim live in the site's slot, whatever braces or colons the key holds", async () => {
      const store = createRedisStore({ cluster: cluster.nodes, keyPrefix: "idem", chunkSize: 50 });
      const site = uniqueSite();
      const keys = siteKeys(checkKeyPrefix("idem"), site);
      const slot = (key: string) => admin.cluster("KEYSLOT", key) as Promise<number>;
      const batches = [[product("a", "sa")], Array.from({ length: 120 }, (_, i) => product(`id-${i}`, `sku-${i}`))];
      for (const [n, key] of ["{", "}", "{x}", "a:{b}:c", "}{", "*?[x]"].entries()) {
        const { keyRecord, keyClaim } = idempotencyKeys(keys, key);
        expect(await slot(keyRecord)).toBe(await slot(keys.products));
        expect(await slot(keyClaim)).toBe(await slot(keys.products));
        const claim = await store.claimKey(site, key, 60_000);
        expect(claim.state).toBe("claimed");
        expect(await admin.exists(keyClaim)).toBe(1);
        // One call and a staged commit: a key outside the site's slot would fail them (CROSSSLOT).
        const batch = batches[n % 2] as Product[];
        const staged = await store.beginImport(site, { dryRun: false });
        await staged.add(
          batch,
          batch.map((_, i) => i + 1),
        );
        const result = await staged.commit({ key, fingerprint: `f${n}`, retainMs: 60_000, claimed: true });
        expect(result.applied).toBe(true);
        if (claim.state === "claimed") await claim.release();
        expect(await admin.exists(keyClaim)).toBe(0);
        expect(await store.claimKey(site, key, 60_000)).toMatchObject({
          state: "recorded",
          record: { fingerprint: `f${n}` },
        });
      }
      await store.close();
    });

    // Last, because it takes a master down and brings it back empty.
    test("a master going down fails its sites with STORAGE_UNAVAILABLE, and every site recovers when it returns", async () => {
      const store = createRedisStore({ cluster: cluster.nodes, keyPrefix: "down" });
      const sites = Array.from({ length: 12 }, () => uniqueSite());
      for (const site of sites) await upsert(store, site, [product("a", "s")], { dryRun: false });
      const victim = cluster.servers[0] as (typeof cluster.servers)[number];
      const ranges = await admin.cluster("SLOTS");
      const onVictim = async (site: (typeof sites)[number]) => {
        const slot = (await admin.cluster("KEYSLOT", siteKeys(checkKeyPrefix("down"), site).products)) as number;
        return ranges.find(([from, to]) => from <= slot && slot <= to)?.[2]?.[1] === victim.port;
      };
      const down = new Set<(typeof sites)[number]>();
      for (const site of sites) if (await onVictim(site)) down.add(site);
      await victim.kill();
      // Sites of the lost master fail; the others keep answering until the cluster, which by
      // default needs every slot covered, declares itself down (CLUSTERDOWN) and fails them too.
      await Promise.all(
        sites.map(async (site) => {
          const found = store.find(site, "a");
          if (down.has(site)) await expect(found).rejects.toMatchObject({ code: "STORAGE_UNAVAILABLE" });
          else {
            const outcome = await found.catch((error: unknown) => isCatalogError(error, "STORAGE_UNAVAILABLE"));
            expect(outcome === true || isEqual(outcome, product("a", "s"))).toBe(true);
          }
        }),
      );
      await victim.restart();
      await Promise.all(
        sites.map(async (site) => {
          const deadline = Date.now() + 20_000;
          while (
            (await upsert(store, site, [product("b", "t")], { dryRun: false }).catch(() => undefined)) === undefined
          ) {
            if (Date.now() > deadline) throw new Error("the site did not recover");
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          expect(await store.find(site, "t")).toEqual(product("b", "t"));
          if (!down.has(site)) expect(await store.find(site, "a")).toEqual(product("a", "s"));
        }),
      );
      await store.close();
    }, 30_000);
  });
});
