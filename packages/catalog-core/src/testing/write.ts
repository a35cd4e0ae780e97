// One import through a store's one write path, as the tests of adapters write products.
import type { Product } from "../product.ts";
import type { Site } from "../site.ts";
import type { CatalogStore, CommitResult, SkuConflict, WriteOptions } from "../store.ts";

/** A conflict as `upsert` answers it: without its position, which the staged clauses check apart. */
export type Conflict = Omit<SkuConflict, "position">;

/** `CommitResult`, its conflicts without positions. */
export type UpsertResult =
  | Extract<CommitResult, { applied: true }>
  | { readonly applied: false; readonly conflicts: readonly Conflict[] };

/**
 * Imports `products` into `site` in one chunk (`beginImport`, `add`, `commit`), positions from 1;
 * the answer's conflicts leave their positions out.
 */
export async function upsert(
  store: CatalogStore,
  site: Site,
  products: readonly Product[],
  options: WriteOptions = { dryRun: false },
): Promise<UpsertResult> {
  const staged = await store.beginImport(site, options);
  try {
    await staged.add(
      products,
      products.map((_, i) => i + 1),
    );
    const result = await staged.commit();
    if (result.applied) return result;
    return { applied: false, conflicts: result.conflicts.map(({ sku, id, heldBy }) => ({ sku, id, heldBy })) };
  } catch (error) {
    await staged.abort();
    throw error;
  }
}
