// The import history and the delivery queue of two stores on one file, as two servers sharing it
// have them (each store its own reading connection and writer thread), and what a save writes to
// the file: a report kept apart from its record, and a repeated save writing nothing.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStore } from "@catalog-kit/adapter-sqlite";
import type { ClaimedDelivery, Delivery } from "@catalog-kit/catalog-core";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { afterAll, expect, test } from "vitest";
import { loadSqlite } from "../src/driver.ts";
import { walIndexSignal } from "../src/read-cache.ts";
import { importInChunks, product } from "./support/fixtures.ts";

const dir = mkdtempSync(join(tmpdir(), "catalog-sqlite-history-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MiB = 1024 * 1024;
const idOf = (n: number) => `${n.toString(16).padStart(12, "0")}a`;

function twoStores(name: string) {
  const path = join(dir, `${name}.db`);
  return { path, stores: [createSqliteStore({ path }), createSqliteStore({ path })] as const };
}

// Text of about `size` UTF-16 units, multi-byte characters, quotes and line ends included.
const textOf = (size: number, seed: string) => {
  const line = `{"row":"${seed}","message":"prix «x» 😀 \\"q\\" ü"}\n`;
  return line.repeat(Math.ceil(size / line.length)).slice(0, size - 1);
};

test("a record saved by one store is read at once by the other, each progress save in turn", async () => {
  const { stores } = twoStores("progress");
  const [runner, watcher] = stores;
  try {
    const site = uniqueSite();
    for (let read = 0; read <= 20; read++) {
      const value = JSON.stringify({ state: read < 20 ? "receiving" : "succeeded", productsRead: read * 1_000 });
      await runner.saveImport(site, { id: idOf(1), value });
      expect(await watcher.readImport(site, idOf(1))).toBe(value);
      expect(await watcher.listImports(site, undefined, 10)).toEqual([{ id: idOf(1), value }]);
    }
  } finally {
    await Promise.all(stores.map((store) => store.close()));
  }
});

test("a 16 MiB report and a 1 MiB record are stored exactly, and read so by the other store", async () => {
  const { stores } = twoStores("large");
  const [one, other] = stores;
  try {
    const site = uniqueSite();
    const value = textOf(MiB, "record");
    const report = textOf(16 * MiB, "report");
    await one.saveImport(site, { id: idOf(1), value }, { problems: report });
    expect(await other.readImport(site, idOf(1))).toBe(value);
    expect(await other.readImportProblems(site, idOf(1))).toBe(report);
  } finally {
    await Promise.all(stores.map((store) => store.close()));
  }
}, 60_000);

test("saving a record again does not write its report again, and a repeated save writes nothing", async () => {
  const path = join(dir, "writes.db");
  const store = createSqliteStore({ path });
  const { DatabaseSync } = loadSqlite();
  const other = new DatabaseSync(path);
  try {
    const site = uniqueSite();
    const report = textOf(8 * MiB, "report");
    await store.saveImport(site, { id: idOf(1), value: '{"state":"succeeded"}' }, { problems: report });
    // The log emptied, so that its size is what the next save writes.
    expect(other.prepare("PRAGMA wal_checkpoint(TRUNCATE)").get()).toMatchObject({ busy: 0 });
    expect(statSync(`${path}-wal`).size).toBe(0);
    await store.saveImport(site, { id: idOf(1), value: '{"state":"succeeded","seen":1}' });
    expect(statSync(`${path}-wal`).size).toBeLessThan(64 * 1024);
    expect(await store.readImportProblems(site, idOf(1))).toBe(report);

    // The signal the read cache of products drops its lookups on: a save that changes nothing
    // leaves it as it was, so a retried save costs the lookups nothing.
    const signal = walIndexSignal(path);
    if (signal === undefined) throw new Error("the WAL index cannot be read");
    try {
      const delivery: Delivery = { id: `w${crypto.randomUUID()}`, dueAt: 1, value: "{}" };
      const save = { problems: report, deliveries: [delivery], trim: { keep: 10, before: idOf(0) } };
      await store.saveImport(site, { id: idOf(2), value: "{}" }, save);
      signal.changed();
      await store.saveImport(site, { id: idOf(2), value: "{}" }, save);
      expect(signal.changed()).toBe(false);
      // And the signal does move on a write, so the check above could fail.
      await importInChunks(store, site, [product("p1", "s1", "one")]);
      expect(signal.changed()).toBe(true);
    } finally {
      signal.close();
    }
  } finally {
    other.close();
    await store.close();
  }
}, 60_000);

test("two stores claiming one queue at once never hold one delivery together, and claim it all", async () => {
  const { stores } = twoStores("claims");
  try {
    const prefix = `q${crypto.randomUUID()}`;
    const t0 = 5_000_000_000_000;
    const made = Array.from({ length: 60 }, (_, i) => ({ id: `${prefix}-${i}`, dueAt: t0 + i, value: `{"i":${i}}` }));
    await stores[0].saveImport(uniqueSite(), { id: idOf(1), value: "{}" }, { deliveries: made.slice(0, 30) });
    await stores[1].saveImport(uniqueSite(), { id: idOf(1), value: "{}" }, { deliveries: made.slice(30) });
    const claimed: ClaimedDelivery[] = [];
    for (let round = 0; round < 10 && claimed.length < made.length; round++) {
      const claims = stores.flatMap((store) => [1, 2, 3].map(() => store.claimDeliveries(t0 + 100, 60_000, 4)));
      for (const got of await Promise.all(claims)) claimed.push(...got);
    }
    const ids = claimed.map(({ id }) => id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(made.map(({ id }) => id).sort());
    // Each lease settles its delivery through either store, once.
    for (const [i, { id, lease }] of claimed.entries()) {
      expect(await stores[i % 2]?.settleDelivery(id, lease)).toBe(true);
      expect(await stores[(i + 1) % 2]?.settleDelivery(id, lease)).toBe(false);
    }
    expect(await stores[0].claimDeliveries(t0 + 10_000_000, 60_000, 100)).toEqual([]);
  } finally {
    await Promise.all(stores.map((store) => store.close()));
  }
});
