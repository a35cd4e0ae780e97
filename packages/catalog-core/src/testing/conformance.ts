// The storage contract as a vitest suite: adapters opt in with one call, `testCatalogStore(factory)`,
// and get one test per clause of `CatalogStore`, a model-based property and a race property. The
// clauses are registered in the order of the contract (and of ADAPTERS.md); the model and its
// commands are in model.ts, the two properties in properties.ts.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Product } from "../product.ts";
import type { Site } from "../site.ts";
import type { CatalogStore } from "../store.ts";
import { fullProduct, productArb, sampleProduct, uniqueSite } from "./arbitraries.ts";
import { testDeliveries } from "./deliveries.ts";
import { type BreakableStore, checkClosed, checkLostBackend, type NotApplicable } from "./failures.ts";
import { testHistory } from "./history.ts";
import { testKeys } from "./keys.ts";
import { testList } from "./list.ts";
import { testPreconditions } from "./preconditions.ts";
import { testProfiles } from "./profiles.ts";
import { testModel } from "./properties.ts";
import { testReplace } from "./replace.ts";
import { testStagedImport } from "./staged.ts";
import { testTenants } from "./tenants.ts";
import { testUsage } from "./usage.ts";
import { upsert as write } from "./write.ts";

/** Options of `testCatalogStore`. */
export interface ConformanceOptions {
  /** fast-check runs of each property; the `CONFORMANCE_RUNS` environment variable overrides it. Default 200. */
  readonly numRuns?: number;
  /** Size of the batch that checks large imports stay all-or-nothing. Default 12,000. */
  readonly largeBatch?: number;
  /**
   * For the clause on a lost backend: opens a store of its own whose backend can be made
   * unreachable, or says why a store has no backend to lose (an in-process store). Required, so
   * that an adapter never passes the clause by leaving it out.
   */
  readonly breakable: (() => Promise<BreakableStore>) | NotApplicable;
  /**
   * For the clause on `close`, which closes a store of its own from the factory: why it does not
   * apply, for a store that opens nothing (it keeps answering after `close`). Default: it applies.
   */
  readonly closing?: NotApplicable;
}

/**
 * Registers the `CatalogStore` contract as vitest tests: one named test per clause, a
 * model-based property over random command sequences, and a race property. Call it from an
 * adapter's test file with a factory; every test uses fresh sites of the factory's first store,
 * but the clause on `close` opens a second one.
 */
