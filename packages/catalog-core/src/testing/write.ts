// One import through a store's one write path, as the tests of adapters write products.
import type { Product } from "../product.ts";
import type { Site } from "../site.ts";
import type { CatalogStore, CommitResult, KeyToRecord, SkuConflict, WriteOptions } from "../store.ts";

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

/** How `importInChunks` stages and commits. */
export interface ChunkedImport {
  readonly replace?: boolean;
  /** Products an `add` is given; default 1,000. */
  readonly chunk?: number;
  /** Awaited after each `add`, so that other work interleaves with the import. */
  readonly pause?: (() => Promise<void>) | undefined;
  /** The idempotency key `commit` records. */
  readonly key?: KeyToRecord;
}

/**
 * Imports `items` into `site` through `beginImport` in chunks (positions from 1), committed with
 * `options.key`; the staging is aborted however it ends.
 */
export async function importInChunks(
  store: CatalogStore,
  site: Site,
  items: readonly Product[],
  options: ChunkedImport = {},
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
      await options.pause?.();
    }
    return await staged.commit(options.key);
  } finally {
    await staged.abort();
  }
}
