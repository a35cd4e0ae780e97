// The file's schema version: written when the store creates its tables, a file of a later
// version refused rather than misread, and a file of each earlier version migrated with its data.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStore, SCHEMA_VERSION } from "@catalog-kit/adapter-sqlite";
import { afterAll, expect, test } from "vitest";
import { loadSqlite } from "../src/driver.ts";
import { openConnection } from "../src/open.ts";
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

const pageSizeOf = (path: string): unknown => {
  const { DatabaseSync } = loadSqlite();
  const db = new DatabaseSync(path);
  const row = db.prepare("PRAGMA page_size").get();
  db.close();
  return row;
};

test("a new file, and the staging, have pages of 16 KiB; a file made with another page size keeps it, and its products", async () => {
  const fresh = join(dir, "pages-new.db");
  await createSqliteStore({ path: fresh }).close();
  expect(pageSizeOf(fresh)).toEqual({ page_size: 16_384 });
  // The staging's too, on any file: temporary tables are the connection's own.
  const connection = openConnection(join(dir, "pages-temp.db"), 1000);
  connection.db.exec("CREATE TABLE temp.staged (x)");
  expect(connection.db.prepare("PRAGMA temp.page_size").get()).toEqual({ page_size: 16_384 });
  connection.close();

  const path = join(dir, "pages-4k.db");
  const { DatabaseSync } = loadSqlite();
  const db = new DatabaseSync(path);
  db.exec("PRAGMA page_size = 4096; CREATE TABLE earlier (x)");
  db.close();
  const site = { siteType: "t", siteId: "s" };
  const store = createSqliteStore({ path });
  try {
    const staged = await store.beginImport(site, { dryRun: false });
    await staged.add([product("a", "sa", "one")], [0]);
    expect(await staged.commit()).toMatchObject({ applied: true });
    expect(await store.find(site, "a")).toEqual(product("a", "sa", "one"));
  } finally {
    await store.close();
  }
  expect(pageSizeOf(path)).toEqual({ page_size: 4096 });
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

// Version 3's products, keyed by the site's key, rebuilt from version 4's, keyed by its number.
const PRODUCTS_BY_SITE_KEY = `
  CREATE TABLE by_key (
    site TEXT NOT NULL, id TEXT NOT NULL, sku TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (site, id)
  ) WITHOUT ROWID;
  INSERT INTO by_key SELECT s.site, p.id, p.sku, p.body FROM products p JOIN sites s ON s.number = p.site;
  DROP TABLE products; ALTER TABLE by_key RENAME TO products; CREATE INDEX products_sku ON products (site, sku);`;

// Makes the file at `path` what version `version` left: the tables of later versions dropped.
function downgrade(path: string, version: 1 | 2 | 3): void {
  const later = {
    2: ["tenants", "tenants_version", "usage_counters"],
    3: ["import_history", "import_problems", "deliveries"],
    4: ["sites", "new_sites", "site_numbers"],
  };
  const dropped = Object.entries(later).flatMap(([since, tables]) => (Number(since) > version ? tables : []));
  const { DatabaseSync } = loadSqlite();
  const db = new DatabaseSync(path);
  db.exec(PRODUCTS_BY_SITE_KEY);
  db.exec(`${dropped.map((table) => `DROP TABLE ${table};`).join("")} PRAGMA user_version = ${version}`);
  db.close();
}

test("a file of version 1 is migrated: its products kept, the tenants registry added empty at version 0", async () => {
  const path = join(dir, "one.db");
  const site = { siteType: "t", siteId: "s" };
  const first = createSqliteStore({ path });
  const staged = await first.beginImport(site, { dryRun: false });
  await staged.add([product("a", "sa", "one")], [1]);
  await staged.commit();
  await first.close();
  downgrade(path, 1);
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

test("a file of version 2 is migrated: its products and registry kept, the history and queue added empty", async () => {
  const path = join(dir, "two.db");
  const site = { siteType: "t", siteId: "s" };
  const first = createSqliteStore({ path });
  const staged = await first.beginImport(site, { dryRun: false });
  await staged.add([product("a", "sa", "one")], [1]);
  await staged.commit();
  await first.writeTenant({ key: "site:t:s", value: "{}", when: "absent" });
  await first.close();
  downgrade(path, 2);
  expect(versionOf(path)).toEqual({ user_version: 2 });
  const store = createSqliteStore({ path });
  try {
    expect(versionOf(path)).toEqual({ user_version: SCHEMA_VERSION });
    expect(await store.find(site, "a")).toEqual(product("a", "sa", "one"));
    expect(await store.readTenants()).toEqual({ version: 1, entries: [{ key: "site:t:s", value: "{}" }] });
    expect(await store.listImports(site, undefined, 10)).toEqual([]);
    const delivery = { id: "d1", dueAt: 1_000, value: "{}" };
    await store.saveImport(site, { id: "1a", value: "{}" }, { problems: "p", deliveries: [delivery] });
    expect(await store.listImports(site, undefined, 10)).toEqual([{ id: "1a", value: "{}" }]);
    expect(await store.readImportProblems(site, "1a")).toBe("p");
    const [claimed] = await store.claimDeliveries(1_000, 60_000, 10);
    expect(claimed).toMatchObject(delivery);
    expect(await store.settleDelivery("d1", claimed?.lease as string)).toBe(true);
  } finally {
    await store.close();
  }
});

test("a file of version 3 is migrated: every site's products kept under a number, and a new site numbered after them", async () => {
  const path = join(dir, "three.db");
  const sites = [
    { siteType: "t", siteId: "b" },
    { siteType: "t", siteId: "a" },
  ];
  const first = createSqliteStore({ path });
  for (const [n, site] of sites.entries()) {
    const staged = await first.beginImport(site, { dryRun: false });
    await staged.add([product("a", "sa", `one ${n}`), product("b", "sb", `two ${n}`)], [1, 2]);
    await staged.commit();
  }
  await first.close();
  downgrade(path, 3);
  expect(versionOf(path)).toEqual({ user_version: 3 });
  const store = createSqliteStore({ path });
  try {
    expect(versionOf(path)).toEqual({ user_version: SCHEMA_VERSION });
    for (const [n, site] of sites.entries()) {
      expect(await store.list(site, undefined, 10)).toEqual([
        product("a", "sa", `one ${n}`),
        product("b", "sb", `two ${n}`),
      ]);
      expect(await store.find(site, "sb", "sku")).toEqual(product("b", "sb", `two ${n}`));
    }
    const added = { siteType: "t", siteId: "c" };
    const staged = await store.beginImport(added, { dryRun: false });
    await staged.add([product("a", "sa", "three")], [1]);
    expect(await staged.commit()).toMatchObject({ applied: true, counts: { created: 1 } });
    expect(await store.list(added, undefined, 10)).toEqual([product("a", "sa", "three")]);
    expect(await store.list(sites[0] as (typeof sites)[0], undefined, 10)).toHaveLength(2);
  } finally {
    await store.close();
  }
});
