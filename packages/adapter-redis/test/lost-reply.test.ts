import {
  type CatalogStore,
  type CommitResult,
  isCatalogError,
  type KeyToRecord,
  type Product,
  type Site,
} from "@catalog-kit/catalog-core";
import { uniqueSite, upsert } from "@catalog-kit/catalog-core/testing";
import { type RedisServer, startRedisServer } from "@catalog-kit/test-support";
import { describeWithRedis } from "@catalog-kit/test-support/vitest";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRedisStore, redisClientOptions } from "../src/index.ts";
import { checkKeyPrefix, siteKeys } from "../src/keys.ts";
import { DELIVERIES_ADD } from "../src/scripts/deliveries-add.ts";
import { DELIVERIES_CLAIM } from "../src/scripts/deliveries-claim.ts";
import { HISTORY_SAVE } from "../src/scripts/history-save.ts";
import { PUBLISH } from "../src/scripts/import-publish.ts";
import { TENANT_WRITE } from "../src/scripts/tenant-write.ts";
import { checkIndex, storedProducts } from "../src/testing/index.ts";
import { type FaultProxy, scriptOf, startFaultProxy } from "./support/fault-proxy.ts";
import { product } from "./support/products.ts";
import { type Settled, settle, until } from "./support/wait.ts";

// A reply lost on the way back (a connection reset after Redis ran the command) is the one
// failure after which the client cannot know whether its write happened. The store must say
// "unavailable" (never a made-up answer), must never run the write a second time, and must not
// leave the site unusable for the lock's lifetime.

const PREFIX = "lost";
const write = { dryRun: false } as const;

const batchOf = (count: number): Product[] =>
  Array.from({ length: count }, (_, i) => product(`id-${i}`, `sku-${i}`, { title: `batch ${i}` }));

// Whether a command is the PUBLISH call that publishes an import `where` ("empty", "merge", "replace").
const publishes = (argv: readonly Buffer[], where: string) =>
  argv[1]?.toString() === PUBLISH.sha && argv.some((arg) => arg.toString() === where);

const isUnavailable = (error: unknown) => isCatalogError(error, "STORAGE_UNAVAILABLE");

// An import of `batch` in one add, committed under `key`.
async function commitKeyed(store: CatalogStore, site: Site, batch: Product[], key: KeyToRecord): Promise<CommitResult> {
  const staged = await store.beginImport(site, write);
  await staged.add(
    batch,
    batch.map((_, i) => i + 1),
  );
  return staged.commit(key);
}

/** A write whose reply was lost: STORAGE_UNAVAILABLE, never claiming that nothing was written. */
function expectOutcomeUnknown(outcome: Settled<unknown>): void {
  expect(outcome.ok).toBe(false);
  if (!outcome.ok) {
    expect(isUnavailable(outcome.error)).toBe(true);
    expect((outcome.error as Error).message).not.toMatch(/nothing (was|has been) written/i);
  }
}

