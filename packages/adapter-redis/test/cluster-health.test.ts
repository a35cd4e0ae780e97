import { setTimeout as sleep } from "node:timers/promises";
import { type CatalogStore, isCatalogError, type Site } from "@catalog-kit/catalog-core";
import { uniqueSite, upsert } from "@catalog-kit/catalog-core/testing";
import { type RedisCluster, type RedisServer, startRedisCluster, startRedisServer } from "@catalog-kit/test-support";
import { describeWithRedis } from "@catalog-kit/test-support/vitest";
import { Cluster } from "ioredis";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createRedisStore } from "../src/index.ts";
import { checkKeyPrefix, siteKeys } from "../src/keys.ts";
import { product } from "./support/products.ts";
import { settle } from "./support/wait.ts";

// A health check that answers "fine" while a third of the sites cannot be read sends traffic to
// a broken instance; and error messages end up in HTTP responses and logs of the service's
// callers, who have no business learning the storage's addresses or Cluster internals.

const PREFIX = "health";
const write = { dryRun: false } as const;

/** Hosts, ports and Cluster routing have no place in a message a caller may see. */
const INTERNALS = /127\.0\.0\.1|localhost|:\d{2,5}\b|\bMOVED\b|\bASK\b|\bslots?\b/i;

/** The message of each failed call, with what it was. */
async function failureMessages(calls: Record<string, Promise<unknown>>): Promise<Record<string, string>> {
  const messages: Record<string, string> = {};
  const entries = Object.entries(calls);
  const outcomes = await Promise.all(entries.map(([, call]) => settle(call)));
  for (const [i, [what]] of entries.entries()) {
    const outcome = outcomes[i] as Awaited<ReturnType<typeof settle>>;
    if (outcome.ok) continue;
    expect(isCatalogError(outcome.error, "STORAGE_UNAVAILABLE"), `${what}: ${String(outcome.error)}`).toBe(true);
    messages[what] = (outcome.error as Error).message;
  }
  return messages;
}

const leaking = (messages: Record<string, string>) =>
  Object.entries(messages)
    .filter(([, message]) => INTERNALS.test(message))
    .map(([what, message]) => `${what}: ${message}`);

const opsOn = (store: CatalogStore, site: Site, tag: string) => ({
  [`find ${tag}`]: store.find(site, "a"),
  [`find by sku ${tag}`]: store.find(site, "s", "sku"),
  [`upsert ${tag}`]: upsert(store, site, [product("b", "t")], write),
  [`remove ${tag}`]: store.remove(site, "a"),
});

describeWithRedis("health and error messages when a master dies (3-master cluster)", () => {
  let cluster: RedisCluster;
  let admin: Cluster;
  let store: CatalogStore;
  beforeAll(async () => {
    cluster = await startRedisCluster(3);
    admin = new Cluster(cluster.servers.map((s) => ({ host: "127.0.0.1", port: s.port })));
    store = createRedisStore({ cluster: cluster.nodes, keyPrefix: PREFIX });
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    admin?.disconnect();
    await cluster?.stop();
  });

  test("ping fails within about 3 s of a master dying, and no error names hosts, ports or slots", async () => {
    const victim = cluster.servers[0] as RedisServer;
    const ranges = await admin.cluster("SLOTS");
    const lost: Site[] = [];
    const kept: Site[] = [];
    // Sites are drawn until one lies on the victim and one elsewhere: a fixed dozen missed the
    // victim's third of the slots about once in 130 runs.
    while (lost.length === 0 || kept.length === 0) {
      const site = uniqueSite();
      await upsert(store, site, [product("a", "s")], write);
      const slot = (await admin.cluster("KEYSLOT", siteKeys(checkKeyPrefix(PREFIX), site).products)) as number;
      const owner = ranges.find(([from, to]) => from <= slot && slot <= to)?.[2]?.[1];
      (owner === victim.port ? lost : kept).push(site);
    }
    await store.ping();

    await victim.kill();
    const killed = performance.now();
    // Right after the kill the client still tries the dead node's address; later the cluster
    // says it is down. Both kinds of failure reach callers.
    const messages = await failureMessages(opsOn(store, lost[0] as Site, "right after the kill"));
    let pingFailedAfter: number | undefined;
    while (performance.now() - killed < 3_500) {
      const ping = await settle(store.ping());
      if (!ping.ok) {
        expect(isCatalogError(ping.error, "STORAGE_UNAVAILABLE")).toBe(true);
        messages.ping = (ping.error as Error).message;
        pingFailedAfter = performance.now() - killed;
        break;
      }
      await sleep(100);
    }
    const onDead = await failureMessages(opsOn(store, lost[0] as Site, "on the dead master"));
    expect(Object.keys(onDead)).toHaveLength(4);
    Object.assign(messages, onDead);
    if (kept[0] !== undefined) Object.assign(messages, await failureMessages(opsOn(store, kept[0], "elsewhere")));
    expect({ pingFailed: pingFailedAfter !== undefined, leaking: leaking(messages) }).toEqual({
      pingFailed: true,
      leaking: [],
    });
  }, 20_000);
});

describeWithRedis("error messages when a standalone Redis dies", () => {
  let server: RedisServer;
  let store: CatalogStore;
  beforeAll(async () => {
    server = await startRedisServer();
    store = createRedisStore({ url: server.url, keyPrefix: PREFIX });
  });
  afterAll(async () => {
    await store?.close();
    await server?.stop();
  });

  test("no error names the host or port", async () => {
    const site = uniqueSite();
    await upsert(store, site, [product("a", "s")], write);
    await server.kill();
    const messages = await failureMessages({ ...opsOn(store, site, "at once"), ping: store.ping() });
    await sleep(300);
    Object.assign(messages, await failureMessages({ ...opsOn(store, site, "later"), "ping later": store.ping() }));
    expect(Object.keys(messages).length).toBe(10);
    expect(leaking(messages)).toEqual([]);
  });
});
