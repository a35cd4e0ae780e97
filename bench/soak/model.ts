// The contract's rules as one soak client sees its own products: the last acknowledged state of
// each, and what an import must be answered before it is sent (conflicts, counts).
import type { Product } from "@catalog-kit/catalog-core";
import { sameProduct } from "../client.ts";

/** What the model expects of an import: applied with these counts, or refused with this code. */
export type Expectation =
  | { readonly status: 200; readonly counts: { created: number; updated: number; unchanged: number } }
  | { readonly status: 400; readonly code: "SKU_CONFLICT" | "VALIDATION_FAILED" };

/** One client's model of its products, changed by 200s only. */
export class Model {
  /** Each product's last acknowledged state; absent = not there. */
  readonly model = new Map<string, Product>();
  /** sku -> id, for the products in `model`. */
  protected readonly skus = new Map<string, string>();

  /** Judges a batch as the contract does: SKUs unique on the state after the request. */
  protected judge(batch: readonly Product[], poisoned: boolean): Expectation {
    if (poisoned) return { status: 400, code: "VALIDATION_FAILED" };
    const after = new Map(this.skus);
    for (const product of batch) {
      const old = this.model.get(product.id);
      if (old !== undefined && after.get(old.sku) === product.id) after.delete(old.sku);
    }
    for (const product of batch) {
      const holder = after.get(product.sku);
      if (holder !== undefined && holder !== product.id) return { status: 400, code: "SKU_CONFLICT" };
      after.set(product.sku, product.id);
    }
    let created = 0;
    let unchanged = 0;
    for (const product of batch) {
      const old = this.model.get(product.id);
      if (old === undefined) created++;
      else if (sameProduct(old, product)) unchanged++;
    }
    return { status: 200, counts: { created, updated: batch.length - created - unchanged, unchanged } };
  }

  protected apply(batch: readonly Product[]): void {
    for (const product of batch) {
      const old = this.model.get(product.id);
      if (old !== undefined && this.skus.get(old.sku) === product.id) this.skus.delete(old.sku);
    }
    for (const product of batch) {
      this.model.set(product.id, product);
      this.skus.set(product.sku, product.id);
    }
  }

  protected forgetProduct(id: string): void {
    const old = this.model.get(id);
    if (old !== undefined && this.skus.get(old.sku) === id) this.skus.delete(old.sku);
    this.model.delete(id);
  }
}
