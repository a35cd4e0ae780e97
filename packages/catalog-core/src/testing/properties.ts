// The model-based property and the race property of the storage contract, registered by
// testCatalogStore after the clauses: random command sequences against the reference model, and
// concurrent imports claiming one sku.
import fc from "fast-check";
import { expect, test } from "vitest";
import { createCatalog } from "../catalog.ts";
import type { CatalogStore } from "../store.ts";
import { sampleProduct, uniqueSite } from "./arbitraries.ts";
import { CatalogModel, commandArbs } from "./model.ts";
import { upsert } from "./write.ts";

/** Registers the model and race properties; `store()` gives the store under test once it is open. */
export function testModel(store: () => CatalogStore, numRuns: number): void {
  test("model: random imports, deletes and lookups in two sites agree with the reference model", async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commandArbs(), { maxCommands: 25 }), async (commands) => {
        const siteId = `model-${crypto.randomUUID()}`;
        const sites = [
          { siteType: "A", siteId },
          { siteType: "B", siteId },
        ];
        // The model judges imports, not their records: the history has clauses of its own.
        const catalog = createCatalog({ store: store(), sites, history: false });
        await fc.asyncModelRun(
          () => ({ model: new CatalogModel(2), real: { catalog, store: store(), sites } }),
          commands,
        );
      }),
      { numRuns },
    );
  }, 300_000);

  test("race: concurrent imports claiming one sku, exactly one wins and the sku index stays consistent", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 6 }), fc.boolean(), async (contenders, preheld) => {
        const site = uniqueSite();
        if (preheld) await upsert(store(), site, [sampleProduct("holder", "old")]);
        const attempts = Array.from({ length: contenders }, (_, i) =>
          upsert(store(), site, [sampleProduct(`c${i}`, "contested"), sampleProduct(`c${i}-other`, `other-${i}`)]),
        );
        if (preheld) attempts.push(upsert(store(), site, [sampleProduct("holder", "contested")]));
        const results = await Promise.all(attempts);
        const winners = results.flatMap((r, i) => (r.applied ? [i] : []));
        expect(winners).toHaveLength(1);
        const winner = winners[0] as number;
        const winnerId = winner === contenders ? "holder" : `c${winner}`;
        expect((await store().find(site, "contested", "sku"))?.id).toBe(winnerId);
        for (let i = 0; i < contenders; i++) {
          const present = i === winner;
          expect(await store().find(site, `c${i}`, "id")).toEqual(
            present ? sampleProduct(`c${i}`, "contested") : undefined,
          );
          expect((await store().find(site, `other-${i}`, "sku"))?.id).toBe(present ? `c${i}-other` : undefined);
        }
        if (preheld) {
          const expectedSku = winnerId === "holder" ? "contested" : "old";
          expect((await store().find(site, "holder", "id"))?.sku).toBe(expectedSku);
        }
      }),
      { numRuns: Math.max(10, Math.floor(numRuns / 4)) },
    );
  }, 120_000);
}
