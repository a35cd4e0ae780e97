// Pages of a site's products in id order, read from the site's id index (a sorted set beside the
// products hash), and the rebuild of an index not known to hold exactly the site's ids.
import { CatalogError, type Product } from "@catalog-kit/catalog-core";
import type { StoreContext } from "./context.ts";
import { outOfMemory } from "./errors.ts";
import type { SiteKeys } from "./keys.ts";
import { eachPage } from "./pages.ts";
import { INDEXED } from "./scripts/indexed.ts";
import { LIST } from "./scripts/list.ts";
import { LIST_MERGING } from "./scripts/list-merging.ts";
import { REINDEX } from "./scripts/reindex.ts";

/** How many times a page is asked again after a rebuild of the site's index. */
const REBUILDS = 3;

/**
 * Up to `limit` products of the site whose ids come after `after` (from the first when
 * undefined), in the order of their ids' UTF-8 bytes, which is ZRANGEBYLEX's order and the
 * contract's. Each script call reads at most `ctx.chunkSize` products (one ZRANGEBYLEX, one
 * HMGET), whatever the site's size; a longer page is read as several, each after the last id
 * of the one before, which is what a walk of shorter pages would return.
 *
 * Every call is one atomic read of the site (through a committed import still merging, whose
 * products lie on top of the site's): a walk returns every product present throughout it
 * exactly once, since each page holds the first ids after the last one seen. `after` is sent
 * as UTF-8: a lone surrogate (never part of an id) is read as U+FFFD.
 */
export async function listPage(
  ctx: StoreContext,
  keys: SiteKeys,
  after: string | undefined,
  limit: number,
): Promise<Product[]> {
  const products: Product[] = [];
  let from = after;
  while (products.length < limit) {
    const want = Math.min(limit - products.length, ctx.chunkSize);
    const page = await readPage(ctx, keys, from, want);
    for (const product of page) products.push(product);
    if (page.length < want) break;
    from = (products[products.length - 1] as Product).id;
  }
  return products;
}

// One script call's page, after rebuilding the index when the script finds it incomplete.
async function readPage(
  ctx: StoreContext,
  keys: SiteKeys,
  after: string | undefined,
  limit: number,
): Promise<Product[]> {
  let sizesSuffice = false;
  for (let rebuilt = 0; ; rebuilt++) {
    const page = { after, limit, sizesSuffice };
    const site = await ctx.call(LIST, keys, page);
    const reply = site.outcome === "merging" ? await ctx.call(LIST_MERGING, keys, page) : site;
    if (reply.outcome === "ok") return reply.products;
    // Only writers that do not keep the index (an older version of the store, still running)
    // can undo a rebuild.
    if (rebuilt === REBUILDS) {
      throw new CatalogError(
        "STORAGE_UNAVAILABLE",
        "The site's id index keeps falling behind its products: is an older version of the store writing to it?",
      );
    }
    try {
      await rebuildIndex(ctx, keys);
    } catch (error) {
      // A rebuild writes, which Redis refuses when out of memory, while reads go on: a site
      // not yet marked is then listed on the check it had before the mark (equal sizes, and
      // no indexed id without its product), and rebuilt once memory is back.
      if (!outOfMemory(error) || sizesSuffice) throw error;
      sizesSuffice = true;
    }
  }
}

/**
 * Makes the site's id index (and the merging one's, while an import merges) hold exactly the
 * ids of its products: a walk of the products hash (HSCAN) adds the ids missing, then a walk
 * of the index (ZSCAN) removes ids that are no product's; then the site's index is marked whole.
 * Each page is one REINDEX call of about `ctx.chunkSize` fields, a few in flight, so Redis is
 * never blocked longer than a chunk; it takes no lock, since every other writer keeps the index
 * as it writes, and REINDEX decides each id on the state of the moment. It costs a walk of the
 * whole site: it runs once for a site whose index no write of this version built whole (written
 * before the index existed, or only by versions that did not mark it), on its first list.
 */
export async function rebuildIndex(ctx: StoreContext, keys: SiteKeys): Promise<void> {
  for (const [products, ids] of [
    [keys.products, keys.ids],
    [keys.mergingProducts, keys.mergingIds],
  ] as const) {
    // REINDEX names its keys products and ids; the merging pair is passed under those names.
    const pair = { products, ids };
    const fix = async (fields: string[]) => {
      await ctx.call(REINDEX, pair, { fields });
    };
    await eachPage(ctx, products, fix);
    await eachPage(ctx, ids, fix, "zset");
  }
  await ctx.call(INDEXED, keys, {});
}
