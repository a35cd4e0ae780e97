import { type CatalogStore, isCatalogError } from "@catalog-kit/catalog-core";
import { uniqueSite, upsert } from "@catalog-kit/catalog-core/testing";
import { type RedisServer, startRedisServer } from "@catalog-kit/test-support";
import { describeWithRedis } from "@catalog-kit/test-support/vitest";
import { Redis, type RedisOptions } from "ioredis";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { createRedisStore, redisClientOptions } from "../src/index.ts";
import { type FaultProxy, scriptOf, startFaultProxy } from "./support/fault-proxy.ts";
import { product } from "./support/products.ts";
import { settle, until } from "./support/wait.ts";

// ioredis, left to its defaults, queues commands while disconnected and re-sends the ones whose
// reply it never got once it reconnects. For a remove whose reply was lost, that means running
// it again later, after the caller was told it failed and after newer writes were acknowledged:
// it deletes a product nobody asked to delete. A store must refuse such a client, or make sure
// it never re-sends.

const PREFIX = "given";
const write = { dryRun: false } as const;

describeWithRedis("a store on a client the caller gives, when a reply is lost", () => {
  let server: RedisServer;
  let proxy: FaultProxy;
  let direct: CatalogStore;
  const clients: Redis[] = [];
  const stores: CatalogStore[] = [];

  const clientOf = (options: RedisOptions) => {
    const client = new Redis(proxy.url, options);
    client.on("error", () => {});
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    server = await startRedisServer();
    proxy = await startFaultProxy(server.port);
    direct = createRedisStore({ url: server.url, keyPrefix: PREFIX });
    // Loads the scripts, so that no armed drop lands on an EVALSHA answered NOSCRIPT.
    const warm = uniqueSite();
    await upsert(direct, warm, [product("a", "s")], write);
    await direct.remove(warm, "a");
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const client of clients.splice(0)) client.disconnect();
  });
  afterAll(async () => {
    await direct?.close();
    await proxy?.close();
    await server?.stop();
  });

  function createStore(options: Parameters<typeof createRedisStore>[0]): CatalogStore {
    const store = createRedisStore({ keyPrefix: PREFIX, ...options });
    stores.push(store);
    return store;
  }

  /** Removes through the proxy with the reply lost, then acknowledges a newer version directly. */
  async function lostRemoveThenNewerWrite(client: Redis, store: CatalogStore) {
    const site = uniqueSite();
    await upsert(direct, site, [product("a", "sku-a")], write);
    await until("the client to connect", async () => (client.status === "ready" ? true : undefined));
    const dropped = proxy.dropReplyAfter(scriptOf(site));
    const removal = await settle(store.remove(site, "a"));
    await dropped;
    // Held so that the newer write is certainly acknowledged before the client is back.
    proxy.pause();
    const v2 = product("a", "sku-a", { title: "v2" });
    await upsert(direct, site, [v2], write);
    proxy.resume();
    await until("the client to reconnect", async () => (client.status === "ready" ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 500));
    return { removal, after: await direct.find(site, "a"), v2, sent: proxy.count(scriptOf(site)) };
  }

  test("a client with ioredis defaults is refused, or never re-runs a command that failed", async () => {
    const client = clientOf({});
    let store: CatalogStore;
    try {
      store = createStore({ client });
    } catch (error) {
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(/autoResendUnfulfilledCommands|enableOfflineQueue/);
      return;
    }
    const { removal, after, v2, sent } = await lostRemoveThenNewerWrite(client, store);
    expect(removal.ok ? { resolved: removal.value } : isCatalogError(removal.error, "STORAGE_UNAVAILABLE")).toBe(true);
    expect({ after, sent }).toEqual({ after: v2, sent: 1 });
  });

  test("a client built with the exported redisClientOptions: unavailable, sent once, the newer product survives", async () => {
    const client = clientOf({ ...redisClientOptions });
    const store = createStore({ client });
    const { removal, after, v2, sent } = await lostRemoveThenNewerWrite(client, store);
    expect(removal.ok ? { resolved: removal.value } : isCatalogError(removal.error, "STORAGE_UNAVAILABLE")).toBe(true);
    expect({ after, sent }).toEqual({ after: v2, sent: 1 });
  });
});
