// The store's writes run on a writer thread: a large commit leaves the main thread serving (reads
// of the site being written see the state before it, until it resolves), and a writer thread
// that stops fails what it had not answered, writes nothing half, and is replaced by the next write.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStore } from "@catalog-kit/adapter-sqlite";
import { type CatalogStore, isCatalogError } from "@catalog-kit/catalog-core";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { afterAll, expect, test } from "vitest";
import { loadSqlite } from "../src/driver.ts";
import { writers } from "../src/writer-client.ts";
import { everything, importInChunks, numbered } from "./support/fixtures.ts";

const dir = mkdtempSync(join(tmpdir(), "catalog-sqlite-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => new Error("it resolved"),
    (error: unknown) => error,
  );

async function staged(store: CatalogStore, site: ReturnType<typeof uniqueSite>, count: number, tag: string) {
  const staging = await store.beginImport(site, { dryRun: false, replace: true });
  for (let start = 0; start < count; start += 3000) {
    const items = numbered(start, Math.min(start + 3000, count), tag);
    await staging.add(
      items,
      items.map((_, k) => start + k),
    );
  }
  return staging;
}

test("a commit of 150,000 products leaves the main thread serving: reads during it see the state before it", async () => {
  const store = createSqliteStore({ path: join(dir, "large.db") });
  const [other, site] = [uniqueSite(), uniqueSite()];
  await importInChunks(store, other, numbered(0, 10, "other"));
  await importInChunks(store, site, numbered(0, 150_000, "first"), { chunk: 3000 });
  const staging = await staged(store, site, 150_000, "second");

  const events: string[] = [];
  const committed = staging.commit().then((result) => {
    events.push("commit");
    return result;
  });
  setTimeout(() => events.push("timer"), 0);
  await new Promise((resolve) => setImmediate(resolve));
  const during = await Promise.all([
    store.find(other, "p5"),
    store.find(site, "p149999"),
    store.find(site, "s7", "sku"),
  ]);
  events.push("find");
  await new Promise((resolve) => setTimeout(resolve, 0));
  expect((await committed).applied).toBe(true);
  expect(events).toEqual(["find", "timer", "commit"]);
  expect(during.map((product) => product?.title)).toEqual(["other p5", "first p149999", "first p7"]);

  expect((await store.find(site, "p149999"))?.title).toBe("second p149999");
  expect((await store.find(site, "s7", "sku"))?.title).toBe("second p7");
  expect((await store.find(other, "p5"))?.title).toBe("other p5");
  await store.close();
}, 120_000);

test("a writer thread that stops fails its calls with STORAGE_UNAVAILABLE, half-writes nothing, and the next write starts another", async () => {
  const path = join(dir, "stopped.db");
  const store = createSqliteStore({ path });
  const site = uniqueSite();
  await importInChunks(store, site, numbered(0, 1000, "first"));

  // Stopped while it commits a replace: the commit rejects, and the site is one import whole.
  const committing = await staged(store, site, 30_000, "second");
  const commit = rejection(committing.commit());
  await writers.get(store)?.thread?.terminate();
  const error = await commit;
  expect(isCatalogError(error, "STORAGE_UNAVAILABLE"), String(error)).toBe(true);
  expect((error as Error).message).toMatch(/writer thread stopped/);
  const after = await everything(store, site);
  const tags = new Set(after.map((product) => product.title?.split(" ")[0]));
  expect([...tags].length).toBe(1);
  expect(after.length).toBe(tags.has("first") ? 1000 : 30_000);

  // Stopped while an import is staged: that import's later calls reject; abort still resolves.
  const lost = await staged(store, site, 10, "lost");
  await writers.get(store)?.thread?.terminate();
  expect(isCatalogError(await rejection(lost.add(numbered(10, 20, "lost"), [10])), "STORAGE_UNAVAILABLE")).toBe(true);
  expect(isCatalogError(await rejection(lost.commit()), "STORAGE_UNAVAILABLE")).toBe(true);
  await lost.abort();

  // The next write starts another thread, and the file's write lock was let go with the old one.
  expect((await importInChunks(store, site, numbered(0, 5, "third"), { replace: true })).applied).toBe(true);
  expect((await everything(store, site)).map((product) => product.title)).toEqual(
    numbered(0, 5, "third").map((product) => product.title),
  );
  expect((await store.claimKey(site, "key", 60_000)).state).toBe("claimed");
  await store.close();

  const { DatabaseSync } = loadSqlite();
  const check = new DatabaseSync(path);
  expect(check.prepare("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
  check.close();
});

test("close ends its writer thread, twice is safe, and a write after it starts none", async () => {
  const store = createSqliteStore({ path: join(dir, "idle.db") });
  const site = uniqueSite();
  await importInChunks(store, site, numbered(0, 3, "first"));
  const thread = writers.get(store)?.thread;
  expect(thread).toBeDefined();
  const exited = new Promise((resolve) => thread?.once("exit", resolve));
  await Promise.all([store.close(), store.close()]);
  await exited;
  expect(writers.get(store)?.thread).toBeUndefined();
  expect(isCatalogError(await rejection(store.find(site, "p1")), "STORAGE_UNAVAILABLE")).toBe(true);
  // A write after close rejects without starting another thread.
  const begun = rejection(store.beginImport(site, { dryRun: false }));
  expect(writers.get(store)?.thread).toBeUndefined();
  expect(isCatalogError(await begun, "STORAGE_UNAVAILABLE")).toBe(true);
});
