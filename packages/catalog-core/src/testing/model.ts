// The reference model the conformance suite runs every store beside, operation by operation, and
// the fast-check commands that drive a catalog on the store and the model together.
import fc from "fast-check";
import { expect } from "vitest";
import type { Catalog } from "../catalog.ts";
import { isCatalogError } from "../errors.ts";
import { compareIds, encodeProduct, type Product } from "../product.ts";
import type { Site } from "../site.ts";
import type { CatalogStore, CommitResult, KeyField } from "../store.ts";
import { fullProduct, sampleProduct } from "./arbitraries.ts";

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

  /** The page `CatalogStore.list` gives: ids after `after` in `compareIds` order, at most `limit`. */
  list(site: number, after: string | undefined, limit: number): Product[] {
    const products = [...(this.sites[site] as Map<string, Product>).values()];
    return products
      .filter((p) => after === undefined || compareIds(p.id, after) > 0)
      .sort((a, b) => compareIds(a.id, b.id))
      .slice(0, limit);
  }

  import(site: number, list: readonly Product[], dryRun: boolean, replace = false): Outcome {
    const products = this.sites[site] as Map<string, Product>;
    const byId = new Map<string, Product>();
    for (const product of list) byId.set(product.id, product);
    const batch = [...new Set(list.map((p) => p.id))].map((id) => byId.get(id) as Product);

    // A sku held by a product of the site that stays is that holder's; any other sku, its first claimer's.
    const stored: string[] = [];
    const heldSkus = new Set<string>();
    for (const product of replace ? [] : batch) {
      const holder = this.find(site, product.sku, "sku");
      if (holder && holder.id !== product.id && !byId.has(holder.id)) {
        stored.push(`${product.sku}<-${holder.id}`);
        heldSkus.add(product.sku);
      }
    }
    const claimedBy = new Map<string, string>();
    const inBatch: string[] = [];
    for (const product of batch) {
      const first = claimedBy.get(product.sku);
      if (first === undefined) claimedBy.set(product.sku, product.id);
      else if (!heldSkus.has(product.sku)) inBatch.push(`${product.sku}<-${first}`);
    }
    const conflicts = [...stored, ...inBatch];
    if (conflicts.length > 0) return { ok: false, code: "SKU_CONFLICT", conflicts: conflicts.sort() };

    let created = 0;
    let unchanged = 0;
    for (const product of batch) {
      const old = products.get(product.id);
      if (old === undefined) created++;
      else if (encodeProduct(old) === encodeProduct(product)) unchanged++;
    }
    const total = batch.length;
    const deleted = products.size - (total - created);
    if (!dryRun && replace) products.clear();
    if (!dryRun) for (const product of batch) products.set(product.id, product);
    const counts = { total, created, updated: total - created - unchanged, unchanged };
    return { ok: true, value: { ...counts, ...(replace ? { deleted } : {}), dryRun } };
  }

  remove(site: number, key: string, by: KeyField | undefined): Product | undefined {
    const product = this.find(site, key, by);
    if (product) this.sites[site]?.delete(product.id);
    return product;
  }
}

/** What the commands drive: a catalog on the store under test, the store itself, and two sites. */
export interface Real {
  readonly catalog: Catalog;
  readonly store: CatalogStore;
  readonly sites: readonly Site[];
}

type Command = fc.AsyncCommand<CatalogModel, Real>;

// Three-letter alphabets for ids and skus, overlapping, so that collisions happen on most runs.
const KEYS = ["a", "b", "c"] as const;
const smallKey = fc.constantFrom(...KEYS);
const smallProduct = fc
  .record({ id: smallKey, sku: smallKey, variant: fc.constantFrom(0, 1, 2) })
  .map(({ id, sku, variant }) =>
    variant === 2 ? fullProduct(id, sku) : sampleProduct(id, sku, variant === 1 ? { price: 1 } : {}),
  );
const siteIndex = fc.constantFrom(0, 1);
const byArb = fc.constantFrom<KeyField | undefined>(undefined, "id", "sku");

async function outcome(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    if (!isCatalogError(error)) throw error;
    if (error.code !== "SKU_CONFLICT") return { ok: false, code: error.code };
    const conflicts = error.problems.map((p) => `${p.sku}<-${p.heldBy}`).sort();
    return { ok: false, code: error.code, conflicts };
  }
}

// A store's staged-import answer as the catalog reports it (the outcome the model states).
function stagedOutcome(result: CommitResult, dryRun: boolean): Outcome {
  if (!result.applied) {
    return { ok: false, code: "SKU_CONFLICT", conflicts: result.conflicts.map((c) => `${c.sku}<-${c.heldBy}`).sort() };
  }
  const { created, updated, unchanged, deleted } = result.counts;
  const total = created + updated + unchanged;
  return {
    ok: true,
    value: { total, created, updated, unchanged, ...(deleted === undefined ? {} : { deleted }), dryRun },
  };
}

