// ImportStaging's judgement reads a site's size only for a replace: a store that counts its
// products in a query (an embedded database) pays for the count only when `deleted` needs it.
import { ImportStaging, type Product, type SiteView } from "@catalog-kit/catalog-core";
import { expect, test } from "vitest";

const product = (id: string, sku: string, title = "T"): Product => ({
  id,
  sku,
  title,
  available: true,
  featured_image: "https://img.example/f.png",
  url: `https://shop.example/${id}`,
});

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
  const stored = [product("a", "sa"), product("b", "sb"), product("c", "sc")];
  const upsert = new ImportStaging();
  upsert.add([product("a", "sa", "U"), product("d", "sd"), product("e", "sb")], [1, 2, 3]);
  const site = siteOf(stored);
  const conflict = upsert.judge(site, false);
  expect(conflict).toMatchObject({ applied: false, conflicts: [{ sku: "sb", id: "e", heldBy: "b" }] });
  const fine = new ImportStaging();
  fine.add([product("a", "sa", "U"), product("b", "sb"), product("d", "sd")], [1, 2, 3]);
  expect(fine.judge(site, false)).toMatchObject({ applied: true, counts: { created: 1, updated: 1, unchanged: 1 } });
  expect(site.sizeReads).toBe(0);
  const replace = new ImportStaging();
  replace.add([product("a", "sa"), product("d", "sd")], [1, 2]);
  expect(replace.judge(site, true)).toMatchObject({
    applied: true,
    counts: { created: 1, updated: 0, unchanged: 1, deleted: 2 },
  });
  expect(site.sizeReads).toBe(1);
});

test("an import into an emptied site counts every product created", () => {
  const staging = new ImportStaging();
  staging.add([product("a", "sa"), product("b", "sb")], [1, 2]);
  const judged = staging.judge(siteOf([]), false);
  expect(judged).toMatchObject({ applied: true, counts: { created: 2, updated: 0, unchanged: 0 } });
  expect([...(judged as { changed: Iterable<Product> }).changed].map((p) => p.id)).toEqual(["a", "b"]);
});
