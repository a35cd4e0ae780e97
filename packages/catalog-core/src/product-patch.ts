// One product changed where it is: a JSON Merge Patch (RFC 7396) through the merge rule, and the
// preconditions of a patch and a delete (`ifMatch`), each committed on the product it read.
import type { DeleteOptions, PatchOptions } from "./catalog-options.ts";
import { conflictError } from "./engine.ts";
import { preconditionFailed, productNotFound } from "./errors.ts";
import { mergeFields, readFields } from "./merge.ts";
import { concurrentUpdate, MERGE_ATTEMPTS, pause } from "./merge-stage.ts";
import { Problems, toPointer } from "./parse.ts";
import { isProductKey, type Product, sameProduct } from "./product.ts";
import { tagMatches } from "./product-tag.ts";
import type { Site } from "./site.ts";
import type { CatalogStore } from "./store.ts";

const at = (path: readonly PropertyKey[]) => ({ pointer: toPointer(path) });

/** The product `key` names (by `options.by`), held to the call's precondition if any; else `PRODUCT_NOT_FOUND` or `PRECONDITION_FAILED`. */
export async function storedProduct(
  store: CatalogStore,
  site: Site,
  key: string,
  options: DeleteOptions,
): Promise<Product> {
  // A key no product can hold (NUL, a lone surrogate, too long...) names none, in any store.
  const product = isProductKey(key) ? await store.find(site, key, options.by) : undefined;
  if (product === undefined) throw productNotFound(key, options.by);
  if (options.ifMatch !== undefined && !tagMatches(options.ifMatch, product)) throw preconditionFailed();
  return product;
}

/**
 * Applies `patch` to the product `key` names and answers the product after it: committed on the
 * product it read, read again and merged anew while another write came first, unless the call
 * holds a precondition, which then fails.
 */
export async function patchProduct(
  store: CatalogStore,
  site: Site,
  key: string,
  patch: unknown,
  options: PatchOptions,
): Promise<Product> {
  const problems = new Problems();
  const fields = readFields(patch, at, problems);
  problems.throwIfAny("VALIDATION_FAILED", "Invalid patch");
  for (let attempt = 1; ; attempt++) {
    const base = await storedProduct(store, site, key, options);
    const given = (fields as Record<string, unknown>).id;
    if (given !== undefined && given !== base.id) {
      problems.add({ ...at(["id"]), message: `The id names the product: it stays "${base.id}"` });
    }
    const product = mergeFields(base, fields as Record<string, unknown>, at, problems);
    problems.throwIfAny("VALIDATION_FAILED", "Invalid patch");
    const staged = await store.beginImport(site, { dryRun: options.dryRun ?? false });
    let result: Awaited<ReturnType<typeof staged.commit>>;
    try {
      await staged.add([product as Product], [0], [base]);
      result = await staged.commit();
    } catch (error) {
      await staged.abort().catch(() => {});
      throw error;
    }
    if (result.applied) return product as Product;
    if (!result.stale) throw conflictError(result.conflicts, { locate: (_, path) => at(path) });
    if (options.ifMatch !== undefined) throw preconditionFailed();
    if (attempt === MERGE_ATTEMPTS) throw concurrentUpdate();
    await pause(attempt);
  }
}

/** Deletes the product `key` names, and answers it; with `ifMatch`, only while it is the copy named. */
export async function deleteProduct(
  store: CatalogStore,
  site: Site,
  key: string,
  options: DeleteOptions,
): Promise<Product> {
  if (options.ifMatch === undefined) {
    const removed = isProductKey(key) ? await store.remove(site, key, options.by) : undefined;
    if (removed === undefined) throw productNotFound(key, options.by);
    return removed;
  }
  const product = await storedProduct(store, site, key, options);
  const removed = await store.remove(site, key, options.by, product);
  // Changed or gone since it was read: the copy the call names is no longer there.
  if (removed === undefined || !sameProduct(removed, product)) throw preconditionFailed();
  return removed;
}
