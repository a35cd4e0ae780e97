import { setTimeout as sleep } from "node:timers/promises";
import type { CatalogStore, Product, Site } from "@catalog-kit/catalog-core";
import { uniqueSite, upsert } from "@catalog-kit/catalog-core/testing";
import { type RedisCluster, startRedisCluster } from "@catalog-kit/test-support";
import { describeWithRedis } from "@catalog-kit/test-support/vitest";
import { Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createRedisStore } from "../src/index.ts";
import { checkKeyPrefix, siteKeys } from "../src/keys.ts";
import { checkIndex } from "../src/testing/index.ts";
import { product } from "./support/products.ts";
import { settle } from "./support/wait.ts";

// Resharding moves a slot key by key while clients keep working. Between MIGRATING and the
// last MIGRATE, a script whose keys are partly on the source and partly gone (a lock or staging
// key that does not exist counts as gone) gets TRYAGAIN, and keeps getting it until the keys
// have moved: a routine operation that must slow requests a little, not fail them.

const PREFIX = "reshard";
const write = { dryRun: false } as const;
const PRODUCTS = 50;

interface Op {
  readonly op: string;
  readonly ok: boolean;
  readonly ms: number;
  readonly error?: string;
}

describeWithRedis("a site's slot migrating to another master under load", () => {
  let cluster: RedisCluster;
  let nodes: Redis[] = [];
  let admin: Cluster;
  let store: CatalogStore;
  beforeAll(async () => {
    cluster = await startRedisCluster(3);
    nodes = cluster.servers.map((s) => new Redis(s.port, "127.0.0.1"));
    admin = new Cluster(cluster.servers.map((s) => ({ host: "127.0.0.1", port: s.port })));
    store = createRedisStore({ cluster: cluster.nodes, keyPrefix: PREFIX });
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    admin?.disconnect();
    for (const node of nodes) node.disconnect();
    await cluster?.stop();
  });

  async function migrate(site: Site): Promise<void> {
    const key = siteKeys(checkKeyPrefix(PREFIX), site).products;
    const slot = (await admin.cluster("KEYSLOT", key)) as number;
    const ids = await Promise.all(nodes.map((node) => node.cluster("MYID") as Promise<string>));
    const ranges = await admin.cluster("SLOTS");
    const sourcePort = ranges.find(([from, to]) => from <= slot && slot <= to)?.[2]?.[1];
    const s = cluster.servers.findIndex((server) => server.port === sourcePort);
    const t = (s + 1) % nodes.length;
    const [source, target] = [nodes[s] as Redis, nodes[t] as Redis];
    const [sourceId, targetId] = [ids[s] as string, ids[t] as string];

    await target.cluster("SETSLOT", slot, "IMPORTING", sourceId);
    await source.cluster("SETSLOT", slot, "MIGRATING", targetId);
    // Long enough for every kind of operation to meet the slot half-moved.
    await sleep(1_500);
    for (;;) {
      const keys = (await source.cluster("GETKEYSINSLOT", slot, 100)) as string[];
      if (keys.length === 0) break;
      await source.call("MIGRATE", "127.0.0.1", String(cluster.servers[t]?.port), "", "0", "5000", "KEYS", ...keys);
    }
    for (const node of [target, source, ...nodes.filter((n) => n !== source && n !== target)]) {
      await node.cluster("SETSLOT", slot, "NODE", targetId);
    }
  }

  test("no operation fails or stalls, and the site ends as the acknowledged writes left it", async () => {
    const site = uniqueSite();
    const version = (i: number, v: number): Product => product(`p-${i}`, `sku-${i}`, { title: `v${v}`, price: v });
    const model = new Map<string, Product | undefined>();
    const uncertain = new Set<string>();
    for (let i = 0; i < PRODUCTS; i++) model.set(`p-${i}`, version(i, 0));
    await upsert(store, site, [...model.values()] as Product[], write);

    const ops: Op[] = [];
    let running = true;
    async function timed<T>(op: string, call: () => Promise<T>): Promise<boolean> {
      const outcome = await settle(call());
      ops.push({ op, ok: outcome.ok, ms: outcome.ms, ...(outcome.ok ? {} : { error: String(outcome.error) }) });
      return outcome.ok;
    }
    // Each writer owns its products, so the last acknowledged write of each is its final state.
    const updater = async () => {
      for (let v = 1; running; v++) {
        const i = v % 25;
        const next = version(i, v);
        if (await timed("upsert", () => upsert(store, site, [next], write))) model.set(next.id, next);
        else uncertain.add(next.id);
      }
    };
    const remover = async () => {
      for (let v = 1; running; v++) {
        const i = 25 + (v % 25);
        const id = `p-${i}`;
        if (await timed("remove", () => store.remove(site, id))) model.set(id, undefined);
        else uncertain.add(id);
        const next = version(i, v);
        if (await timed("re-upsert", () => upsert(store, site, [next], write))) model.set(id, next);
        else uncertain.add(id);
      }
    };
    const reader = async (by: "id" | "sku") => {
      for (let n = 0; running; n++) {
        const i = n % PRODUCTS;
        await timed(`find by ${by}`, () => store.find(site, by === "id" ? `p-${i}` : `sku-${i}`, by));
      }
    };
    // Walks of the site, pages of 7: p-0 to p-24 exist throughout, so each walk holds each once.
    const walks: string[][] = [];
    const lister = async () => {
      while (running) {
        const ids: string[] = [];
        for (let after: string | undefined, more = true; more && running; ) {
          let page: Product[] = [];
          if (!(await timed("list", async () => (page = await store.list(site, after, 7))))) break;
          ids.push(...page.map((p) => p.id));
          after = page[page.length - 1]?.id;
          more = page.length === 7;
          if (!more) walks.push(ids);
        }
      }
    };
    const load = Promise.all([updater(), remover(), reader("id"), reader("sku"), lister()]);
    await sleep(200);
    await migrate(site);
    await sleep(500);
    running = false;
    await load;

    const failed = ops.filter((o) => !o.ok);
    const slowest = Math.max(...ops.map((o) => o.ms));
    expect({
      failed: failed.length,
      examples: failed.slice(0, 3).map((o) => `${o.op}: ${o.error}`),
      slow: ops.filter((o) => o.ms > 3_000).length,
    }).toEqual({ failed: 0, examples: [], slow: 0 });
    expect(slowest).toBeLessThan(3_000);
    expect(ops.length).toBeGreaterThan(100);
    expect(walks.length).toBeGreaterThan(5);
    for (const ids of walks) {
      expect(new Set(ids).size).toBe(ids.length);
      for (let i = 0; i < 25; i++) expect(ids).toContain(`p-${i}`);
    }

    for (const [id, expected] of model) {
      if (uncertain.has(id)) continue;
      expect(await store.find(site, id)).toEqual(expected);
    }
    expect(await checkIndex(admin, PREFIX, site)).toEqual([]);
  });
});
