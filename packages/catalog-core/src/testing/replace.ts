// The replace clauses of the storage contract (`WriteOptions.replace`), registered by
// testCatalogStore beside the others: a batch that is the site's whole catalog, in one step.
import { expect, test } from "vitest";
import type { Product } from "../product.ts";
import type { Site } from "../site.ts";
import type { CatalogStore } from "../store.ts";
import { sampleProduct, uniqueSite } from "./arbitraries.ts";
import { upsert } from "./write.ts";

/** Registers the replace clauses; `store()` gives the store under test once it is open. */
export function testReplace(store: () => CatalogStore, largeBatch: number): void {
  const write = (site: Site, products: readonly Product[]) => upsert(store(), site, products, { dryRun: false });
  const ids = async (site: Site) => (await store().list(site, undefined, 1_000)).map((p) => p.id);

  test("replace: the site holds exactly the batch; the others are deleted and counted, their skus freed", async () => {
    const site = uniqueSite();
    await write(site, [sampleProduct("a", "s1"), sampleProduct("b", "s2"), sampleProduct("c", "s3")]);
    // "new" takes s2, which "b" held: b goes, so that is no conflict.
    const result = await upsert(store(), site, [sampleProduct("a", "s1"), sampleProduct("new", "s2")], {
      dryRun: false,
      replace: true,
    });
    expect(result).toEqual({ applied: true, counts: { created: 1, updated: 0, unchanged: 1, deleted: 2 } });
    expect(await ids(site)).toEqual(["a", "new"]);
    expect((await store().find(site, "s2", "sku"))?.id).toBe("new");
    expect(await store().find(site, "s3", "sku")).toBeUndefined();
  });

  test("replace: a dry run counts the same and writes nothing; a staged replace does the same", async () => {
    const site = uniqueSite();
    await write(site, [sampleProduct("a", "s1"), sampleProduct("b", "s2")]);
    const batch = [sampleProduct("b", "s2", { price: 4 }), sampleProduct("c", "s1")];
    const expected = { applied: true, counts: { created: 1, updated: 1, unchanged: 0, deleted: 1 } };
    expect(await upsert(store(), site, batch, { dryRun: true, replace: true })).toEqual(expected);
    expect(await ids(site)).toEqual(["a", "b"]);
    const dry = await store().beginImport(site, { dryRun: true, replace: true });
    await dry.add(batch, [1, 2]);
    expect(await dry.commit()).toEqual(expected);
    expect(await ids(site)).toEqual(["a", "b"]);
    const staged = await store().beginImport(site, { dryRun: false, replace: true });
    await staged.add([batch[0] as Product], [1]);
    await staged.add([batch[1] as Product], [2]);
    expect(await staged.commit()).toEqual(expected);
    expect(await ids(site)).toEqual(["b", "c"]);
    expect((await store().find(site, "s1", "sku"))?.id).toBe("c");
  });

  test("replace: conflicts within the batch still refuse it whole; an empty replace empties the site", async () => {
    const site = uniqueSite();
    await write(site, [sampleProduct("a", "s1")]);
    const staged = await store().beginImport(site, { dryRun: false, replace: true });
    await staged.add([sampleProduct("x", "dup"), sampleProduct("y", "dup")], [1, 2]);
    expect(await staged.commit()).toEqual({
      applied: false,
      conflicts: [{ sku: "dup", id: "y", heldBy: "x", position: 2 }],
    });
    expect(await ids(site)).toEqual(["a"]);
    expect(await upsert(store(), site, [], { dryRun: false, replace: true })).toEqual({
      applied: true,
      counts: { created: 0, updated: 0, unchanged: 0, deleted: 1 },
    });
    expect(await ids(site)).toEqual([]);
  });

  test(`replace: a site of ${largeBatch} products with a tenth gone, in chunks`, async () => {
    const site = uniqueSite();
    const all = Array.from({ length: largeBatch }, (_, i) => sampleProduct(`id-${i}`, `sku-${i}`));
    await write(site, all);
    const kept = all.filter((_, i) => i % 10 !== 0);
    const staged = await store().beginImport(site, { dryRun: false, replace: true });
    for (let i = 0; i < kept.length; i += 1_000) {
      const chunk = kept.slice(i, i + 1_000);
      await staged.add(
        chunk,
        chunk.map((_, n) => i + n + 1),
      );
    }
    expect(await staged.commit()).toEqual({
      applied: true,
      counts: { created: 0, updated: 0, unchanged: kept.length, deleted: largeBatch - kept.length },
    });
    expect(await store().find(site, "id-0")).toBeUndefined();
    expect(await store().find(site, "sku-0", "sku")).toBeUndefined();
    expect(await store().find(site, "id-1")).toEqual(all[1]);
  }, 120_000);
}
