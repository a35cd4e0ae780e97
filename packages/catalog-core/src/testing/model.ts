// The reference model the conformance suite runs every store beside, operation by operation.
import { encodeProduct, type Product } from "../product.ts";
import type { KeyField } from "../store.ts";

/** What the reference model expects an operation to answer. */
export type Outcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly code: string; readonly conflicts?: readonly string[] };

/**
 * The catalog's rules in their plainest form: one Map per site, linear scans, no indexes.
 * The conformance suite checks every store against it, step by step.
 */
export class CatalogModel {
  readonly sites: Map<string, Product>[];

  constructor(siteCount: number) {
    this.sites = Array.from({ length: siteCount }, () => new Map());
  }

  find(site: number, key: string, by: KeyField | undefined): Product | undefined {
    const products = this.sites[site] as Map<string, Product>;
    if (by !== "sku" && products.has(key)) return products.get(key);
    if (by === "id") return undefined;
    for (const product of products.values()) if (product.sku === key) return product;
    return undefined;
  }

  import(site: number, list: readonly Product[], dryRun: boolean): Outcome {
    const products = this.sites[site] as Map<string, Product>;
    const byId = new Map<string, Product>();
    for (const product of list) byId.set(product.id, product);
    const batch = [...new Set(list.map((p) => p.id))].map((id) => byId.get(id) as Product);

    const claimedBy = new Map<string, string>();
    const inBatch: string[] = [];
    for (const product of batch) {
      const first = claimedBy.get(product.sku);
      if (first === undefined) claimedBy.set(product.sku, product.id);
      else inBatch.push(`${product.sku}<-${first}`);
    }
    if (inBatch.length > 0) return { ok: false, code: "SKU_CONFLICT", conflicts: inBatch.sort() };

    const stored: string[] = [];
    for (const product of batch) {
      const holder = this.find(site, product.sku, "sku");
      if (holder && holder.id !== product.id && !byId.has(holder.id)) stored.push(`${product.sku}<-${holder.id}`);
    }
    if (stored.length > 0) return { ok: false, code: "SKU_CONFLICT", conflicts: stored.sort() };

    let created = 0;
    let unchanged = 0;
    for (const product of batch) {
      const old = products.get(product.id);
      if (old === undefined) created++;
      else if (encodeProduct(old) === encodeProduct(product)) unchanged++;
    }
    if (!dryRun) for (const product of batch) products.set(product.id, product);
    const total = batch.length;
    return { ok: true, value: { total, created, updated: total - created - unchanged, unchanged, dryRun } };
  }

  remove(site: number, key: string, by: KeyField | undefined): Product | undefined {
    const product = this.find(site, key, by);
    if (product) this.sites[site]?.delete(product.id);
    return product;
  }
}
