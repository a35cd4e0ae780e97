// A storage adapter in one file, to copy when writing your own: every CatalogStore method on plain
// Maps.
import {
  type CatalogStore,
  encodeProduct,
  type KeyField,
  type Product,
  type Site,
  type SkuConflict,
  siteKey,
  type UpsertResult,
} from "@catalog-kit/catalog-core";

/**
 * The skeleton of a storage adapter: a `CatalogStore` over two flat Maps, keyed by site and id
 * (or site and sku). Replace the Maps with your storage's calls; keep each method's contract as
 * documented on `CatalogStore` and prove it with `testCatalogStore` (see the test beside it).
 */
export function createMapStore(): CatalogStore {
  const products = new Map<string, Product>(); // site + id -> product
  const skus = new Map<string, string>(); // site + sku -> id
  let closed = false;

  // siteKey is unique per site but may hold any character, so no separator after it is safe; the
  // key's length in front says where the key ends and the site begins: no two pairs share a string.
  const keyOf = (site: Site, key: string) => `${key.length}:${key}${siteKey(site)}`;

  function idOf(site: Site, key: string, by: KeyField | undefined): string | undefined {
    if (by !== "sku" && products.has(keyOf(site, key))) return key;
    return by === "id" ? undefined : skus.get(keyOf(site, key));
  }

  function assertOpen(): void {
    // A real adapter rejects with CatalogError("STORAGE_UNAVAILABLE", ..., { cause }) when its backend fails.
    if (closed) throw new Error("The store is closed");
  }

  // Upsert's atomic step, shared with a staged import's commit.
  function apply(site: Site, batch: readonly Product[], dryRun: boolean): UpsertResult {
    const ids = new Set(batch.map((product) => product.id));
    const conflicts: SkuConflict[] = [];
    for (const { id, sku } of batch) {
      const heldBy = skus.get(keyOf(site, sku));
      if (heldBy !== undefined && heldBy !== id && !ids.has(heldBy)) conflicts.push({ sku, id, heldBy });
    }
    if (conflicts.length > 0) return { applied: false, conflicts };

    let created = 0;
    let unchanged = 0;
    for (const product of batch) {
      const old = products.get(keyOf(site, product.id));
      if (old === undefined) created++;
      else if (encodeProduct(old) === encodeProduct(product)) unchanged++;
    }
    if (!dryRun) {
      for (const { id } of batch) {
        const old = products.get(keyOf(site, id));
        if (old !== undefined && skus.get(keyOf(site, old.sku)) === id) skus.delete(keyOf(site, old.sku));
      }
      for (const product of batch) {
        products.set(keyOf(site, product.id), structuredClone(product));
        skus.set(keyOf(site, product.sku), product.id);
      }
    }
    return { applied: true, counts: { created, updated: batch.length - created - unchanged, unchanged } };
  }

  return {
    // No await between the checks and the writes: on Node's single thread that makes it atomic.
    // A networked store needs a transaction or a server-side script instead.
    async upsert(site, batch, { dryRun }) {
      assertOpen();
      return apply(site, batch, dryRun);
    },

    // A store that can stage out of sight (a temporary table, staging keys) writes each chunk
    // there; this one keeps the chunks in a Map by id, so that a later product replaces an earlier one.
    async beginImport(site, { dryRun }) {
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
          const result = apply(
            site,
            entries.map((entry) => entry.product),
            dryRun,
          );
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
      const id = idOf(site, key, by);
      const product = id === undefined ? undefined : products.get(keyOf(site, id));
      return product && structuredClone(product);
    },

    async remove(site, key, by) {
      assertOpen();
      const id = idOf(site, key, by);
      const product = id === undefined ? undefined : products.get(keyOf(site, id));
      if (id === undefined || product === undefined) return undefined;
      products.delete(keyOf(site, id));
      skus.delete(keyOf(site, product.sku));
      return product;
    },

    async ping() {
      assertOpen();
    },

    async close() {
      closed = true;
    },
  };
}