export function testCatalogStore(
  createStore: () => CatalogStore | Promise<CatalogStore>,
  options: ConformanceOptions,
): void {
  const numRuns = Number(process.env.CONFORMANCE_RUNS) || options.numRuns || 200;
  const largeBatch = options.largeBatch ?? 12_000;
  let store: CatalogStore;

  beforeAll(async () => {
    store = await createStore();
  });
  afterAll(async () => {
    await store?.close();
    // Twice on purpose: the contract says `close` is safe to call twice, and this is its clause.
    await store?.close();
  });

  async function upsert(site: Site, products: readonly Product[], dryRun = false) {
    return write(store, site, products, { dryRun });
  }

  async function expectProducts(site: Site, products: readonly Product[]) {
    for (const p of products) {
      expect(await store.find(site, p.id, "id")).toEqual(p);
      expect(await store.find(site, p.sku, "sku")).toEqual(p);
    }
  }

  describe("CatalogStore conformance", () => {
    test("ping answers", async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    test("find in an empty site gives undefined", async () => {
      const site = uniqueSite();
      for (const by of [undefined, "id", "sku"] as const) expect(await store.find(site, "x", by)).toBeUndefined();
    });

    test("upsert then find by id and by sku returns the product, optional fields included", async () => {
      const site = uniqueSite();
      const products = [fullProduct("p1", "s1"), sampleProduct("p2", "s2")];
      expect(await upsert(site, products)).toEqual({ applied: true, counts: { created: 2, updated: 0, unchanged: 0 } });
      await expectProducts(site, products);
      expect(await store.find(site, "p1")).toEqual(products[0]);
      expect(await store.find(site, "s2")).toEqual(products[1]);
    });

    test("upsert replaces whole: optional fields left out are gone", async () => {
      const site = uniqueSite();
      await upsert(site, [fullProduct("p1", "s1")]);
      await upsert(site, [sampleProduct("p1", "s1")]);
      expect(await store.find(site, "p1")).toEqual(sampleProduct("p1", "s1"));
    });

    test("counts created, updated and unchanged against the replaced state", async () => {
      const site = uniqueSite();
      await upsert(site, [sampleProduct("a", "sa"), sampleProduct("b", "sb")]);
      const result = await upsert(site, [
        sampleProduct("a", "sa"),
        sampleProduct("b", "sb", { price: 1 }),
        sampleProduct("c", "sc"),
      ]);
      expect(result).toEqual({ applied: true, counts: { created: 1, updated: 1, unchanged: 1 } });
    });

    test("a sku change frees the old sku", async () => {
      const site = uniqueSite();
      await upsert(site, [sampleProduct("a", "old")]);
      await upsert(site, [sampleProduct("a", "new")]);
      expect(await store.find(site, "old", "sku")).toBeUndefined();
      expect(await store.find(site, "new", "sku")).toEqual(sampleProduct("a", "new"));
      expect(await upsert(site, [sampleProduct("b", "old")])).toMatchObject({ applied: true });
    });

    test("a sku held by another id is a conflict, and nothing of the batch is written", async () => {
      const site = uniqueSite();
      await upsert(site, [sampleProduct("a", "s1")]);
      const result = await upsert(site, [
        sampleProduct("fresh", "s0"),
        sampleProduct("b", "s1"),
        sampleProduct("c", "s2"),
      ]);
      expect(result).toEqual({ applied: false, conflicts: [{ sku: "s1", id: "b", heldBy: "a" }] });
      expect(await store.find(site, "fresh")).toBeUndefined();
      expect(await store.find(site, "s0", "sku")).toBeUndefined();
      await expectProducts(site, [sampleProduct("a", "s1")]);
    });

    test("every conflict of a batch is reported", async () => {
      const site = uniqueSite();
      await upsert(site, [sampleProduct("a", "s1"), sampleProduct("b", "s2")]);
      const result = await upsert(site, [sampleProduct("x", "s1"), sampleProduct("y", "s2")]);
      expect(result.applied).toBe(false);
      if (!result.applied) {
        expect([...result.conflicts].sort((l, r) => l.sku.localeCompare(r.sku))).toEqual([
          { sku: "s1", id: "x", heldBy: "a" },
          { sku: "s2", id: "y", heldBy: "b" },
        ]);
      }
    });

    test("two products may swap skus in one batch", async () => {
      const site = uniqueSite();
      await upsert(site, [sampleProduct("a", "s1"), sampleProduct("b", "s2")]);
      const result = await upsert(site, [sampleProduct("a", "s2"), sampleProduct("b", "s1")]);
      expect(result).toEqual({ applied: true, counts: { created: 0, updated: 2, unchanged: 0 } });
      await expectProducts(site, [sampleProduct("a", "s2"), sampleProduct("b", "s1")]);
    });

    test("a sku freed by a product of the batch can be taken by a new product", async () => {
      const site = uniqueSite();
      await upsert(site, [sampleProduct("a", "s1")]);
      expect(await upsert(site, [sampleProduct("b", "s1"), sampleProduct("a", "s2")])).toMatchObject({ applied: true });
      await expectProducts(site, [sampleProduct("a", "s2"), sampleProduct("b", "s1")]);
    });

    test("dry run: same counts and conflicts, nothing written", async () => {
      const site = uniqueSite();
      await upsert(site, [sampleProduct("a", "s1")]);
      const dry = await upsert(site, [sampleProduct("a", "s1", { price: 2 }), sampleProduct("b", "s2")], true);
      expect(dry).toEqual({ applied: true, counts: { created: 1, updated: 1, unchanged: 0 } });
      await expectProducts(site, [sampleProduct("a", "s1")]);
      expect(await store.find(site, "b")).toBeUndefined();
      expect(await upsert(site, [sampleProduct("c", "s1")], true)).toEqual({
        applied: false,
        conflicts: [{ sku: "s1", id: "c", heldBy: "a" }],
      });
      const empty = uniqueSite();
      expect(await upsert(empty, [sampleProduct("a", "s1")], true)).toMatchObject({ applied: true });
      expect(await store.find(empty, "a")).toBeUndefined();
    });

    test("the id wins over the sku when a key matches one product's id and another's sku", async () => {
      const site = uniqueSite();
      await upsert(site, [sampleProduct("k", "s1"), sampleProduct("other", "k")]);
      expect(await store.find(site, "k")).toEqual(sampleProduct("k", "s1"));
      expect(await store.find(site, "k", "sku")).toEqual(sampleProduct("other", "k"));
      expect(await store.find(site, "s1", "id")).toBeUndefined();
      expect(await store.remove(site, "k")).toEqual(sampleProduct("k", "s1"));
      expect(await store.find(site, "k")).toEqual(sampleProduct("other", "k"));
    });

    test("remove by id or by sku returns the product and frees its sku", async () => {
      const site = uniqueSite();
      await upsert(site, [sampleProduct("a", "s1"), sampleProduct("b", "s2")]);
      expect(await store.remove(site, "a", "id")).toEqual(sampleProduct("a", "s1"));
      expect(await store.remove(site, "s2", "sku")).toEqual(sampleProduct("b", "s2"));
      for (const key of ["a", "b", "s1", "s2"]) expect(await store.find(site, key)).toBeUndefined();
      expect(await upsert(site, [sampleProduct("c", "s1"), sampleProduct("d", "s2")])).toMatchObject({ applied: true });
    });

    test("remove of what does not exist gives undefined and changes nothing", async () => {
      const site = uniqueSite();
      await upsert(site, [sampleProduct("a", "s1")]);
      expect(await store.remove(site, "missing")).toBeUndefined();
      expect(await store.remove(site, "s1", "id")).toBeUndefined();
      expect(await store.remove(site, "a", "sku")).toBeUndefined();
      await expectProducts(site, [sampleProduct("a", "s1")]);
    });

    test("sites are isolated, even when they differ only in siteType or siteId", async () => {
      const one = uniqueSite("alpha");
      const sameIdOtherType = { siteType: "beta", siteId: one.siteId };
      const sameTypeOtherId = { siteType: "alpha", siteId: `${one.siteId}x` };
      await upsert(one, [sampleProduct("a", "s1")]);
      for (const site of [sameIdOtherType, sameTypeOtherId]) {
        expect(await store.find(site, "a")).toBeUndefined();
        expect(await store.find(site, "s1")).toBeUndefined();
        expect(await store.remove(site, "a")).toBeUndefined();
        expect(await upsert(site, [sampleProduct("b", "s1")])).toMatchObject({ applied: true });
      }
      await expectProducts(one, [sampleProduct("a", "s1")]);
    });

    test("site names with separators and braces cannot collide", async () => {
      const a = { siteType: "x:y", siteId: "z" };
      const b = { siteType: "x", siteId: "y:z" };
      const c = { siteType: "{x}", siteId: "}{" };
      const suffix = crypto.randomUUID();
      const sites = [a, b, c].map((s) => ({ ...s, siteId: `${s.siteId}${suffix}` }));
      for (const [i, site] of sites.entries()) await upsert(site, [sampleProduct("same", `sku${i}`)]);
      for (const [i, site] of sites.entries())
        expect(await store.find(site, "same")).toEqual(sampleProduct("same", `sku${i}`));
    });

    // The other direction is the catalog's promise: `upsert` may keep the objects it is given.
    test("returned products are copies: changing one never changes the store", async () => {
      const site = uniqueSite();
      const original = fullProduct("a", "s1");
      await upsert(site, [structuredClone(original)]);
      const found = (await store.find(site, "a")) as Product;
      (found as { title: string }).title = "changed after find";
      found.images?.push("https://img.example/extra.png");
      expect(await store.find(site, "a")).toEqual(original);
    });

    test("random products with adversarial ids and skus round-trip", async () => {
      const batchArb = fc
        .uniqueArray(productArb(), { minLength: 1, maxLength: 6, selector: (p) => p.id })
        .filter((products) => new Set(products.map((p) => p.sku)).size === products.length);
      await fc.assert(
        fc.asyncProperty(batchArb, async (products) => {
          const site = uniqueSite();
          expect(await upsert(site, products)).toMatchObject({ applied: true });
          await expectProducts(site, products);
          const first = products[0] as Product;
          expect(await store.remove(site, first.id, "id")).toEqual(first);
          expect(await store.find(site, first.sku, "sku")).toBeUndefined();
        }),
        { numRuns: Math.min(numRuns, 50) },
      );
    });

    test(`a batch of ${largeBatch} products is applied whole, or not at all`, async () => {
      const site = uniqueSite();
      const batch = Array.from({ length: largeBatch }, (_, i) => fullProduct(`id-${i}`, `sku-${i}`));
      await upsert(site, [sampleProduct("holder", `sku-${largeBatch - 1}`)]);
      const refused = await upsert(site, batch);
      expect(refused).toEqual({
        applied: false,
        conflicts: [{ sku: `sku-${largeBatch - 1}`, id: `id-${largeBatch - 1}`, heldBy: "holder" }],
      });
      for (const i of [0, 1, Math.floor(largeBatch / 2), largeBatch - 2])
        expect(await store.find(site, `id-${i}`)).toBeUndefined();
      await store.remove(site, "holder");
      expect(await upsert(site, batch)).toEqual({
        applied: true,
        counts: { created: largeBatch, updated: 0, unchanged: 0 },
      });
      for (const i of [0, largeBatch - 1]) expect(await store.find(site, `sku-${i}`, "sku")).toEqual(batch[i]);
      expect(await upsert(site, batch)).toEqual({
        applied: true,
        counts: { created: 0, updated: 0, unchanged: largeBatch },
      });
    }, 120_000);

    testStagedImport(() => store, largeBatch);
    testPreconditions(() => store, numRuns);
    testList(() => store);
    testReplace(() => store, largeBatch);
    testKeys(() => store, numRuns);
    testProfiles(() => store);
    testTenants(() => store, numRuns);
    testUsage(() => store);
    testHistory(() => store, numRuns);
    testDeliveries(() => store);

    testModel(() => store, numRuns);

    // A clause that does not apply is listed as skipped under its reason, never passed.
    const lostBackend =
      "a store whose backend is unreachable rejects every call, ping included, with STORAGE_UNAVAILABLE";
    const { breakable, closing } = options;
    if (typeof breakable === "function") test(lostBackend, () => checkLostBackend(breakable), 120_000);
    else test.skip(`${lostBackend} (not applicable: ${breakable.notApplicable})`, () => {});
    const closed = "after close, every call rejects with STORAGE_UNAVAILABLE, ping included; close is safe twice";
    if (closing === undefined) test(closed, () => checkClosed(createStore), 120_000);
    else test.skip(`${closed} (not applicable: ${closing.notApplicable})`, () => {});
  });
}
