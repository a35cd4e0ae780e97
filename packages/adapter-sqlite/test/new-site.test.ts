// An import into a site with no number writes its products as they come, under a number no reader
// knows until its commit: nothing of it is seen before, everything at once after, and whatever
// sends it back to the staging (an id or a sku given twice, a merge's bases, the site numbered by
// another import meanwhile) answers what the staging answers, with nothing left under its number.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStore } from "@catalog-kit/adapter-sqlite";
import type { CatalogStore } from "@catalog-kit/catalog-core";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { afterAll, beforeAll, expect, test } from "vitest";
import { everything, numbered, product, unpublished } from "./support/fixtures.ts";

const dir = mkdtempSync(join(tmpdir(), "catalog-sqlite-new-site-"));
const path = join(dir, "catalog.db");
let store: CatalogStore;
let other: CatalogStore;
beforeAll(() => {
  store = createSqliteStore({ path });
  other = createSqliteStore({ path });
});
afterAll(async () => {
  await store.close();
  await other.close();
  rmSync(dir, { recursive: true, force: true });
});

test("written as it comes, seen by no store before its commit and by every store after", async () => {
  const site = uniqueSite();
  const staged = await store.beginImport(site, { dryRun: false });
  await staged.add(numbered(0, 3000, "new"), [...Array(3000).keys()]);
  expect(unpublished(path)).toEqual({ newSites: 1, products: 3000 });
  for (const reader of [store, other]) {
    expect(await reader.find(site, "p1")).toBeUndefined();
    expect(await reader.find(site, "s1", "sku")).toBeUndefined();
    expect(await reader.list(site, undefined, 10)).toEqual([]);
  }
  expect(await staged.commit()).toEqual({ applied: true, counts: { created: 3000, updated: 0, unchanged: 0 } });
  expect(unpublished(path)).toEqual({ newSites: 0, products: 0 });
  for (const reader of [store, other]) {
    expect(await reader.find(site, "s2999", "sku")).toEqual(product("p2999", "s2999", "new"));
    expect(await everything(reader, site)).toHaveLength(3000);
  }
});

test("an id given again, in a later chunk or the same one, is judged as the staging judges it", async () => {
  for (const split of [true, false]) {
    const site = uniqueSite();
    const staged = await store.beginImport(site, { dryRun: false, replace: true });
    const first = [product("a", "sa", "one"), product("b", "sb", "one")];
    const again = [product("a", "sa2", "two")];
    if (split) {
      await staged.add(first, [1, 2]);
      await staged.add(again, [3]);
    } else await staged.add([...first, ...again], [1, 2, 3]);
    expect(await staged.commit()).toEqual({
      applied: true,
      counts: { created: 2, updated: 0, unchanged: 0, deleted: 0 },
    });
    expect(await everything(store, site)).toEqual([product("a", "sa2", "two"), product("b", "sb", "one")]);
  }
  expect(unpublished(path)).toEqual({ newSites: 0, products: 0 });
});

test("a sku given to two ids is the staging's conflict, at the later one's position, and nothing is written", async () => {
  const site = uniqueSite();
  const staged = await store.beginImport(site, { dryRun: false });
  await staged.add([product("a", "same", "one"), product("b", "other", "one")], [1, 2]);
  await staged.add([product("c", "same", "one")], [7]);
  expect(await staged.commit()).toEqual({
    applied: false,
    conflicts: [{ sku: "same", id: "c", heldBy: "a", position: 7 }],
  });
  expect(await everything(store, site)).toEqual([]);
  await expect.poll(() => unpublished(path)).toEqual({ newSites: 0, products: 0 });
});

test("a site numbered by another import meanwhile: the import is judged against what that one wrote", async () => {
  const site = uniqueSite();
  const staged = await store.beginImport(site, { dryRun: false });
  await staged.add([product("a", "sa", "late"), product("b", "sb", "late")], [1, 2]);
  const early = await other.beginImport(site, { dryRun: false });
  await early.add([product("a", "sa", "late"), product("c", "sc", "early")], [1, 2]);
  expect(await early.commit()).toMatchObject({ applied: true, counts: { created: 2 } });
  expect(await staged.commit()).toEqual({ applied: true, counts: { created: 1, updated: 0, unchanged: 1 } });
  expect((await everything(store, site)).map((p) => p.id)).toEqual(["a", "b", "c"]);
  expect(unpublished(path)).toEqual({ newSites: 0, products: 0 });
});

test("a merge's bases, a dry run, an abort and a key already recorded write nothing under a number of their own", async () => {
  const site = uniqueSite();
  const merged = await store.beginImport(site, { dryRun: false });
  await merged.add([product("a", "sa", "merged")], [1], [null]);
  expect(unpublished(path)).toEqual({ newSites: 0, products: 0 });
  expect(await merged.commit()).toMatchObject({ applied: true, counts: { created: 1 } });

  const fresh = uniqueSite();
  const dry = await store.beginImport(fresh, { dryRun: true });
  await dry.add(numbered(0, 10, "dry"), [...Array(10).keys()]);
  expect(unpublished(path)).toEqual({ newSites: 0, products: 0 });
  expect(await dry.commit()).toMatchObject({ applied: true, counts: { created: 10 } });

  const aborted = await store.beginImport(fresh, { dryRun: false });
  await aborted.add(numbered(0, 10, "aborted"), [...Array(10).keys()]);
  await aborted.abort();
  await expect.poll(() => unpublished(path)).toEqual({ newSites: 0, products: 0 });
  expect(await everything(store, fresh)).toEqual([]);

  const key = { key: "k", fingerprint: "f", retainMs: 60_000, claimed: false };
  const keyed = await store.beginImport(fresh, { dryRun: false });
  await keyed.add(numbered(0, 10, "keyed"), [...Array(10).keys()]);
  expect(await keyed.commit(key)).toMatchObject({ applied: true });
  expect(await everything(store, fresh)).toEqual(numbered(0, 10, "keyed"));
  // Into a site with no number, a key another import holds: busy, and nothing published.
  const busy = uniqueSite();
  expect(await other.claimKey(busy, "held", 60_000)).toMatchObject({ state: "claimed" });
  const refused = await store.beginImport(busy, { dryRun: false });
  await refused.add(numbered(0, 10, "refused"), [...Array(10).keys()]);
  expect(await refused.commit({ ...key, key: "held" })).toEqual({ applied: false, conflicts: [], busy: true });
  expect(await everything(store, busy)).toEqual([]);
  await expect.poll(() => unpublished(path)).toEqual({ newSites: 0, products: 0 });
});
