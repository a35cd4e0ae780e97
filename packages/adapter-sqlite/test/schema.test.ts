// The file's schema version: written when the store creates its tables, and a file of a later
// version refused rather than misread.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStore, SCHEMA_VERSION } from "@catalog-kit/adapter-sqlite";
import { afterAll, expect, test } from "vitest";
import { loadSqlite } from "../src/driver.ts";

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
