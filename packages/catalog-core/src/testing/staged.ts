// The staged-import clauses of the storage contract (`CatalogStore.beginImport`), registered by
// testCatalogStore beside the others: chunks, repeated ids, skus judged on the end state,
// other writers between chunks, aborts and dry runs.
import { expect, test } from "vitest";
import type { Product } from "../product.ts";
import type { Site } from "../site.ts";
import type { CatalogStore, CommitResult } from "../store.ts";
import { fullProduct, sampleProduct, uniqueSite } from "./arbitraries.ts";
import { upsert } from "./write.ts";

// A staged import of `chunks`, each product's position its place in the whole import, from 1.
async function stage(
  store: CatalogStore,
  site: Site,
  chunks: readonly (readonly Product[])[],
  dryRun = false,
): Promise<CommitResult> {
  const staged = await store.beginImport(site, { dryRun });
  let position = 0;
  for (const chunk of chunks) {
    await staged.add(
      chunk,
      chunk.map(() => ++position),
    );
  }
  return staged.commit();
}

const created = (n: number) => ({ applied: true, counts: { created: n, updated: 0, unchanged: 0 } });

/** Registers the staged-import clauses; `store()` gives the store under test once it is open. */
export function testStagedImport(store: () => CatalogStore, largeBatch: number): void {
  const find = (site: Site, key: string, by?: "id" | "sku") => store().find(site, key, by);

  test("staged import: nothing is visible before commit; then the last of each id, counted once", async () => {
    const site = uniqueSite();
    const staged = await store().beginImport(site, { dryRun: false });
    await staged.add([sampleProduct("a", "s1"), sampleProduct("b", "s2")], [1, 2]);
    await staged.add([fullProduct("a", "s3"), sampleProduct("c", "s4")], [3, 4]);
    for (const key of ["a", "b", "s1", "s3"]) expect(await find(site, key)).toBeUndefined();
    expect(await staged.commit()).toEqual(created(3));
    expect(await find(site, "a")).toEqual(fullProduct("a", "s3"));
    expect(await find(site, "s1", "sku")).toBeUndefined();
    expect(await find(site, "s4", "sku")).toEqual(sampleProduct("c", "s4"));
    await staged.abort(); // after commit: harmless
    expect(await find(site, "c")).toEqual(sampleProduct("c", "s4"));
  });

  test("staged import: counts compare with the replaced state, as upsert does", async () => {
    const site = uniqueSite();
    await upsert(store(), site, [sampleProduct("a", "sa"), sampleProduct("b", "sb")], { dryRun: false });
    const result = await stage(store(), site, [
      [sampleProduct("a", "sa"), sampleProduct("b", "sb")],
      [sampleProduct("b", "sb", { price: 3 }), sampleProduct("c", "sc")],
    ]);
    expect(result).toEqual({ applied: true, counts: { created: 1, updated: 1, unchanged: 1 } });
  });

  test("staged import: two ids claiming one sku across chunks is a conflict; nothing is written", async () => {
    const site = uniqueSite();
    const result = await stage(store(), site, [
      [sampleProduct("a", "x"), sampleProduct("p", "q")],
      [sampleProduct("b", "y")],
      [sampleProduct("c", "x")],
    ]);
    expect(result).toEqual({ applied: false, conflicts: [{ sku: "x", id: "c", heldBy: "a", position: 4 }] });
    for (const key of ["a", "p", "b", "c"]) expect(await find(site, key)).toBeUndefined();
  });

  test("staged import: every conflict is answered, claims among its ids and skus held in the site alike", async () => {
    const site = uniqueSite();
    await upsert(store(), site, [sampleProduct("holder", "s1")]);
    const result = await stage(store(), site, [
      [sampleProduct("a", "s1"), sampleProduct("c", "x")],
      [sampleProduct("b", "s1"), sampleProduct("d", "x"), sampleProduct("e", "y")],
    ]);
    expect(result.applied).toBe(false);
    const conflicts = result.applied ? [] : [...result.conflicts].sort((l, r) => l.position - r.position);
    // s1 stays the holder's, so both of its claimers conflict with the holder; x goes to its first claimer.
    expect(conflicts).toEqual([
      { sku: "s1", id: "a", heldBy: "holder", position: 1 },
      { sku: "s1", id: "b", heldBy: "holder", position: 3 },
      { sku: "x", id: "d", heldBy: "c", position: 4 },
    ]);
    for (const key of ["a", "b", "c", "d", "e"]) expect(await find(site, key)).toBeUndefined();
  });

  test("staged import: skus are judged on the end state, so a later chunk may resolve a clash", async () => {
    const site = uniqueSite();
    const result = await stage(store(), site, [
      [sampleProduct("a", "x"), sampleProduct("b", "x")],
      [sampleProduct("b", "y")],
    ]);
    expect(result).toEqual(created(2));
    expect((await find(site, "x", "sku"))?.id).toBe("a");
    expect((await find(site, "y", "sku"))?.id).toBe("b");
  });

  test("staged import: a conflict with the site names the position of its id", async () => {
    const site = uniqueSite();
    await upsert(store(), site, [sampleProduct("holder", "s1"), sampleProduct("m", "s9")], { dryRun: false });
    const result = await stage(store(), site, [
      [sampleProduct("fresh", "s0")],
      [sampleProduct("b", "s1"), sampleProduct("m", "s8")],
      // "m" moves off s9 in the import, so "n" may take it: not a conflict.
      [sampleProduct("n", "s9")],
    ]);
    expect(result).toEqual({ applied: false, conflicts: [{ sku: "s1", id: "b", heldBy: "holder", position: 2 }] });
    expect(await find(site, "fresh")).toBeUndefined();
    expect((await find(site, "s9", "sku"))?.id).toBe("m");
  });

  test("staged import: the conflict of an id given again names the position it was last given", async () => {
    const site = uniqueSite();
    await upsert(store(), site, [sampleProduct("holder", "s1")], { dryRun: false });
    const result = await stage(store(), site, [
      [sampleProduct("b", "s1"), sampleProduct("c", "s2")],
      [sampleProduct("d", "s3"), sampleProduct("b", "s1")],
    ]);
    expect(result).toEqual({ applied: false, conflicts: [{ sku: "s1", id: "b", heldBy: "holder", position: 4 }] });
  });

  test("staged import: products of the site may swap skus across chunks", async () => {
    const site = uniqueSite();
    await upsert(store(), site, [sampleProduct("a", "s1"), sampleProduct("b", "s2")], { dryRun: false });
    const result = await stage(store(), site, [[sampleProduct("a", "s2")], [sampleProduct("b", "s1")]]);
    expect(result).toEqual({ applied: true, counts: { created: 0, updated: 2, unchanged: 0 } });
    expect((await find(site, "s1", "sku"))?.id).toBe("b");
    expect((await find(site, "s2", "sku"))?.id).toBe("a");
  });

  test("staged import: judged at commit against writes made between its chunks", async () => {
    const site = uniqueSite();
    const staged = await store().beginImport(site, { dryRun: false });
    await staged.add([sampleProduct("a", "s1")], [1]);
    // Another writer takes s1, and creates the import's "b", while the import is staging.
    await upsert(store(), site, [sampleProduct("z", "s1"), sampleProduct("b", "s2")], { dryRun: false });
    await staged.add([sampleProduct("b", "s2")], [2]);
    expect(await staged.commit()).toEqual({
      applied: false,
      conflicts: [{ sku: "s1", id: "a", heldBy: "z", position: 1 }],
    });
    expect(await find(site, "a")).toBeUndefined();

    const again = await store().beginImport(site, { dryRun: false });
    await again.add([sampleProduct("b", "s2")], [1]);
    await store().remove(site, "z");
    await again.add([sampleProduct("a", "s1")], [2]);
    expect(await again.commit()).toEqual({ applied: true, counts: { created: 1, updated: 0, unchanged: 1 } });
  });

  test("staged import: abort leaves nothing visible, is safe twice, and the site stays writable", async () => {
    const site = uniqueSite();
    await upsert(store(), site, [sampleProduct("a", "s1")], { dryRun: false });
    const staged = await store().beginImport(site, { dryRun: false });
    await staged.add([sampleProduct("a", "s2"), sampleProduct("b", "s3")], [1, 2]);
    await staged.abort();
    await staged.abort();
    expect(await find(site, "a")).toEqual(sampleProduct("a", "s1"));
    expect(await find(site, "b")).toBeUndefined();
    expect(await stage(store(), site, [[sampleProduct("b", "s3")]])).toEqual(created(1));
    // An import aborted before any chunk.
    await (await store().beginImport(site, { dryRun: false })).abort();
  });

  test("staged import: a dry run answers the same and writes nothing", async () => {
    const site = uniqueSite();
    await upsert(store(), site, [sampleProduct("a", "s1")], { dryRun: false });
    const chunks = [[sampleProduct("a", "s1", { price: 2 })], [sampleProduct("b", "s2")]];
    expect(await stage(store(), site, chunks, true)).toEqual({
      applied: true,
      counts: { created: 1, updated: 1, unchanged: 0 },
    });
    expect(await find(site, "a")).toEqual(sampleProduct("a", "s1"));
    expect(await find(site, "b")).toBeUndefined();
    expect(await stage(store(), site, [[sampleProduct("c", "s1")]], true)).toEqual({
      applied: false,
      conflicts: [{ sku: "s1", id: "c", heldBy: "a", position: 1 }],
    });
    expect(await stage(store(), site, [])).toEqual(created(0));
  });

  test(`staged import: ${largeBatch} products in chunks are applied whole, or not at all`, async () => {
    const site = uniqueSite();
    const batch = Array.from({ length: largeBatch }, (_, i) => fullProduct(`id-${i}`, `sku-${i}`));
    const chunks: Product[][] = [];
    for (let i = 0; i < batch.length; i += 1_000) chunks.push(batch.slice(i, i + 1_000));
    await upsert(store(), site, [sampleProduct("holder", `sku-${largeBatch - 1}`)], { dryRun: false });
    expect(await stage(store(), site, chunks)).toEqual({
      applied: false,
      conflicts: [{ sku: `sku-${largeBatch - 1}`, id: `id-${largeBatch - 1}`, heldBy: "holder", position: largeBatch }],
    });
    for (const i of [0, Math.floor(largeBatch / 2), largeBatch - 2])
      expect(await find(site, `id-${i}`)).toBeUndefined();
    await store().remove(site, "holder");
    expect(await stage(store(), site, chunks)).toEqual(created(largeBatch));
    for (const i of [0, largeBatch - 1]) expect(await find(site, `sku-${i}`, "sku")).toEqual(batch[i]);
    // The same again, with every id repeated in a later chunk: each counts once, unchanged.
    expect(await stage(store(), site, [...chunks, ...chunks])).toEqual({
      applied: true,
      counts: { created: 0, updated: 0, unchanged: largeBatch },
    });
  }, 120_000);
}
