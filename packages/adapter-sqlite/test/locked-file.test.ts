// Another connection holding the file's write lock longer than busyTimeoutMs: the store's writes
// (an import's commit, a remove, a key claim) fail with STORAGE_UNAVAILABLE saying so and write
// nothing, its reads go on (WAL), and once the lock is let go, the same writes succeed.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStore } from "@catalog-kit/adapter-sqlite";
import { isCatalogError } from "@catalog-kit/catalog-core";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { afterAll, expect, test } from "vitest";
import { loadSqlite } from "../src/driver.ts";
import { importInChunks, numbered } from "./support/fixtures.ts";

const dir = mkdtempSync(join(tmpdir(), "catalog-sqlite-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("writes wait busyTimeoutMs for another connection's write lock, then fail having written nothing; reads go on", async () => {
  const path = join(dir, "locked.db");
  const store = createSqliteStore({ path, busyTimeoutMs: 100 });
  const site = uniqueSite();
  await importInChunks(store, site, numbered(0, 10, "first"));

  const { DatabaseSync } = loadSqlite();
  const other = new DatabaseSync(path);
  other.exec("BEGIN IMMEDIATE");
  const writes = {
    import: () => importInChunks(store, site, numbered(0, 20, "second")),
    remove: () => store.remove(site, "p1"),
    claimKey: () => store.claimKey(site, "key", 60_000),
  };
  for (const [name, write] of Object.entries(writes)) {
    const started = performance.now();
    const error = await write().then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(isCatalogError(error, "STORAGE_UNAVAILABLE"), name).toBe(true);
    expect((error as Error).message, name).toMatch(/locked by another connection.*nothing was written/);
    expect(performance.now() - started, name).toBeGreaterThanOrEqual(90);
  }
  expect((await store.find(site, "p1"))?.title).toBe("first p1");
  expect(await store.list(site, undefined, 100)).toHaveLength(10);
  await store.ping();

  other.exec("ROLLBACK");
  other.close();
  expect((await importInChunks(store, site, numbered(0, 20, "second"))).applied).toBe(true);
  expect((await store.remove(site, "p1"))?.title).toBe("second p1");
  expect((await store.claimKey(site, "key", 60_000)).state).toBe("claimed");
  await store.close();
});
