// The precondition clauses of the storage contract: bases given to `StagedImport.add` (clause 7 of
// `commit`) and the `expected` product of `remove`, which together keep every read-modify-write of
// the catalog (a merge, a patch, a conditional delete) from losing a concurrent update.
import fc from "fast-check";
import { expect, test } from "vitest";
import type { Product } from "../product.ts";
import type { Site } from "../site.ts";
import type { CatalogStore, CommitResult } from "../store.ts";
import { fullProduct, sampleProduct, uniqueSite } from "./arbitraries.ts";
import { upsert } from "./write.ts";

const STALE = { applied: false, conflicts: [], stale: true };

/** Registers the precondition clauses; `store()` gives the store under test once it is open. */
export function testPreconditions(store: () => CatalogStore, numRuns: number): void {
  // One import of `products`, each with its base (`undefined`: none given for the chunk).
  async function based(
    site: Site,
    products: readonly Product[],
    bases: readonly (Product | null)[] | undefined,
    dryRun = false,
  ): Promise<CommitResult> {
    const staged = await store().beginImport(site, { dryRun });
    await staged.add(
      products,
      products.map((_, i) => i + 1),
      bases,
    );
    return staged.commit();
  }

  test("preconditions: bases that are still the stored products apply, counted as any import", async () => {
    const site = uniqueSite();
    const a = sampleProduct("a", "sa");
    await upsert(store(), site, [a]);
    const result = await based(site, [{ ...a, price: 7 }, sampleProduct("b", "sb")], [a, null]);
    expect(result).toEqual({ applied: true, counts: { created: 1, updated: 1, unchanged: 0 } });
    expect(await store().find(site, "a", "id")).toEqual({ ...a, price: 7 });
  });

  test("preconditions: a product changed, removed or created since its base refuses the whole import as stale", async () => {
    const site = uniqueSite();
    const a = sampleProduct("a", "sa");
    const b = sampleProduct("b", "sb");
    await upsert(store(), site, [a, b]);
    await upsert(store(), site, [{ ...a, title: "changed" }]);
    expect(await based(site, [{ ...a, price: 1 }, sampleProduct("c", "sc")], [a, null])).toEqual(STALE);
    await store().remove(site, "b", "id");
    expect(await based(site, [{ ...b, price: 1 }], [b])).toEqual(STALE);
    await upsert(store(), site, [sampleProduct("d", "sd")]);
    expect(await based(site, [sampleProduct("d", "sd2")], [null])).toEqual(STALE);
    // Nothing of a refused import is written.
    expect(await store().find(site, "c", "id")).toBeUndefined();
    expect(await store().find(site, "d", "id")).toEqual(sampleProduct("d", "sd"));
    expect(await store().find(site, "a", "id")).toEqual({ ...a, title: "changed" });
  });

  test("preconditions: a base is what it holds when added, even a product find returned and changed since", async () => {
    const site = uniqueSite();
    const a = sampleProduct("a", "sa");
    await upsert(store(), site, [a]);
    const found = (await store().find(site, "a", "id")) as Product;
    (found as { title: string }).title = "changed";
    expect(await based(site, [{ ...found, price: 1 }], [found])).toEqual(STALE);
    expect(await store().find(site, "a", "id")).toEqual(a);
    const again = (await store().find(site, "sa", "sku")) as Product;
    const result = await based(site, [{ ...again, price: 2 }], [again]);
    expect(result).toEqual({ applied: true, counts: { created: 0, updated: 1, unchanged: 0 } });
  });

  test("preconditions: the last add of an id decides its base; stale is judged before conflicts, and in a dry run", async () => {
    const site = uniqueSite();
    const a = sampleProduct("a", "sa");
    await upsert(store(), site, [a, sampleProduct("x", "held")]);
    const old = { ...a, title: "old" };
    // Staged with a stale base, then again without one: no precondition is left.
    const staged = await store().beginImport(site, { dryRun: false });
    await staged.add([{ ...a, price: 1 }], [1], [old]);
    await staged.add([{ ...a, price: 2 }], [2]);
    expect(await staged.commit()).toEqual({ applied: true, counts: { created: 0, updated: 1, unchanged: 0 } });
    const now = { ...a, price: 2 };
    // A sku held by another product, on a stale base: stale, before the conflict.
    expect(await based(site, [{ ...a, sku: "held" }], [old])).toEqual(STALE);
    expect(await based(site, [{ ...a, price: 3 }], [old], true)).toEqual(STALE);
    expect(await based(site, [{ ...a, price: 3 }], [now], true)).toEqual({
      applied: true,
      counts: { created: 0, updated: 1, unchanged: 0 },
    });
    expect(await store().find(site, "a", "id")).toEqual(now);
  });

  test("preconditions: remove with an expected product removes it only while it is that product", async () => {
    const site = uniqueSite();
    const a = sampleProduct("a", "sa");
    await upsert(store(), site, [a]);
    const changed = { ...a, title: "changed" };
    await upsert(store(), site, [changed]);
    expect(await store().remove(site, "a", "id", a)).toEqual(changed);
    expect(await store().find(site, "sa", "sku")).toEqual(changed);
    expect(await store().remove(site, "sa", "sku", changed)).toEqual(changed);
    expect(await store().find(site, "a", "id")).toBeUndefined();
    expect(await store().remove(site, "a", undefined, changed)).toBeUndefined();
  });

  test("preconditions: concurrent read-modify-writes of one product all land (no lost update)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.constantFrom(...WRITABLE), { minLength: 2, maxLength: WRITABLE.length }),
        fc.nat(1_000),
        (writers, n) => checkReadModifyWrites(store(), writers, n),
      ),
      { numRuns: Math.max(5, Math.floor(numRuns / 20)) },
    );
  });
}

const WRITABLE = ["title", "description", "price", "url", "featured_image"] as const;

/**
 * Writers that each set one field of one product at once, by reading it, changing that field and
 * committing on what they read (again while stale): rejects unless every field landed. The race
 * clause; exported so that a store that ignores bases can be shown to fail it.
 */
export async function checkReadModifyWrites(
  store: CatalogStore,
  writers: readonly (typeof WRITABLE)[number][],
  n: number,
): Promise<void> {
  const value = (field: (typeof WRITABLE)[number]) => (field === "price" ? n : `${field}-${n}`);
  const site = uniqueSite();
  const start = fullProduct("p", "sp");
  await upsert(store, site, [start]);
  await Promise.all(
    writers.map(async (field) => {
      for (let attempt = 0; attempt < 100; attempt++) {
        const base = (await store.find(site, "p", "id")) as Product;
        const staged = await store.beginImport(site, { dryRun: false });
        await staged.add([{ ...base, [field]: value(field) }], [1], [base]);
        const result = await staged.commit();
        if (result.applied) return;
        expect(result).toEqual(STALE);
      }
      throw new Error(`${field} never landed`);
    }),
  );
  const end = await store.find(site, "p", "id");
  expect(end).toEqual({ ...start, ...Object.fromEntries(writers.map((f) => [f, value(f)])) });
}
