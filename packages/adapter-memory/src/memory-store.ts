// The in-memory store: the default `CatalogStore`, and the reference the benchmarks compare with.
import {
  type CatalogStore,
  compareIds,
  type KeyField,
  type Product,
  type Site,
  type SkuConflict,
  siteKey,
  type UpsertResult,
} from "@catalog-kit/catalog-core";

interface SiteProducts {
  readonly byId: Map<string, Product>;
  readonly idBySku: Map<string, string>;
  /** The ids in `compareIds` order, built by `list` and dropped by every write. */
  sorted?: string[] | undefined;
}

// toProduct and sameProduct name each field: a loop over PRODUCT_FIELDS (keyed loads) measured a
// quarter slower for `find` and for re-imports. Both are checked against encodeProduct over every
// field of PRODUCT_FIELDS in test/memory-store.test.ts, and a field added to the schema fails to
// compile here until both handle it.
const _handled = {
  id: true,
  sku: true,
  title: true,
  description: true,
  price: true,
  price_min: true,
  price_max: true,
  available: true,
  images: true,
  featured_image: true,
  url: true,
} as const satisfies Record<keyof Product, true>;

// Lookups hand out copies: the caller may change what it gets, the store's own objects never change.
// Fields in canonical order, absent ones left out, as validation gives them.
function toProduct(s: Product): Product {
  const product: Product = { id: s.id, sku: s.sku, title: s.title } as Product;
  if (s.description !== undefined) product.description = s.description;
  if (s.price !== undefined) product.price = s.price;
  if (s.price_min !== undefined) product.price_min = s.price_min;
  if (s.price_max !== undefined) product.price_max = s.price_max;
  product.available = s.available;
  if (s.images !== undefined) product.images = s.images.slice();
  product.featured_image = s.featured_image;
  product.url = s.url;
  return product;
}

// Equal here exactly when `encodeProduct` would give equal strings: the contract's "unchanged".
// The id is not compared: both products were found by it. Numbers first: equal strings from two
// requests are two objects compared character by character.
function sameProduct(a: Product, b: Product): boolean {
  if (
    a.price !== b.price ||
    a.price_min !== b.price_min ||
    a.price_max !== b.price_max ||
    a.available !== b.available ||
    a.sku !== b.sku ||
    a.title !== b.title ||
    a.url !== b.url ||
    a.featured_image !== b.featured_image ||
    a.description !== b.description
  )
    return false;
  if (a.images === undefined || b.images === undefined) return a.images === b.images;
  if (a.images.length !== b.images.length) return false;
  for (let i = 0; i < a.images.length; i++) if (a.images[i] !== b.images[i]) return false;
  return true;
}

/**
 * A `CatalogStore` in this process's memory: the default store, and the reference the
 * benchmarks compare with. Every operation runs without an `await` between its check and its
 * write, which makes each one atomic on Node's single thread.
 */
