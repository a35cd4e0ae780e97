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
  /**
   * How many products the site holds: read by a replace only (for `deleted`), so a store that
   * counts in a query may make it a getter that does.
   */
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
  readonly #byId = new Map<string, Product>();
  readonly #idBySku = new Map<string, string>();
  // Chunks wait as given until something is read, then are indexed all at once: their products
  // are no longer young by then, so the collector need not track each insert of a young product
  // into the old maps (measured: 3-4 % of a 100,000-product import into memory, whose chunks were
  // indexed while the next one was checked).
  private readonly waiting: {
    products: readonly Product[];
    positions: readonly number[];
    bases: readonly (Product | null)[] | undefined;
  }[] = [];
  // The base of each id whose last add gave one (clause 7 of `commit`); empty outside merges.
  private readonly bases = new Map<string, Product | null>();
  // Positions only matter for conflicts, so they are kept compact: in the order ids first came
  // (the order of byId), and in a map only for ids given again.
  private readonly firstPositions: number[] = [];
  private readonly laterPositions = new Map<string, number>();
  private positions: Map<string, number> | undefined;
  // The claims found when the sku index was last built from the products; undefined once stale.
  // Built in one pass over the last product of each id, which costs less than keeping it exact
  // while ids repeat (one lookup fewer a product, and the maps walked in order).
  private claimed: SkuConflict[] | undefined;

  /** The last product given with each id, in the order the ids first came. */
  get byId(): Map<string, Product> {
    this.index();
    return this.#byId;
  }

  /** Each sku's claimer: the first of the staged ids (in the order of `byId`) to claim it. */
  get idBySku(): Map<string, string> {
    this.claims();
    return this.#idBySku;
  }

  /** How many distinct ids are staged. */
  get size(): number {
    return this.byId.size;
  }

  /** Stages a chunk, with the bases of its products if any; the arrays are kept as given, so the caller must not change them. */
  add(products: readonly Product[], positions: readonly number[], bases?: readonly (Product | null)[]): void {
    this.waiting.push({ products, positions, bases });
  }

  private index(): void {
    const { waiting, firstPositions, laterPositions } = this;
    if (waiting.length === 0) return;
    const byId = this.#byId;
    const { bases } = this;
    for (const { products, positions, bases: given } of waiting) {
      for (let i = 0; i < products.length; i++) {
        const product = products[i] as Product;
        if (byId.get(product.id) === undefined) firstPositions.push(positions[i] as number);
        else laterPositions.set(product.id, positions[i] as number);
        byId.set(product.id, product);
        if (given !== undefined) bases.set(product.id, given[i] as Product | null);
        else if (bases.size > 0) bases.delete(product.id);
      }
    }
    waiting.length = 0;
    this.positions = undefined;
    this.claimed = undefined;
  }

  /** The position `add` was last given with a staged id. */
  positionOf(id: string): number {
    this.index();
    if (this.positions === undefined) {
      this.positions = new Map();
      let i = 0;
      for (const key of this.#byId.keys()) this.positions.set(key, this.firstPositions[i++] as number);
    }
    return this.laterPositions.get(id) ?? (this.positions.get(id) as number);
  }

  /** The conflicts among the staged ids alone: every claimer of a sku but the first one. */
  claims(): readonly SkuConflict[] {
    this.index();
    if (this.claimed !== undefined) return this.claimed;
    const idBySku = this.#idBySku;
    const conflicts: SkuConflict[] = [];
    idBySku.clear();
    for (const { id, sku } of this.#byId.values()) {
      const heldBy = idBySku.get(sku);
      if (heldBy === undefined) idBySku.set(sku, id);
      else conflicts.push({ sku, id, heldBy, position: this.positionOf(id) });
    }
    this.claimed = conflicts;
    return conflicts;
  }

  /** Whether every base staged is still the stored product of its id in `site` (clause 7 of `commit`). */
  private basesHold(site: SiteView | undefined): boolean {
    for (const [id, base] of this.bases) {
      const stored = site?.get(id);
      if (base === null ? stored !== undefined : stored === undefined || !sameProduct(stored, base)) return false;
    }
    return true;
  }

  /** `StagedImport.commit`'s answer against `site` (absent: empty), and what it would write. */
  judge(site: SiteView | undefined, replace: boolean): Applicable | Extract<CommitResult, { applied: false }> {
    this.index();
    if (!this.basesHold(site)) return { applied: false, conflicts: [], stale: true };
    const claimed = this.claims();
    const byId = this.#byId;
    const held: SkuConflict[] = [];
    if (site !== undefined && !replace) {
      for (const { id, sku } of byId.values()) {
        const heldBy = site.holderOf(sku);
        if (heldBy !== undefined && heldBy !== id && !byId.has(heldBy)) {
          held.push({ sku, id, heldBy, position: this.positionOf(id) });
        }
      }
    }
    if (held.length + claimed.length > 0) return { applied: false, conflicts: combineConflicts(held, claimed) };
    const total = byId.size;
    let created = total;
    let unchanged = 0;
    let changed: Iterable<Product> = byId.values();
    if (site !== undefined) {
      const written: Product[] = [];
      created = 0;
      for (const product of byId.values()) {
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
    if (!replace) return { applied: true, counts, changed };
    return { applied: true, counts: { ...counts, deleted: (site?.size ?? 0) - (total - created) }, changed };
  }

  /** Lets go of everything staged. */
  clear(): void {
    this.waiting.length = 0;
    this.#byId.clear();
    this.#idBySku.clear();
    this.bases.clear();
    this.firstPositions.length = 0;
    this.laterPositions.clear();
    this.positions = undefined;
    this.claimed = undefined;
  }
}
