// What the adapter's own tests import and read: numbered products tagged with the import that
// wrote them (skus follow ids, so that imports never conflict), an import in chunks, and a
// site read whole.
import type { CatalogStore, Product, Site } from "@catalog-kit/catalog-core";

/** Product `i`, written by the import named `tag`. */
export function product(i: number, tag: string): Product {
  return {
    id: `p${String(i).padStart(5, "0")}`,
    sku: `sku-${i}`,
    title: `${tag} ${i}`,
    available: true,
    featured_image: `https://img.example/${i}.png`,
    url: `https://shop.example/${i}`,
  };
}

/** Products `from` to `to - 1`, written by `tag`. */
export function products(from: number, to: number, tag: string): Product[] {
  return Array.from({ length: to - from }, (_, k) => product(from + k, tag));
}

export { importInChunks } from "@catalog-kit/catalog-core/testing";

/** Every product of a site as `id -> title`, read page by page. */
export async function titles(store: CatalogStore, site: Site): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  let after: string | undefined;
  for (;;) {
    const page = await store.list(site, after, 1000);
    for (const p of page) found.set(p.id, p.title);
    if (page.length < 1000) return found;
    after = page[page.length - 1]?.id;
  }
}

/** The ids of a site's products written by `tag`. */
export function writtenBy(found: Map<string, string>, tag: string): number {
  let n = 0;
  for (const title of found.values()) if (title.startsWith(`${tag} `)) n++;
  return n;
}
