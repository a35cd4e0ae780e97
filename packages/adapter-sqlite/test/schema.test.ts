// The file's schema version: written when the store creates its tables, and a file of a later
// version refused rather than misread.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStore, SCHEMA_VERSION } from "@catalog-kit/adapter-sqlite";
import { afterAll, expect, test } from "vitest";
import { loadSqlite } from "../src/driver.ts";
import { product } from "./support/fixtures.ts";

const dir = mkdtempSync(join(tmpdir(), "catalog-sqlite-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const versionOf = (path: string): unknown => {
  const { DatabaseSync } = loadSqlite();
  const db = new DatabaseSync(path);
  const row = db.prepare("PRAGMA user_version").get();
  db.close();
  return row;
};

test("a new file gets the schema version; reopened, it is used as it is", async () => {
  const path = join(dir, "new.db");
  await createSqliteStore({ path }).close();
  expect(versionOf(path)).toEqual({ user_version: SCHEMA_VERSION });
  const again = createSqliteStore({ path });
  await again.ping();
  await again.close();
});

test("a file of a later schema version is refused, naming both versions", () => {
  const path = join(dir, "later.db");
  const { DatabaseSync } = loadSqlite();
  const db = new DatabaseSync(path);
  db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
  db.close();
  expect(() => createSqliteStore({ path })).toThrow(
    `the database file has schema version ${SCHEMA_VERSION + 1}; this package knows up to ${SCHEMA_VERSION}`,
  );
});

test("a file of version 1 is migrated: its products kept, the tenants registry added empty at version 0", async () => {
  const path = join(dir, "one.db");
  const site = { siteType: "t", siteId: "s" };
  const first = createSqliteStore({ path });
  const staged = await first.beginImport(site, { dryRun: false });
  await staged.add([product("a", "sa", "one")], [1]);
  await staged.commit();
  await first.close();
  // What version 1 left: its own tables, none of version 2's.
  const { DatabaseSync } = loadSqlite();
  const db = new DatabaseSync(path);
  db.exec("DROP TABLE tenants; DROP TABLE tenants_version; DROP TABLE usage_counters; PRAGMA user_version = 1");
  db.close();
  const store = createSqliteStore({ path });
  try {
    expect(versionOf(path)).toEqual({ user_version: SCHEMA_VERSION });
    expect(await store.find(site, "a")).toEqual(product("a", "sa", "one"));
    expect(await store.readTenants()).toEqual({ version: 0, entries: [] });
    expect(await store.writeTenant({ key: "site:x", value: "{}", when: "absent" })).toBe(true);
    expect(await store.countUsage([{ key: "u", amount: 2 }], 60_000)).toEqual([2]);
  } finally {
    await store.close();
  }
});