describeWithRedis("a reply lost after Redis ran the command (standalone)", () => {
  let server: RedisServer;
  let proxy: FaultProxy;
  let admin: Redis;
  /** Talks to Redis directly: the other writers of the site, and the one that checks. */
  let direct: CatalogStore;
  /** Fails fast on a busy site, so that a site left locked shows as a failure, not a wait. */
  let impatient: CatalogStore;
  const stores: CatalogStore[] = [];

  const throughProxy = (options: { chunkSize?: number } = {}) => {
    const store = createRedisStore({ url: proxy.url, keyPrefix: PREFIX, ...options });
    stores.push(store);
    return store;
  };
  const reconnected = (store: CatalogStore) =>
    until("the store to reconnect", async () => ((await store.ping().then(() => true)) ? true : undefined));

  beforeAll(async () => {
    server = await startRedisServer();
    proxy = await startFaultProxy(server.port);
    admin = new Redis(server.url);
    direct = createRedisStore({ url: server.url, keyPrefix: PREFIX, chunkSize: 10 });
    impatient = createRedisStore({ url: server.url, keyPrefix: PREFIX, busyTimeoutMs: 2_000 });
    // Loads every script into Redis, so that no armed drop lands on an EVALSHA that Redis
    // answers with NOSCRIPT without running it.
    const warm = uniqueSite();
    await upsert(direct, warm, batchOf(30), write);
    await upsert(direct, warm, [...batchOf(60), product("x", "y")], write);
    await upsert(direct, warm, [product("z", "w")], write);
    await commitKeyed(direct, warm, [product("k", "k")], {
      key: "k",
      fingerprint: "f",
      retainMs: 60_000,
      claimed: false,
    });
    await commitKeyed(direct, warm, batchOf(30), { key: "k2", fingerprint: "f", retainMs: 60_000, claimed: false });
    await direct.find(warm, "id-1");
    await direct.remove(warm, "id-1");
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    await direct?.close();
    await impatient?.close();
    admin?.disconnect();
    await proxy?.close();
    await server?.stop();
  });

  test("remove: rejects STORAGE_UNAVAILABLE, ran exactly once, and a newer acknowledged upsert survives", async () => {
    const store = throughProxy();
    const site = uniqueSite();
    await upsert(direct, site, [product("a", "sku-a")], write);
    await reconnected(store);
    const dropped = proxy.dropReplyAfter(scriptOf(site));
    const outcome = await settle(store.remove(site, "a"));
    await dropped;
    expect(outcome.ok ? { resolved: outcome.value } : isUnavailable(outcome.error)).toBe(true);
    expect(await direct.find(site, "a")).toBeUndefined();

    // The newer write is acknowledged while the first store is still reconnecting.
    proxy.pause();
    const v2 = product("a", "sku-a", { title: "v2" });
    await upsert(direct, site, [v2], write);
    proxy.resume();
    await reconnected(store);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await direct.find(site, "a")).toEqual(v2);
    expect(proxy.count(scriptOf(site))).toBe(1);
  });

  test("a connection dropped mid-command is reported as Redis not reachable, for a write and a read", async () => {
    const store = throughProxy();
    const site = uniqueSite();
    await upsert(direct, site, [product("a", "sku-a")], write);
    await reconnected(store);
    const removal = proxy.dropReplyAfter(scriptOf(site));
    const removed = await settle(store.remove(site, "a"));
    await removal;
    expectOutcomeUnknown(removed);
    if (!removed.ok) expect((removed.error as Error).message).toMatch(/^Redis remove failed: Redis is not reachable; /);
    await reconnected(store);
    const lookup = proxy.dropReplyAfter(scriptOf(site));
    const found = await settle(store.find(site, "a"));
    await lookup;
    expect(found.ok ? found.value : (found.error as Error).message).toBe("Redis find failed: Redis is not reachable");

    // A client the caller gives is bounded by the store, which sees the connection close.
    const client = new Redis(proxy.url, redisClientOptions);
    client.on("error", () => {});
    const given = createRedisStore({ client, keyPrefix: PREFIX });
    try {
      await upsert(direct, site, [product("b", "sku-b")], write);
      await reconnected(given);
      const givenRemoval = proxy.dropReplyAfter(scriptOf(site));
      const givenRemoved = await settle(given.remove(site, "b"));
      await givenRemoval;
      expectOutcomeUnknown(givenRemoved);
      if (!givenRemoved.ok) {
        expect((givenRemoved.error as Error).message).toMatch(/^Redis remove failed: Redis is not reachable; /);
      }
    } finally {
      await given.close();
      client.disconnect();
    }
  });

  // The choice tenants.ts documents: the store never sends the write again itself, and a caller
  // that does is told what a second writer would be, from the state the first write left.
  test("writeTenant: rejects STORAGE_UNAVAILABLE, ran once; the same creation sent again answers false, the entry as written", async () => {
    const store = throughProxy();
    const key = `site:${crypto.randomUUID()}`;
    // Loads the script into Redis, so that the drop lands on a run, not on a NOSCRIPT.
    await direct.writeTenant({ key: `${key}:warm`, value: "{}", when: "absent" });
    await reconnected(store);
    const writes = (argv: readonly Buffer[]) => argv[1]?.toString() === TENANT_WRITE.sha;
    const dropped = proxy.dropReplyAfter(writes);
    const outcome = await settle(store.writeTenant({ key, value: '{"a":1}', when: "absent" }));
    await dropped;
    expectOutcomeUnknown(outcome);
    expect(proxy.count(writes)).toBe(1);
    expect((await direct.readTenants())?.entries).toContainEqual({ key, value: '{"a":1}' });
    await reconnected(store);
    expect(await store.writeTenant({ key, value: '{"a":1}', when: "absent" })).toBe(false);
    expect(await store.writeTenant({ key, value: '{"a":2}', when: "present" })).toBe(true);
  });

  // The choice history.ts documents: the deliveries go first, so a save cut short leaves them
  // and no record, never the record without them; a caller's retry writes the same state again.
  describe("saveImport with a delivery", () => {
    const runs = (script: { readonly sha: string }) => (argv: readonly Buffer[]) => argv[1]?.toString() === script.sha;
    const t0 = 8_000_000_000_000;
    const saveOf = (id: string) => ({
      deliveries: [{ id, dueAt: t0, value: `{"delivery":"${id}"}` }],
      problems: "row 1: no price\n",
    });
    // This test's deliveries among those due at t0, claimed and settled.
    const drain = async (id: string) => {
      const claimed = (await direct.claimDeliveries(t0, 60_000, 1_000)).filter((d) => d.id === id);
      for (const d of claimed) await direct.settleDelivery(d.id, d.lease);
      return claimed.map(({ id, value }) => ({ id, value }));
    };
    beforeAll(async () => {
      // Loads the scripts, so that a drop lands on a run, not on a NOSCRIPT.
      const id = `warm-${crypto.randomUUID()}`;
      await direct.saveImport(uniqueSite(), { id: "0a", value: "{}" }, saveOf(id));
      await drain(id);
    });

    test("the record's reply lost: STORAGE_UNAVAILABLE, ran once, record and delivery written; the retry adds nothing", async () => {
      const store = throughProxy();
      const site = uniqueSite();
      const id = `d-${crypto.randomUUID()}`;
      await reconnected(store);
      const dropped = proxy.dropReplyAfter(runs(HISTORY_SAVE));
      const outcome = await settle(store.saveImport(site, { id: "01a", value: '{"state":"succeeded"}' }, saveOf(id)));
      await dropped;
      expectOutcomeUnknown(outcome);
      expect(proxy.count(runs(HISTORY_SAVE))).toBe(1);
      expect(await direct.readImport(site, "01a")).toBe('{"state":"succeeded"}');
      await reconnected(store);
      await store.saveImport(site, { id: "01a", value: '{"state":"succeeded"}' }, saveOf(id));
      expect(await direct.listImports(site, undefined, 10)).toEqual([{ id: "01a", value: '{"state":"succeeded"}' }]);
      expect(await direct.readImportProblems(site, "01a")).toBe("row 1: no price\n");
      expect(await drain(id)).toEqual([{ id, value: `{"delivery":"${id}"}` }]);
    });

    test("the delivery's reply lost: STORAGE_UNAVAILABLE, the delivery queued and no record; the retry saves it", async () => {
      const store = throughProxy();
      const site = uniqueSite();
      const id = `d-${crypto.randomUUID()}`;
      await reconnected(store);
      const saves = proxy.count(runs(HISTORY_SAVE));
      const dropped = proxy.dropReplyAfter(runs(DELIVERIES_ADD));
      const outcome = await settle(store.saveImport(site, { id: "01a", value: '{"state":"failed"}' }, saveOf(id)));
      await dropped;
      expectOutcomeUnknown(outcome);
      expect(proxy.count(runs(HISTORY_SAVE))).toBe(saves);
      expect(await direct.readImport(site, "01a")).toBeUndefined();
      await reconnected(store);
      await store.saveImport(site, { id: "01a", value: '{"state":"failed"}' }, saveOf(id));
      expect(await direct.readImport(site, "01a")).toBe('{"state":"failed"}');
      expect(await drain(id)).toEqual([{ id, value: `{"delivery":"${id}"}` }]);
    });

    test("a claim's reply lost: STORAGE_UNAVAILABLE, ran once; its deliveries come back once the lease lapses", async () => {
      const store = throughProxy();
      const id = `d-${crypto.randomUUID()}`;
      await direct.saveImport(uniqueSite(), { id: "01a", value: "{}" }, saveOf(id));
      await reconnected(store);
      const claims = proxy.count(runs(DELIVERIES_CLAIM));
      const dropped = proxy.dropReplyAfter(runs(DELIVERIES_CLAIM));
      const outcome = await settle(store.claimDeliveries(t0, 5_000, 1_000));
      await dropped;
      expectOutcomeUnknown(outcome);
      expect(proxy.count(runs(DELIVERIES_CLAIM))).toBe(claims + 1);
      // Leased by the lost claim: nobody holds it until t0 + 5,000, then anyone may.
      expect((await direct.claimDeliveries(t0 + 4_999, 60_000, 1_000)).filter((d) => d.id === id)).toEqual([]);
      const [again] = (await direct.claimDeliveries(t0 + 5_000, 60_000, 1_000)).filter((d) => d.id === id);
      expect(again?.id).toBe(id);
      expect(await direct.settleDelivery(id, again?.lease as string)).toBe(true);
    });
  });

  test("one-call upsert: rejects STORAGE_UNAVAILABLE, ran once, and a retry finds it unchanged", async () => {
    const store = throughProxy();
    const site = uniqueSite();
    const p = product("new", "sku-new", { price: 5 });
    await reconnected(store);
    const dropped = proxy.dropReplyAfter(scriptOf(site));
    const outcome = await settle(upsert(store, site, [p], write));
    await dropped;
    expect(outcome.ok ? { resolved: outcome.value } : isUnavailable(outcome.error)).toBe(true);
    expect(proxy.count(scriptOf(site))).toBe(1);
    expect(await direct.find(site, "new")).toEqual(p);

    await reconnected(store);
    expect(await upsert(store, site, [p], write)).toEqual({
      applied: true,
      counts: { created: 0, updated: 0, unchanged: 1 },
    });
    expect(await direct.find(site, "sku-new", "sku")).toEqual(p);
    expect(await checkIndex(admin, PREFIX, site)).toEqual([]);
  });

  test("chunked import whose lock acquisition reply is lost: the site is writable again at once", async () => {
    const store = throughProxy({ chunkSize: 10 });
    const site = uniqueSite();
    // A site with products, so the import takes the site lock (an empty site is staged without it).
    await upsert(direct, site, [product("seed", "seed-sku")], write);
    await reconnected(store);
    const batch = batchOf(60);
    const dropped = proxy.dropReplyAfter(scriptOf(site));
    const outcome = await settle(upsert(store, site, batch, write));
    await dropped;
    if (!outcome.ok) expect(isUnavailable(outcome.error)).toBe(true);

    await reconnected(store);
    const next = await settle(upsert(impatient, site, [product("after", "after-sku")], write));
    expect(next.ok ? next.value : next.error).toMatchObject({ applied: true });
    expect(next.ms).toBeLessThan(2_000);

    const found = await Promise.all(batch.map((p) => direct.find(site, p.id)));
    // Succeeded: all of it; failed: none of it.
    if (outcome.ok) expect(found).toEqual(batch);
    else expect(found.filter((p) => p !== undefined)).toEqual([]);
    expect(await checkIndex(admin, PREFIX, site)).toEqual([]);
  });

  describe.each([
    ["into an empty site", false],
    ["into a site with products", true],
  ])("chunked import whose commit reply is lost, %s", (_, seeded) => {
    test("rejects STORAGE_UNAVAILABLE without claiming nothing was written, is all-or-nothing, and frees the site", async () => {
      const store = throughProxy({ chunkSize: 10 });
      const site = uniqueSite();
      if (seeded) await upsert(direct, site, [product("seed", "seed-sku")], write);
      await reconnected(store);
      const batch = batchOf(60);
      // The call that publishes it: into the site when it is empty, else beside it to merge.
      const dropped = proxy.dropReplyAfter(scriptOf(site), {
        when: (argv) => publishes(argv, seeded ? "merge" : "empty"),
      });
      const outcome = await settle(upsert(store, site, batch, write));
      await dropped;
      expectOutcomeUnknown(outcome);

      await reconnected(store);
      const byId = await Promise.all(batch.map((p) => direct.find(site, p.id)));
      const bySku = await Promise.all(batch.map((p) => direct.find(site, p.sku, "sku")));
      const all = byId.every((p, i) => p !== undefined && p.title === batch[i]?.title);
      const none = byId.every((p) => p === undefined) && bySku.every((p) => p === undefined);
      expect({ all, none, visible: byId.filter(Boolean).length, bySku: bySku.filter(Boolean).length }).toSatisfy(
        (seen: { all: boolean; none: boolean }) => seen.all !== seen.none,
      );
      if (all) expect(bySku).toEqual(byId);

      const next = await settle(upsert(impatient, site, [product("after", "after-sku")], write));
      expect(next.ok ? next.value : next.error).toMatchObject({ applied: true });
      expect(next.ms).toBeLessThan(2_000);
      expect(await checkIndex(admin, PREFIX, site)).toEqual([]);
    });
  });

  describe.each([
    ["held in the process (one call)", 1],
    ["staged, and merged into the site", 30],
  ])("a commit under an idempotency key whose reply is lost, %s", (_, count) => {
    test("a retry under the key answers the record: applied once, and a product changed since stays", async () => {
      const store = throughProxy({ chunkSize: 10 });
      const site = uniqueSite();
      await upsert(direct, site, [product("seed", "seed-sku")], write);
      await reconnected(store);
      const batch = batchOf(count);
      const key = { key: "k", fingerprint: "f", retainMs: 60_000, claimed: false };
      const dropped = proxy.dropReplyAfter(scriptOf(site), {
        when: (argv) => count === 1 || publishes(argv, "merge"),
      });
      expectOutcomeUnknown(await settle(commitKeyed(store, site, batch, key)));
      await dropped;
      await reconnected(store);
      const later = product("id-0", "sku-0", { title: "later" });
      await upsert(direct, site, [later], write);
      expect(await commitKeyed(store, site, batch, key)).toEqual({
        applied: false,
        conflicts: [],
        recorded: { fingerprint: "f", counts: { created: count, updated: 0, unchanged: 0 } },
      });
      expect(await direct.find(site, "id-0")).toEqual(later);
      expect(await checkIndex(admin, PREFIX, site)).toEqual([]);
    });
  });

  test("a replace whose commit reply is lost: unavailable without claiming nothing was written; the site is the batch or as it was", async () => {
    const store = throughProxy({ chunkSize: 10 });
    const site = uniqueSite();
    const keys = siteKeys(checkKeyPrefix(PREFIX), site);
    await upsert(direct, site, [product("seed", "seed-sku"), ...batchOf(20)], write);
    const before = await storedProducts(admin, keys);
    await reconnected(store);
    // 20 unchanged, 20 new, and one taking the sku of seed, which goes.
    const batch = [...batchOf(40), product("taker", "seed-sku")];
    const dropped = proxy.dropReplyAfter(scriptOf(site), { when: (argv) => publishes(argv, "replace") });
    const outcome = await settle(upsert(store, site, batch, { dryRun: false, replace: true }));
    await dropped;
    expectOutcomeUnknown(outcome);
    await reconnected(store);
    const after = await storedProducts(admin, keys);
    const replaced = Object.fromEntries(batch.map((p) => [p.id, JSON.stringify(p)]));
    expect([replaced, before]).toContainEqual(after);
    const next = await settle(upsert(impatient, site, [product("after", "after-sku")], write));
    expect(next.ok ? next.value : next.error).toMatchObject({ applied: true });
    expect(next.ms).toBeLessThan(2_000);
    expect(await checkIndex(admin, PREFIX, site)).toEqual([]);
  });
});
