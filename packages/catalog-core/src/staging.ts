// The bookkeeping of a staged import for stores that keep their data in this process: the last
// product of each id, positions, claims among the import's ids, and the judgement of
// `StagedImport.commit` against a site, so that such a store holds storage only.
import { type Product, sameProduct } from "./product.ts";
import type { CommitResult, ImportCounts, SkuConflict } from "./store.ts";

/** What `ImportStaging.judge` needs to read of a site, at the moment of the commit. */
export interface SiteView {
  /** The stored product with this id. */
  get(id: string): Product | undefined;
  /** The id of the stored product holding this sku. */
  holderOf(sku: string): string | undefined;
  /** How many products the site holds. */
  readonly size: number;
}

/** A judgement that applies: the counts, and the products the commit writes (those not unchanged). */
export interface Applicable {
  readonly applied: true;
  readonly counts: ImportCounts;
  readonly changed: Iterable<Product>;
}

/**
 * The conflicts of an import, as `StagedImport.commit` answers them, from the skus held by
 * products of the site that stay (`held`) and the skus claimed twice by the import's own ids
 * (`claimed`): a sku held in the site is that holder's, so its claimers conflict with the holder
 * only. For stores that find the two kinds apart.
 */
export function combineConflicts(held: readonly SkuConflict[], claimed: readonly SkuConflict[]): SkuConflict[] {
  if (claimed.length === 0) return [...held];
  const heldSkus = new Set(held.map((conflict) => conflict.sku));
  return [...held, ...claimed.filter((conflict) => !heldSkus.has(conflict.sku))];
}

/**
 * A staged import held in memory: `add` as `StagedImport.add` takes it, then `judge` as
 * `StagedImport.commit` answers. After a judgement that applies, `byId` and `idBySku` are the
 * import's products and sku index, which a store may adopt as a site's whole (into an empty site,
 * or for a replace) without copying.
 */
export class ImportStaging {
  /** The last product given with each id, in the order the ids first came. */
  readonly byId = new Map<string, Product>();
  /** Each sku's claimer; exact once `claims` (or `judge`) has run. */
  readonly idBySku = new Map<string, string>();
  // Positions only matter for conflicts, so they are kept compact: in the order ids first came
  // (the order of byId), and in a map only for ids given again.
  private readonly firstPositions: number[] = [];
  private readonly laterPositions = new Map<string, number>();
  private positions: Map<string, number> | undefined;
  // Whether two ids claimed one sku at some point: only then are claims worked out again.
  private contested = false;

  /** How many distinct ids are staged. */
  get size(): number {
    return this.byId.size;
  }

  add(products: readonly Product[], positions: readonly number[]): void {
    const { byId, idBySku } = this;
    for (let i = 0; i < products.length; i++) {
      const product = products[i] as Product;
      const earlier = byId.get(product.id);
      if (earlier !== undefined && earlier.sku !== product.sku && idBySku.get(earlier.sku) === product.id) {
        idBySku.delete(earlier.sku);
      }
      const holder = idBySku.get(product.sku);
      if (holder !== undefined && holder !== product.id) this.contested = true;
      else idBySku.set(product.sku, product.id);
      if (earlier === undefined) this.firstPositions.push(positions[i] as number);
      else this.laterPositions.set(product.id, positions[i] as number);
      byId.set(product.id, product);
    }
  }

  /** The position `add` was last given with a staged id. */
  positionOf(id: string): number {
    if (this.positions === undefined) {
      this.positions = new Map();
      let i = 0;
      for (const key of this.byId.keys()) this.positions.set(key, this.firstPositions[i++] as number);
    }
    return this.laterPositions.get(id) ?? (this.positions.get(id) as number);
  }

  /** The conflicts among the staged ids alone: every claimer of a sku but the first one. */
  claims(): SkuConflict[] {
    const conflicts: SkuConflict[] = [];
    if (!this.contested) return conflicts;
    // The index kept the first claimer of each sku; claims that later moved are redone here.
    this.idBySku.clear();
    for (const { id, sku } of this.byId.values()) {
      const heldBy = this.idBySku.get(sku);
      if (heldBy === undefined) this.idBySku.set(sku, id);
      else conflicts.push({ sku, id, heldBy, position: this.positionOf(id) });
    }
    this.contested = conflicts.length > 0;
    return conflicts;
  }

  /** `StagedImport.commit`'s answer against `site` (absent: empty), and what it would write. */
  judge(site: SiteView | undefined, replace: boolean): Applicable | Extract<CommitResult, { applied: false }> {
    const claimed = this.claims();
    const empty = site === undefined || site.size === 0;
    const held: SkuConflict[] = [];
    if (!empty && !replace) {
      for (const { id, sku } of this.byId.values()) {
        const heldBy = site.holderOf(sku);
        if (heldBy !== undefined && heldBy !== id && !this.byId.has(heldBy)) {
          held.push({ sku, id, heldBy, position: this.positionOf(id) });
        }
      }
    }
    if (held.length + claimed.length > 0) return { applied: false, conflicts: combineConflicts(held, claimed) };
    const total = this.byId.size;
    let created = total;
    let unchanged = 0;
    let changed: Iterable<Product> = this.byId.values();
    if (!empty) {
      const written: Product[] = [];
      created = 0;
      for (const product of this.byId.values()) {
        const old = site.get(product.id);
        if (old === undefined) created++;
        else if (sameProduct(old, product)) {
          unchanged++;
          continue;
        }
        written.push(product);
      }
      changed = written;
    }
    const counts = { created, updated: total - created - unchanged, unchanged };
    const deleted = (site?.size ?? 0) - (total - created);
    return { applied: true, counts: replace ? { ...counts, deleted } : counts, changed };
  }

  /** Lets go of everything staged. */
  clear(): void {
    this.byId.clear();
    this.idBySku.clear();
    this.firstPositions.length = 0;
    this.laterPositions.clear();
    this.positions = undefined;
  }
}