// `list` in chunks cut at `cuts`, each product with its position in the list, from 1.
function chunked(list: readonly Product[], cuts: readonly number[]): { products: Product[]; positions: number[] }[] {
  const at = [...new Set(cuts.map((cut) => cut % (list.length + 1)))].sort((a, b) => a - b);
  const chunks = [];
  let from = 0;
  for (const to of [...at, list.length]) {
    if (to < from) continue;
    chunks.push({ products: list.slice(from, to), positions: list.slice(from, to).map((_, i) => from + i + 1) });
    from = to;
  }
  return chunks;
}

/** After every command, every id and sku of the alphabet reads the same in store and model. */
async function checkState(model: CatalogModel, real: Real): Promise<void> {
  for (const [index, site] of real.sites.entries()) {
    for (const key of KEYS) {
      for (const by of ["id", "sku"] as const) {
        const expected = model.find(index, key, by);
        const actual = await real.catalog.getProduct(site, key, { by }).catch((error: unknown) => {
          if (isCatalogError(error, "PRODUCT_NOT_FOUND")) return undefined;
          throw error;
        });
        expect(actual, `${by} ${key} in site ${index}`).toEqual(expected);
      }
    }
  }
}

function command(label: string, step: (model: CatalogModel, real: Real) => Promise<[Outcome, Outcome]>): Command {
  return {
    check: () => true,
    async run(model, real) {
      const [expected, actual] = await step(model, real);
      expect(actual, label).toEqual(expected);
      await checkState(model, real);
    },
    toString: () => label,
  };
}

/** fast-check commands: imports, single imports, deletes and lookups, each checked against the model. */
export function commandArbs(): fc.Arbitrary<Command>[] {
  return [
    fc
      .tuple(siteIndex, fc.array(smallProduct, { maxLength: 5 }), fc.boolean())
      .map(([site, list, dryRun]) =>
        command(
          `import(${site}, ${JSON.stringify(list.map((p) => [p.id, p.sku]))}, dry=${dryRun})`,
          async (model, real) => [
            model.import(site, list, dryRun),
            await outcome(() => real.catalog.importProducts(real.sites[site] as Site, list, { dryRun })),
          ],
        ),
      ),
    fc
      .tuple(
        siteIndex,
        fc.array(smallProduct, { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        fc.boolean(),
        fc.boolean(),
      )
      .map(([site, list, cuts, dryRun, replace]) =>
        command(
          `staged(${site}, ${JSON.stringify(chunked(list, cuts).map((c) => c.products.map((p) => [p.id, p.sku])))}, dry=${dryRun}, replace=${replace})`,
          async (model, real) => {
            const staged = await real.store.beginImport(real.sites[site] as Site, { dryRun, replace });
            for (const chunk of chunked(list, cuts)) await staged.add(chunk.products, chunk.positions);
            return [model.import(site, list, dryRun, replace), stagedOutcome(await staged.commit(), dryRun)];
          },
        ),
      ),
    fc
      .tuple(siteIndex, fc.array(smallProduct, { minLength: 1, maxLength: 5 }), fc.boolean())
      .map(([site, list, dryRun]) =>
        command(
          `replace(${site}, ${JSON.stringify(list.map((p) => [p.id, p.sku]))}, dry=${dryRun})`,
          async (model, real) => [
            model.import(site, list, dryRun, true),
            await outcome(() =>
              real.catalog.importProducts(real.sites[site] as Site, list, { dryRun, mode: "replace" }),
            ),
          ],
        ),
      ),
    fc
      .tuple(siteIndex, fc.option(smallKey, { nil: undefined }), fc.integer({ min: 1, max: 3 }))
      .map(([site, after, limit]) =>
        command(`list(${site}, after=${after}, limit=${limit})`, async (model, real) => [
          { ok: true, value: model.list(site, after, limit) },
          { ok: true, value: await real.store.list(real.sites[site] as Site, after, limit) },
        ]),
      ),
    fc
      .tuple(siteIndex, smallProduct)
      .map(([site, p]) =>
        command(`importOne(${site}, ${p.id}, ${p.sku})`, async (model, real) => [
          model.import(site, [p], false),
          await outcome(() => real.catalog.importProduct(real.sites[site] as Site, p)),
        ]),
      ),
    fc.tuple(siteIndex, smallKey, byArb).map(([site, key, by]) =>
      command(`delete(${site}, ${key}, ${by})`, async (model, real) => {
        const removed = model.remove(site, key, by);
        return [
          removed ? { ok: true, value: removed } : { ok: false, code: "PRODUCT_NOT_FOUND" },
          await outcome(() => real.catalog.deleteProduct(real.sites[site] as Site, key, by ? { by } : {})),
        ];
      }),
    ),
    fc.tuple(siteIndex, smallKey, byArb).map(([site, key, by]) =>
      command(`get(${site}, ${key}, ${by})`, async (model, real) => {
        const found = model.find(site, key, by);
        return [
          found ? { ok: true, value: found } : { ok: false, code: "PRODUCT_NOT_FOUND" },
          await outcome(() => real.catalog.getProduct(real.sites[site] as Site, key, by ? { by } : {})),
        ];
      }),
    ),
  ];
}
