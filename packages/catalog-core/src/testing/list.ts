// The list clauses of the storage contract (`CatalogStore.list`), registered by testCatalogStore
// beside the others: id order by code point, pages, walks while others write, isolation.
import { expect, test } from "vitest";
import { compareIds, type Product } from "../product.ts";
import type { Site } from "../site.ts";
import type { CatalogStore } from "../store.ts";
import { fullProduct, sampleProduct, uniqueSite } from "./arbitraries.ts";
import { upsert } from "./write.ts";

// Every product of a site, walked page by page; `between` runs after each page.
async function walk(store: CatalogStore, site: Site, limit: number, between?: (page: number) => Promise<void>) {
  const seen: Product[] = [];
  for (let after: string | undefined, page = 0; ; page++) {
    const products = await store.list(site, after, limit);
    expect(products.length).toBeLessThanOrEqual(limit);
    seen.push(...products);
    if (products.length < limit) return seen;
    after = products[products.length - 1]?.id;
    await between?.(page);
  }
}

/** Registers the list clauses; `store()` gives the store under test once it is open. */
export function testList(store: () => CatalogStore): void {
  const write = (site: Site, products: readonly Product[]) => upsert(store(), site, products, { dryRun: false });

  test("list: an empty or unknown site has no products", async () => {
    expect(await store().list(uniqueSite(), undefined, 10)).toEqual([]);
    expect(await store().list(uniqueSite(), "m", 10)).toEqual([]);
  });

  test("list: pages in id order by code point (the order of UTF-8 bytes), each after the given id", async () => {
    const site = uniqueSite();
    const ids = ["b", "a", "B", "é", "\uffff", "😀", "a b", "ab", "a:b", "%7B", "10", "9", "z"];
    const products = ids.map((id, i) => (i % 2 === 0 ? sampleProduct(id, `sku-${i}`) : fullProduct(id, `sku-${i}`)));
    await write(site, products);
    const sorted = [...ids].sort(compareIds);
    // Code point order puts 😀 (past U+FFFF) after U+FFFF, where UTF-16 order would not.
    expect(sorted.indexOf("😀")).toBeGreaterThan(sorted.indexOf("\uffff"));
    expect((await store().list(site, undefined, 100)).map((p) => p.id)).toEqual(sorted);
    expect((await store().list(site, "a", 3)).map((p) => p.id)).toEqual(
      sorted.slice(sorted.indexOf("a") + 1).slice(0, 3),
    );
    // `after` need not be an id of the site.
    expect((await store().list(site, "aa", 2)).map((p) => p.id)).toEqual(["ab", "b"]);
    expect(await store().list(site, "😀", 5)).toEqual([]);
    const all = await walk(store(), site, 4);
    expect(all).toEqual(sorted.map((id) => products[ids.indexOf(id)]));
  });

  test("list: a walk returns every product present throughout exactly once, whatever is written meanwhile", async () => {
    const site = uniqueSite();
    const stay = Array.from({ length: 40 }, (_, i) => sampleProduct(`p${String(i).padStart(2, "0")}`, `s${i}`));
    await write(site, stay);
    let extra = 0;
    const seen = await walk(store(), site, 7, async (page) => {
      // Others create, update, delete and move skus between every two pages.
      await write(site, [
        sampleProduct(`a-new-${page}`, `new-${page}`),
        sampleProduct(`zz-new-${page}`, `znew-${page}`),
      ]);
      await write(site, [sampleProduct(`p${String(page).padStart(2, "0")}`, `s${page}`, { price: page })]);
      if (page > 0) await store().remove(site, `zz-new-${page - 1}`);
      extra++;
    });
    const ids = seen.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const product of stay) expect(ids.filter((id) => id === product.id)).toHaveLength(1);
    expect(extra).toBeGreaterThan(3);
  });

  test("list: nothing of a staged import before its commit; pages are copies; sites are isolated", async () => {
    const site = uniqueSite();
    await write(site, [fullProduct("a", "s1")]);
    const staged = await store().beginImport(site, { dryRun: false });
    await staged.add([sampleProduct("b", "s2")], [1]);
    expect((await store().list(site, undefined, 10)).map((p) => p.id)).toEqual(["a"]);
    await staged.commit();
    const [first] = await store().list(site, undefined, 10);
    first?.images?.push("https://img.example/extra.png");
    expect(await store().list(site, undefined, 10)).toEqual([fullProduct("a", "s1"), sampleProduct("b", "s2")]);
    expect(await store().list({ siteType: "other", siteId: site.siteId }, undefined, 10)).toEqual([]);
  });
}
