import { type CatalogStore, isCatalogError, type Site } from "@catalog-kit/catalog-core";
import { uniqueSite, upsert } from "@catalog-kit/catalog-core/testing";
import { freePort, type RedisCluster, startRedisCluster } from "@catalog-kit/test-support";
import { describeWithRedis } from "@catalog-kit/test-support/vitest";
import { Cluster } from "ioredis";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { clusterClientOptions, createRedisStore } from "../src/index.ts";
import { checkKeyPrefix, siteKeys } from "../src/keys.ts";
import { type FaultProxy, scriptOf, startFaultProxy } from "./support/fault-proxy.ts";
import { product } from "./support/products.ts";
import { settle, until } from "./support/wait.ts";

// On a Cluster, ioredis treats a connection that closed under a command like a failover: it
// waits `retryDelayOnFailover` and sends the command again. For a script whose reply was lost
// after Redis ran it, that is a second run, possibly after newer writes were acknowledged, and
// the caller gets the second run's answer as if it were the first.

const PREFIX = "cl-lost";
const write = { dryRun: false } as const;

describeWithRedis("a reply lost after Redis ran the command (3-master cluster behind proxies)", () => {
  let cluster: RedisCluster;
  let proxies: FaultProxy[] = [];
  let realPorts: number[] = [];
  let admin: Cluster;
  let directClient: Cluster;
  /** A store that bypasses the proxies: the other writer, and the one that checks. */
  let direct: CatalogStore;
  const stores: CatalogStore[] = [];
  const clients: Cluster[] = [];

  // Every node announces its proxy's port, so clients that follow CLUSTER SLOTS and MOVED go
  // through the proxies; this maps those addresses back to the nodes for the clients that must not.
  const bypass = () =>
    Object.fromEntries(
      proxies.map((p, i) => [`127.0.0.1:${p.port}`, { host: "127.0.0.1", port: realPorts[i] as number }]),
    );
  const proxyNodes = () => proxies.map((p) => ({ host: "127.0.0.1", port: p.port }));

  beforeAll(async () => {
    while (realPorts.length < 6) {
      const port = await freePort();
      if (!realPorts.includes(port)) realPorts.push(port);
    }
    const proxyPorts = realPorts.slice(3);
    realPorts = realPorts.slice(0, 3);
    proxies = await Promise.all(realPorts.map((port, i) => startFaultProxy(port, proxyPorts[i])));
    cluster = await startRedisCluster(3, { ports: realPorts, announcePorts: proxyPorts });
    admin = new Cluster(
      realPorts.map((port) => ({ host: "127.0.0.1", port })),
      { natMap: bypass() },
    );
    // The package's own safe options, so that a store refusing unsafe clients accepts it.
    directClient = new Cluster(
      realPorts.map((port) => ({ host: "127.0.0.1", port })),
      { ...clusterClientOptions, natMap: bypass() },
    );
    direct = createRedisStore({ client: directClient, keyPrefix: PREFIX });
  }, 60_000);
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const client of clients.splice(0)) client.disconnect();
  });
  afterAll(async () => {
    await direct?.close();
    directClient?.disconnect();
    admin?.disconnect();
    await Promise.all(proxies.map((p) => p.close()));
    await cluster?.stop();
  });

  const sentEverywhere = (site: Site) => proxies.reduce((sum, p) => sum + p.count(scriptOf(site)), 0);

  /** The proxy in front of the master that holds `site`. */
  async function proxyOf(site: Site): Promise<FaultProxy> {
    const slot = (await admin.cluster("KEYSLOT", siteKeys(checkKeyPrefix(PREFIX), site).products)) as number;
    const ranges = await admin.cluster("SLOTS");
    const port = ranges.find(([from, to]) => from <= slot && slot <= to)?.[2]?.[1];
    const proxy = proxies.find((p) => p.port === port);
    if (proxy === undefined) throw new Error(`no proxy announces slot ${slot}`);
    return proxy;
  }

  /** Removes through the proxies with the reply lost, while a newer version is acknowledged directly. */
  async function lostRemoveThenNewerWrite(store: CatalogStore) {
    const site = uniqueSite();
    await upsert(direct, site, [product("a", "sku-a")], write);
    // Loads the remove script on that master, so the drop cannot land on a NOSCRIPT answer.
    await direct.remove(site, "not-there");
    await until("the store to connect", async () => ((await store.ping().then(() => true)) ? true : undefined));
    const proxy = await proxyOf(site);
    const dropped = proxy.dropReplyAfter(scriptOf(site));
    const removal = settle(store.remove(site, "a"));
    await dropped;
    // The newer write is acknowledged before the store's client can reach that master again.
    proxy.pause();
    const v2 = product("a", "sku-a", { title: "v2" });
    await upsert(direct, site, [v2], write);
    proxy.resume();
    const outcome = await removal;
    await until("the store to reconnect", async () => ((await store.ping().then(() => true)) ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 500));
    return { outcome, after: await direct.find(site, "a"), v2, sent: sentEverywhere(site) };
  }

  const unavailable = (outcome: Awaited<ReturnType<typeof lostRemoveThenNewerWrite>>["outcome"]) =>
    outcome.ok ? { resolved: outcome.value } : isCatalogError(outcome.error, "STORAGE_UNAVAILABLE");

  test("a store on cluster URLs: remove rejects STORAGE_UNAVAILABLE, was sent once, and the newer write survives", async () => {
    const store = createRedisStore({ cluster: proxies.map((p) => p.url), keyPrefix: PREFIX });
    stores.push(store);
    const { outcome, after, v2, sent } = await lostRemoveThenNewerWrite(store);
    expect({ unavailable: unavailable(outcome), sent, after }).toEqual({ unavailable: true, sent: 1, after: v2 });
  });

  test("a given Cluster with ioredis defaults is refused, or never re-runs a command that failed", async () => {
    const client = new Cluster(proxyNodes());
    client.on("error", () => {});
    clients.push(client);
    let store: CatalogStore;
    try {
      store = createRedisStore({ client, keyPrefix: PREFIX });
    } catch (error) {
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(/retryDelayOnFailover|autoResendUnfulfilledCommands|enableOfflineQueue/);
      return;
    }
    stores.push(store);
    const { outcome, after, v2, sent } = await lostRemoveThenNewerWrite(store);
    expect({ unavailable: unavailable(outcome), sent, after }).toEqual({ unavailable: true, sent: 1, after: v2 });
  });

  test("a given Cluster built with the exported clusterClientOptions: unavailable, sent once, the newer write survives", async () => {
    const client = new Cluster(proxyNodes(), { ...clusterClientOptions });
    client.on("error", () => {});
    clients.push(client);
    const store = createRedisStore({ client, keyPrefix: PREFIX });
    stores.push(store);
    const { outcome, after, v2, sent } = await lostRemoveThenNewerWrite(store);
    expect({ unavailable: unavailable(outcome), sent, after }).toEqual({ unavailable: true, sent: 1, after: v2 });
  });
});
