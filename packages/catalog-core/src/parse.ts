// Imported records checked against the product schema, every problem located (a JSON pointer, or
// a CSV row and column); then the batch a store applies: repeated ids deduped, in-batch sku conflicts.
import * as v from "valibot";
import { CatalogError, MAX_PROBLEMS, type Problem } from "./errors.ts";
import { checkProductFast, type Product, ProductSchema } from "./product.ts";

/** Where a problem lies, before its message: a pointer, or a CSV row and column. */
export type Place = Omit<Problem, "message">;

/** Locates a problem in the request, given the record's index and the path inside the record. */
export type Locator = (index: number, path: readonly PropertyKey[]) => Place;

/** Products ready for the store: ids and skus unique, each with the request index it came from. */
export interface Batch {
  readonly products: readonly Product[];
  readonly indexes: readonly number[];
}

type ProblemCode = "VALIDATION_FAILED" | "INVALID_JSON" | "INVALID_CSV" | "SKU_CONFLICT";

/** Collects problems up to the cap while counting them all. */
export class Problems {
  readonly list: Problem[] = [];
  count = 0;

  add(problem: Problem): void {
    this.count++;
    if (this.list.length < MAX_PROBLEMS) this.list.push(problem);
  }

  toError(code: ProblemCode, what: string): CatalogError {
    const s = this.count === 1 ? "" : "s";
    return new CatalogError(code, `${what}: ${this.count} problem${s} found; nothing was written`, {
      problems: this.list,
      errorCount: this.count,
    });
  }

  throwIfAny(code: ProblemCode, what: string): void {
    if (this.count > 0) throw this.toError(code, what);
  }
}

/** A JSON Pointer (RFC 6901) from path segments. */
export function toPointer(path: readonly PropertyKey[]): string {
  let pointer = "";
  for (const segment of path) pointer += `/${String(segment).replaceAll("~", "~0").replaceAll("/", "~1")}`;
  return pointer;
}

/** Validates every record, reporting all problems; throws `VALIDATION_FAILED` if any. */
export function validateProducts(records: readonly unknown[], locate: Locator, problems = new Problems()): Product[] {
  const products = checkProducts(records, locate, problems);
  problems.throwIfAny("VALIDATION_FAILED", "Invalid products");
  return products;
}

/** Validates every record, adding each problem to `problems`; the products of invalid records are left out. */
export function checkProducts(records: readonly unknown[], locate: Locator, problems: Problems): Product[] {
  const products: Product[] = new Array(records.length);
  for (let i = 0; i < records.length; i++) {
    const fast = checkProductFast(records[i]);
    if (fast !== undefined) {
      products[i] = fast;
      continue;
    }
    const result = v.safeParse(ProductSchema, records[i]);
    if (result.success) {
      products[i] = result.output;
      continue;
    }
    for (const issue of result.issues) {
      const path = issue.path?.map((item) => item.key as PropertyKey) ?? [];
      problems.add({ ...locate(i, path), message: issue.message });
    }
  }
  return products;
}

/**
 * Makes a batch the store can apply: the same id twice keeps the later product; two ids
 * claiming one sku is `SKU_CONFLICT` (judged after dedupe, so a product may change its sku).
 */
export function toBatch(products: readonly Product[], locate: Locator): Batch {
  const byId = new Map<string, number>();
  for (let i = 0; i < products.length; i++) byId.set((products[i] as Product).id, i);
  const unique = byId.size === products.length;
  const indexes = unique ? products.map((_, i) => i) : [...byId.values()];
  const batch = unique ? products : indexes.map((index) => products[index] as Product);

  // One set operation a product in the usual case; who claims what is worked out only when a sku repeats.
  const skus = new Set<string>();
  for (const product of batch) skus.add(product.sku);
  if (skus.size === batch.length) return { products: batch, indexes };

  const problems = new Problems();
  const skuHolder = new Map<string, Product>();
  for (let n = 0; n < batch.length; n++) {
    const product = batch[n] as Product;
    const holder = skuHolder.get(product.sku);
    if (holder === undefined) skuHolder.set(product.sku, product);
    else
      problems.add({
        ...locate(indexes[n] as number, ["sku"]),
        message: `sku "${product.sku}" is also claimed by product "${holder.id}" in this request`,
        sku: product.sku,
        heldBy: holder.id,
      });
  }
  problems.throwIfAny("SKU_CONFLICT", "Conflicting skus");
  return { products: batch, indexes };
}
