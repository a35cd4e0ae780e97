// What the adapter's own tests import and read: numbered products tagged with the import that
// wrote them (skus follow ids, so that imports never conflict), an import in chunks, and a
// site read whole.
import type { CatalogStore, CommitResult, KeyToRecord, Product, Site } from "@catalog-kit/catalog-core";

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

/** Imports `items` through `beginImport` in chunks of `chunk` (a pause between them), committed with `key`, aborting on any failure. */
export async function importInChunks(
  store: CatalogStore,
  site: Site,
  items: readonly Product[],
  options: { replace?: boolean; chunk?: number; pauseMs?: number; key?: KeyToRecord } = {},
): Promise<CommitResult> {
  const chunk = options.chunk ?? 1000;
  const staged = await store.beginImport(site, { dryRun: false, replace: options.replace ?? false });
  try {
    for (let start = 0; start < items.length; start += chunk) {
      const part = items.slice(start, start + chunk);
      await staged.add(
        part,
        part.map((_, k) => start + k + 1),
      );
      if (options.pauseMs) await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
    }
    return await staged.commit(options.key);
  } finally {
    await staged.abort();
  }
}

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
