// A process killed (SIGKILL) while it stages or commits a large import that replaces a site: the
// file, opened again, holds the import whole or not at all, the import acknowledged before it
// whole, and passes SQLite's integrity check. Killed right after a commit was answered, the
// commit is there: with WAL and synchronous=NORMAL a commit is in the operating system's hands
// once answered, and only a power loss or a kernel crash could take it back.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStore } from "@catalog-kit/adapter-sqlite";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { afterAll, expect, test } from "vitest";
import { loadSqlite } from "../src/driver.ts";
import { everything, startChild, unpublished } from "./support/fixtures.ts";

const dir = mkdtempSync(join(tmpdir(), "catalog-sqlite-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FIRST = 1_000;
const SECOND = 200_000;

// Kills a child at the moment `when` names, and reads what the file then holds; with `first` 0,
// the second import is into a site with no number, written under a number of its own as it comes.
async function killed(when: "staging" | "committing" | "committed", delayMs = 0, first = FIRST) {
  const path = join(dir, `${when}-${delayMs}-${first}.db`);
  const site = uniqueSite();
  const child = startChild({ kind: "crash", path, site, first, second: SECOND });
  await child.line((line) => line === "ready");
  child.go();
  await child.line((line) => line.startsWith("acknowledged "));
  await child.line((line) => line === when || line.startsWith(`${when} `));
  if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
  child.process.kill("SIGKILL");
  expect(await child.exited).toBe("SIGKILL");

  const { DatabaseSync } = loadSqlite();
  const check = new DatabaseSync(path);
  const integrity = check.prepare("PRAGMA integrity_check").all();
  check.close();
  expect(integrity).toEqual([{ integrity_check: "ok" }]);
  const store = createSqliteStore({ path });
  const products = await everything(store, site);
  await store.close();
  const tags = new Set(products.map((p) => p.title.split(" ")[0]));
  return { count: products.length, tags: [...tags] };
}

const NOTHING = { count: FIRST, tags: ["first"] };
const WHOLE = { count: SECOND, tags: ["second"] };

test("killed while staging: the import is not there, the one acknowledged before is whole", async () => {
  expect(await killed("staging")).toEqual(NOTHING);
}, 30_000);

test("killed during its commit: the import is there whole or not at all", async () => {
  const seen: string[] = [];
  for (const delayMs of [1, 300, 1200]) {
    const found = await killed("committing", delayMs);
    expect([NOTHING, WHOLE]).toContainEqual(found);
    seen.push(`${delayMs} ms: ${found.tags[0] === "second" ? "whole" : "nothing"}`);
  }
  // Which depends on how far the commit got; both are correct.
  console.log(`killed during the commit, after ${seen.join("; ")}`);
}, 60_000);

test("killed right after its commit was answered: the import is there whole", async () => {
  expect(await killed("committed")).toEqual(WHOLE);
}, 30_000);

test("killed while writing into a new site: the site holds nothing, and its written products are swept once abandoned", async () => {
  expect(await killed("staging", 0, 0)).toEqual({ count: 0, tags: [] });
  const path = join(dir, "staging-0-0.db");
  const left = unpublished(path);
  expect(left.newSites).toBe(1);
  expect(left.products).toBeGreaterThanOrEqual(5 * 5000);
  // Ten minutes later, as far as the file knows: the next store on it sweeps them.
  const { DatabaseSync } = loadSqlite();
  const db = new DatabaseSync(path);
  db.exec("UPDATE new_sites SET heard = heard - 600001");
  db.close();
  const store = createSqliteStore({ path });
  try {
    // The writer thread sweeps when it starts, which its first write does.
    await store.countUsage([{ key: "start", amount: 1 }], 60_000);
    await expect.poll(() => unpublished(path), { timeout: 20_000 }).toEqual({ newSites: 0, products: 0 });
  } finally {
    await store.close();
  }
}, 60_000);

test("killed during a commit into a new site: the import is there whole or not at all", async () => {
  for (const delayMs of [1, 300]) {
    expect([{ count: 0, tags: [] }, WHOLE]).toContainEqual(await killed("committing", delayMs, 0));
  }
  expect(await killed("committed", 0, 0)).toEqual(WHOLE);
}, 60_000);
