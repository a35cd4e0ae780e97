// ImportStaging's judgement reads a site's size only for a replace: a store that counts its
// products in a query (an embedded database) pays for the count only when `deleted` needs it.
import { ImportStaging, type Product, type SiteView } from "@catalog-kit/catalog-core";
import { expect, test } from "vitest";
import { sampleProduct } from "../src/testing/arbitraries.ts";

// A site holding `stored`, counting the reads of its size.
function siteOf(stored: readonly Product[]): SiteView & { sizeReads: number } {
  const byId = new Map(stored.map((p) => [p.id, p]));
  return {
    sizeReads: 0,
    get: (id) => byId.get(id),
    holderOf: (sku) => stored.find((p) => p.sku === sku)?.id,
    get size() {
      this.sizeReads++;
      return byId.size;
    },
  };
}

test("an upsert is judged without reading the site's size; a replace reads it once, for deleted", () => {
  const stored = [sampleProduct("a", "sa"), sampleProduct("b", "sb"), sampleProduct("c", "sc")];
  const upsert = new ImportStaging();
  upsert.add([sampleProduct("a", "sa", { title: "U" }), sampleProduct("d", "sd"), sampleProduct("e", "sb")], [1, 2, 3]);
  const site = siteOf(stored);
  const conflict = upsert.judge(site, false);
  expect(conflict).toMatchObject({ applied: false, conflicts: [{ sku: "sb", id: "e", heldBy: "b" }] });
  const fine = new ImportStaging();
  fine.add([sampleProduct("a", "sa", { title: "U" }), sampleProduct("b", "sb"), sampleProduct("d", "sd")], [1, 2, 3]);
  expect(fine.judge(site, false)).toMatchObject({ applied: true, counts: { created: 1, updated: 1, unchanged: 1 } });
  expect(site.sizeReads).toBe(0);
  const replace = new ImportStaging();
  replace.add([sampleProduct("a", "sa"), sampleProduct("d", "sd")], [1, 2]);
  expect(replace.judge(site, true)).toMatchObject({
    applied: true,
    counts: { created: 1, updated: 0, unchanged: 1, deleted: 2 },
  });
  expect(site.sizeReads).toBe(1);
});

test("an import into an emptied site counts every product created", () => {
  const staging = new ImportStaging();
  staging.add([sampleProduct("a", "sa"), sampleProduct("b", "sb")], [1, 2]);
  const judged = staging.judge(siteOf([]), false);
  expect(judged).toMatchObject({ applied: true, counts: { created: 2, updated: 0, unchanged: 0 } });
  expect([...(judged as { changed: Iterable<Product> }).changed].map((p) => p.id)).toEqual(["a", "b"]);
});
