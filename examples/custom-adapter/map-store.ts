// A storage adapter in one file, to copy when writing your own: every CatalogStore method on plain
// Maps.
import {
  type CatalogStore,
  compareIds,
  encodeProduct,
  type KeyField,
  type Product,
  type Site,
  type SkuConflict,
  siteKey,
  type UpsertResult,
} from "@catalog-kit/catalog-core";

interface SiteMaps {
  products: Map<string, Product>; // id -> product
  skus: Map<string, string>; // sku -> id
}

/**
 * The skeleton of a storage adapter: a `CatalogStore` over two Maps per site, by id and by sku.
 * Replace the Maps with your storage's calls; keep each method's contract as documented on
 * `CatalogStore` and prove it with `testCatalogStore` (see the test beside it).
 */
export function createMapStore(): CatalogStore {
  const sites = new Map<string, SiteMaps>();
  let closed = false;

  function mapsOf(site: Site): SiteMaps {
    let maps = sites.get(siteKey(site));
    if (maps === undefined) {
      maps = { products: new Map(), skus: new Map() };
      sites.set(siteKey(site), maps);
    }
    return maps;
  }

  function idOf({ products, skus }: SiteMaps, key: string, by: KeyField | undefined): string | undefined {
    if (by !== "sku" && products.has(key)) return key;
    return by === "id" ? undefined : skus.get(key);
  }

  function assertOpen(): void {
    // A real adapter rejects with CatalogError("STORAGE_UNAVAILABLE", ..., { cause }) when its backend fails.
    if (closed) throw new Error("The store is closed");
  }

  // Upsert's atomic step, shared with a staged import's commit. No await between the checks and
  // the writes: on Node's single thread that makes it atomic. A networked store needs a
  // transaction or a server-side script instead.
  function apply(site: Site, batch: readonly Product[], dryRun: boolean, replace: boolean): UpsertResult {
    const maps = mapsOf(site);
    const ids = new Set(batch.map((product) => product.id));
    const conflicts: SkuConflict[] = [];
    // With replace, every product the batch does not name goes: none of their skus is in the way.
    for (const { id, sku } of replace ? [] : batch) {
      const heldBy = maps.skus.get(sku);
      if (heldBy !== undefined && heldBy !== id && !ids.has(heldBy)) conflicts.push({ sku, id, heldBy });
    }
    if (conflicts.length > 0) return { applied: false, conflicts };

    let created = 0;
    let unchanged = 0;
    for (const product of batch) {
      const old = maps.products.get(product.id);
      if (old === undefined) created++;
      else if (encodeProduct(old) === encodeProduct(product)) unchanged++;
    }
    const counts = { created, updated: batch.length - created - unchanged, unchanged };
    const deleted = maps.products.size - (batch.length - created);
    if (!dryRun) {
      if (replace) {
        maps.products.clear();
        maps.skus.clear();
      }
      for (const { id } of batch) {
        const old = maps.products.get(id);
        if (old !== undefined && maps.skus.get(old.sku) === id) maps.skus.delete(old.sku);
      }
      for (const product of batch) {
        maps.products.set(product.id, structuredClone(product));
        maps.skus.set(product.sku, product.id);
      }
    }
    return { applied: true, counts: replace ? { ...counts, deleted } : counts };
  }

  return {
    async upsert(site, batch, { dryRun, replace = false }) {
      assertOpen();
      return apply(site, batch, dryRun, replace);
    },

    // A store that can stage out of sight (a temporary table, staging keys) writes each chunk
    // there; this one keeps the chunks in a Map by id, so that a later product replaces an earlier one.
    async beginImport(site, { dryRun, replace = false }) {
      assertOpen();
      const staged = new Map<string, { product: Product; position: number }>();
      return {
        async add(batch, positions) {
          batch.forEach((product, i) => {
            const earlier = staged.get(product.id);
            if (earlier) Object.assign(earlier, { product, position: positions[i] });
            else staged.set(product.id, { product, position: positions[i] as number });
          });
        },
        async commit() {
          assertOpen();
          const entries = [...staged.values()];
          staged.clear();
          const positionOf = (id: string) => entries.find((entry) => entry.product.id === id)?.position as number;
          // Two staged ids claiming one sku: every claimer but the first is a conflict.
          const firstClaimer = new Map<string, string>();
          const claims: SkuConflict[] = [];
          for (const { product, position } of entries) {
            const first = firstClaimer.get(product.sku);
            if (first === undefined) firstClaimer.set(product.sku, product.id);
            else claims.push({ sku: product.sku, id: product.id, heldBy: first, position });
          }
          if (claims.length > 0) return { applied: false, conflicts: claims };
          const products = entries.map((entry) => entry.product);
          const result = apply(site, products, dryRun, replace);
          if (result.applied) return result;
          return {
            applied: false,
            conflicts: result.conflicts.map((conflict) => ({ ...conflict, position: positionOf(conflict.id) })),
          };
        },
        async abort() {
          staged.clear();
        },
      };
    },

    async find(site, key, by) {
      assertOpen();
      const maps = mapsOf(site);
      const id = idOf(maps, key, by);
      const product = id === undefined ? undefined : maps.products.get(id);
      return product && structuredClone(product);
    },

    async remove(site, key, by) {
      assertOpen();
      const maps = mapsOf(site);
      const id = idOf(maps, key, by);
      const product = id === undefined ? undefined : maps.products.get(id);
      if (id === undefined || product === undefined) return undefined;
      maps.products.delete(id);
      maps.skus.delete(product.sku);
      return product;
    },

    // A real store reads an ordered index here (`WHERE id > $after ORDER BY id LIMIT $limit`, a
    // sorted set); sorting every id on every page is what only a sketch may do.
    async list(site, after, limit) {
      assertOpen();
      const { products } = mapsOf(site);
      const ids = [...products.keys()].filter((id) => after === undefined || compareIds(id, after) > 0);
      return ids
        .sort(compareIds)
        .slice(0, limit)
        .map((id) => structuredClone(products.get(id) as Product));
    },

    async ping() {
      assertOpen();
    },

    async close() {
      closed = true;
    },
  };
}
