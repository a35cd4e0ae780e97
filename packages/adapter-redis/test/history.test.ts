import { type CatalogStore, isCatalogError } from "@catalog-kit/catalog-core";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { type RedisServer, startRedisServer } from "@catalog-kit/test-support";
import { describeWithRedis } from "@catalog-kit/test-support/vitest";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createRedisStore } from "../src/index.ts";
import { checkKeyPrefix, deliveryKeys, historyKeys, siteKeys } from "../src/keys.ts";

// What the conformance clauses cannot see: the keys the history and the queue take, sizes past
// Lua's limits, and callers whose clocks disagree.

const PREFIX = "hist";
const idOf = (n: number) => n.toString(16).padStart(12, "0");

describeWithRedis("import history and delivery queue on Redis", () => {
  let server: RedisServer;
  let admin: Redis;
  let store: CatalogStore;
  beforeAll(async () => {
    server = await startRedisServer();
    admin = new Redis(server.url);
    store = createRedisStore({ url: server.url, keyPrefix: PREFIX });
  });
  afterAll(async () => {
    await store?.close();
    admin?.disconnect();
    await server?.stop();
  });

  test("a 16 MiB report of multi-byte text is kept byte for byte, in the site's history hash", async () => {
    const site = uniqueSite();
    const line = '{"row":1,"message":"prix «é» 😀 \\"x\\" 中文"}\n';
    const report = line.repeat(Math.floor((16 * 1024 * 1024) / Buffer.byteLength(line)));
    await store.saveImport(site, { id: idOf(1), value: '{"state":"failed"}' }, { problems: report });
    expect(await store.readImportProblems(site, idOf(1))).toBe(report);
    const keys = historyKeys(siteKeys(checkKeyPrefix(PREFIX), site));
    expect(await admin.hstrlen(keys.historyProblems, idOf(1))).toBe(Buffer.byteLength(report));
    expect(await admin.zrange(keys.historyIds, 0, -1)).toEqual([idOf(1)]);
    expect(await admin.hget(keys.historyRecords, idOf(1))).toBe('{"state":"failed"}');
  });

  test("one save trims more records than Lua unpacks at once, with their reports", async () => {
    const site = uniqueSite();
    const keys = historyKeys(siteKeys(checkKeyPrefix(PREFIX), site));
    // 20,000 records written beside the store, as years of imports would leave them.
    const ids = Array.from({ length: 20_000 }, (_, i) => idOf(i + 1));
    await admin.zadd(keys.historyIds, ...ids.flatMap((id) => [0, id]));
    await admin.hset(keys.historyRecords, Object.fromEntries(ids.map((id) => [id, "{}"])));
    await admin.hset(keys.historyProblems, Object.fromEntries(ids.map((id) => [id, "p"])));
    await store.saveImport(site, { id: idOf(20_001), value: "last" }, { trim: { keep: 3, before: idOf(0) } });
    expect((await store.listImports(site, undefined, 1_000)).map(({ id }) => id)).toEqual(
      [20_001, 20_000, 19_999].map(idOf),
    );
    expect(await admin.hlen(keys.historyRecords)).toBe(3);
    expect(await admin.hlen(keys.historyProblems)).toBe(2);
  });

  test("a lease lapsed on a later clock is still live on an earlier one, and comes in its dueAt order", async () => {
    const t0 = 9_000_000_000_000;
    const id = (name: string) => `${PREFIX}-${crypto.randomUUID()}-${name}`;
    const [a, early, late] = [id("a"), id("early"), id("late")];
    await store.saveImport(
      uniqueSite(),
      { id: idOf(1), value: "{}" },
      {
        deliveries: [
          { id: a, dueAt: t0, value: "a" },
          { id: early, dueAt: t0 - 10, value: "early" },
          { id: late, dueAt: t0 + 500, value: "late" },
        ],
      },
    );
    const claim = async (now: number, limit: number) =>
      (await store.claimDeliveries(now, 1_000, limit)).filter((d) => [a, early, late].includes(d.id));
    // `early` and `a` leased until t0 + 1,000; `late` not due yet.
    expect((await claim(t0, 10)).map((d) => d.id)).toEqual([early, a]);
    // A caller whose clock says t0 + 1,500 sees both leases lapse and takes `early` only.
    expect((await claim(t0 + 1_500, 1)).map((d) => d.id)).toEqual([early]);
    // On a clock at t0 + 600, `a`'s lease is live: only `late` is handed out.
    expect((await claim(t0 + 600, 10)).map((d) => d.id)).toEqual([late]);
    // At t0 + 1,000 it lapsed: `a` comes, with its own dueAt.
    const [again, ...rest] = await claim(t0 + 1_000, 10);
    expect(rest).toEqual([]);
    expect(again).toMatchObject({ id: a, dueAt: t0, value: "a" });
    for (const d of await store.claimDeliveries(t0 + 100_000, 1_000, 1_000)) {
      if ([a, early, late].includes(d.id)) await store.settleDelivery(d.id, d.lease);
    }
    const queue = deliveryKeys(checkKeyPrefix(PREFIX));
    for (const name of [a, early, late]) {
      expect(await admin.hexists(queue.deliveryValues, name)).toBe(0);
      expect(await admin.hexists(queue.deliveryLeases, name)).toBe(0);
      expect(await admin.zscore(queue.deliveriesDue, name)).toBeNull();
      expect(await admin.zscore(queue.deliveriesLeased, name)).toBeNull();
    }
  });

  test("a caller's mistake is a TypeError, and nothing is written", async () => {
    const site = uniqueSite();
    const bad = { id: `${PREFIX}-bad`, dueAt: Number.NaN, value: "{}" };
    const saved = store.saveImport(site, { id: idOf(1), value: "{}" }, { deliveries: [bad] });
    await expect(saved).rejects.toBeInstanceOf(TypeError);
    expect(await store.readImport(site, idOf(1))).toBeUndefined();
    const queue = deliveryKeys(checkKeyPrefix(PREFIX));
    expect(await admin.hexists(queue.deliveryValues, bad.id)).toBe(0);
    await expect(store.claimDeliveries(1, 0, 1)).rejects.toBeInstanceOf(TypeError);
    await expect(store.claimDeliveries(1, 1_000, 1.5)).rejects.toBeInstanceOf(TypeError);
    await expect(store.listImports(site, undefined, -1)).rejects.toBeInstanceOf(TypeError);
    const trimmed = store.saveImport(site, { id: idOf(1), value: "{}" }, { trim: { keep: Number.NaN, before: "" } });
    await expect(trimmed).rejects.toSatisfy((error) => error instanceof TypeError && !isCatalogError(error));
    expect(await store.readImport(site, idOf(1))).toBeUndefined();
  });
});