export function createMemoryStore(): CatalogStore {
  const sites = new Map<string, SiteProducts>();

  function siteOf(site: Site, create: boolean): SiteProducts | undefined {
    const key = siteKey(site);
    let products = sites.get(key);
    if (products === undefined && create) {
      products = { byId: new Map(), idBySku: new Map() };
      sites.set(key, products);
    }
    return products;
  }

  // The product `find` and `remove` address: by id first, then by sku (one lookup for an id).
  function entryOf(products: SiteProducts | undefined, key: string, by: KeyField | undefined): Product | undefined {
    if (products === undefined) return undefined;
    const byId = by === "sku" ? undefined : products.byId.get(key);
    if (byId !== undefined || by === "id") return byId;
    const id = products.idBySku.get(key);
    return id === undefined ? undefined : products.byId.get(id);
  }

  // The one atomic step of `upsert` and of a staged import's commit: no `await` inside.
  function apply(site: Site, batch: readonly Product[], dryRun: boolean, replace: boolean): UpsertResult {
    if (replace) return replaceSite(site, batch, dryRun);
    const products: SiteProducts = siteOf(site, !dryRun) ?? { byId: new Map(), idBySku: new Map() };
    if (!dryRun) products.sorted = undefined;
    // The first import of a site (the bulk load) has nothing to conflict with or replace: its
    // ids are distinct, so it skips two map lookups a product.
    const empty = products.byId.size === 0;
    // Built only when some sku is held by another id: a first import never needs it.
    let batchIds: Set<string> | undefined;
    const conflicts: SkuConflict[] = [];
    for (let i = 0; !empty && i < batch.length; i++) {
      const { id, sku } = batch[i] as Product;
      const heldBy = products.idBySku.get(sku);
      if (heldBy === undefined || heldBy === id) continue;
      batchIds ??= new Set(batch.map((product) => product.id));
      if (!batchIds.has(heldBy)) conflicts.push({ sku, id, heldBy });
    }
    if (conflicts.length > 0) return { applied: false, conflicts };

    // One pass. An old sku is freed only while it still points at its old product, so a sku that
    // an earlier product of the batch has just taken over stays with it: skus may swap in a batch.
    let created = 0;
    let unchanged = 0;
    for (const product of batch) {
      const old = empty ? undefined : products.byId.get(product.id);
      if (old === undefined) created++;
      else if (sameProduct(old, product)) {
        unchanged++;
        continue;
      }
      if (dryRun) continue;
      // Kept as given: `upsert` takes ownership of the batch's objects (see `CatalogStore.upsert`).
      products.byId.set(product.id, product);
      // A product that keeps its sku keeps its index entry (no other product of the batch has that sku).
      if (old?.sku === product.sku) continue;
      if (old !== undefined && products.idBySku.get(old.sku) === old.id) products.idBySku.delete(old.sku);
      products.idBySku.set(product.sku, product.id);
    }
    return { applied: true, counts: { created, updated: batch.length - created - unchanged, unchanged } };
  }

  // A batch that is the site's whole catalog: no sku of the site can conflict, since every
  // product the batch does not name goes, and the site's maps are replaced by the batch's.
  function replaceSite(site: Site, batch: readonly Product[], dryRun: boolean): UpsertResult {
    const old = siteOf(site, false);
    let created = 0;
    let unchanged = 0;
    for (const product of batch) {
      const before = old?.byId.get(product.id);
      if (before === undefined) created++;
      else if (sameProduct(before, product)) unchanged++;
    }
    const kept = batch.length - created;
    const counts = { created, updated: kept - unchanged, unchanged, deleted: (old?.byId.size ?? 0) - kept };
    if (!dryRun) {
      const byId = new Map<string, Product>();
      const idBySku = new Map<string, string>();
      for (const product of batch) {
        byId.set(product.id, product);
        idBySku.set(product.sku, product.id);
      }
      sites.set(siteKey(site), { byId, idBySku });
    }
    return { applied: true, counts };
  }

  return {
    async upsert(site, batch, { dryRun, replace = false }) {
      return apply(site, batch, dryRun, replace);
    },

    async beginImport(site, { dryRun, replace = false }) {
      // The staging has the shape of a site: products by id (a later product replaces an earlier
      // one in place, so the order stays that of first appearance) and the sku index, so that an
      // import into an empty site is published by handing its maps over, however large it is.
      const staged: SiteProducts = { byId: new Map(), idBySku: new Map() };
      // Positions only matter for a conflict, so they are kept compact: in the order of first
      // appearance (the order of staged.byId), and in a map only for the ids given again; the
      // lookup by id is built once a conflict needs it.
      const firstPositions: number[] = [];
      const laterPositions = new Map<string, number>();
      let positions: Map<string, number> | undefined;
      const positionOf = (id: string): number => {
        if (positions === undefined) {
          positions = new Map();
          let i = 0;
          for (const key of staged.byId.keys()) positions.set(key, firstPositions[i++] as number);
        }
        return laterPositions.get(id) ?? (positions.get(id) as number);
      };
      // Whether two ids claimed one sku at some point: only then are claims worked out at commit.
      let contested = false;
      // Once committed, the maps may be the site's own: nothing may clear them then.
      let settled = false;
      return {
        async add(products, at) {
          for (let i = 0; i < products.length; i++) {
            const product = products[i] as Product;
            const earlier = staged.byId.get(product.id);
            if (
              earlier !== undefined &&
              earlier.sku !== product.sku &&
              staged.idBySku.get(earlier.sku) === product.id
            ) {
              staged.idBySku.delete(earlier.sku);
            }
            const holder = staged.idBySku.get(product.sku);
            if (holder !== undefined && holder !== product.id) contested = true;
            else staged.idBySku.set(product.sku, product.id);
            if (earlier === undefined) firstPositions.push(at[i] as number);
            else laterPositions.set(product.id, at[i] as number);
            staged.byId.set(product.id, product);
          }
        },
        async commit() {
          settled = true;
          const claims: SkuConflict[] = [];
          if (contested) {
            // The index kept the first claimer of each sku; claims that later moved are redone here.
            staged.idBySku.clear();
            for (const { id, sku } of staged.byId.values()) {
              const heldBy = staged.idBySku.get(sku);
              if (heldBy === undefined) staged.idBySku.set(sku, id);
              else claims.push({ sku, id, heldBy, position: positionOf(id) });
            }
          }
          const target = siteOf(site, false);
          let result: UpsertResult;
          if (claims.length > 0) result = { applied: false, conflicts: claims };
          else if (target === undefined || target.byId.size === 0) {
            const created = staged.byId.size;
            result = {
              applied: true,
              counts: { created, updated: 0, unchanged: 0, ...(replace ? { deleted: 0 } : {}) },
            };
            if (!dryRun && created > 0) sites.set(siteKey(site), staged);
          } else result = apply(site, [...staged.byId.values()], dryRun, replace);
          if (!result.applied) {
            result = {
              applied: false,
              conflicts: result.conflicts.map((c) => ({ ...c, position: positionOf(c.id) })),
            };
          }
          firstPositions.length = 0;
          laterPositions.clear();
          positions = undefined;
          return result;
        },
        async abort() {
          if (settled) return;
          settled = true;
          staged.byId.clear();
          staged.idBySku.clear();
          firstPositions.length = 0;
          laterPositions.clear();
        },
      };
    },

    async find(site, key, by) {
      const entry = entryOf(siteOf(site, false), key, by);
      return entry && toProduct(entry);
    },

    async remove(site, key, by) {
      const products = siteOf(site, false);
      const entry = entryOf(products, key, by);
      if (products === undefined || entry === undefined) return undefined;
      products.byId.delete(entry.id);
      products.idBySku.delete(entry.sku);
      products.sorted = undefined;
      return toProduct(entry);
    },

    async list(site, after, limit) {
      const products = siteOf(site, false);
      if (products === undefined) return [];
      products.sorted ??= [...products.byId.keys()].sort(compareIds);
      const ids = products.sorted;
      // The first id after `after`, by binary search.
      let low = 0;
      let high = after === undefined ? 0 : ids.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (compareIds(ids[middle] as string, after as string) <= 0) low = middle + 1;
        else high = middle;
      }
      return ids.slice(low, low + limit).map((id) => toProduct(products.byId.get(id) as Product));
    },

    async ping() {},
    async close() {},
  };
}
