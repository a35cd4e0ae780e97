// judgeStagedRows, over the rows an embedded database answers, judges as ImportStaging does in
// memory: the same counts, the same conflicts, the same stale refusals, for any import and site.
import {
  encodeProduct,
  ImportStaging,
  judgeStagedRows,
  type Product,
  type SiteView,
  type StagedRow,
} from "@catalog-kit/catalog-core";
import fc from "fast-check";
import { expect, test } from "vitest";
import { sampleProduct } from "../src/testing/arbitraries.ts";

interface Staged {
  readonly product: Product;
  readonly position: number;
  readonly base: Product | null | undefined;
  readonly withBases: boolean;
}

// What a store's query answers: the last row of each id with its first position, joined with
// the site, ordered by sku then first position (in SQL, a GROUP BY and two joins).
function rowsOf(staged: readonly Staged[], site: ReadonlyMap<string, Product>): StagedRow[] {
  const byId = new Map<string, { last: Staged; first: number }>();
  for (const entry of staged) {
    const seen = byId.get(entry.product.id);
    byId.set(entry.product.id, { last: entry, first: seen?.first ?? entry.position });
  }
  const holders = new Map([...site.values()].map((p) => [p.sku, p.id]));
  const rows = [...byId].map(([id, { last, first }]): StagedRow => {
    const stored = site.get(id);
    const holder = holders.get(last.product.sku) ?? null;
    return {
      id,
      sku: last.product.sku,
      first,
      last: last.position,
      body: encodeProduct(last.product),
      base: !last.withBases ? undefined : last.base ? encodeProduct(last.base) : null,
      stored: stored ? encodeProduct(stored) : null,
      holder,
      holderStaged: holder !== null && byId.has(holder),
    };
  });
  return rows.sort((a, b) => (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : a.first - b.first));
}

const small = (prefix: string) => fc.integer({ min: 0, max: 5 }).map((n) => `${prefix}${n}`);
const productArb = fc
  .record({ id: small("i"), sku: small("s"), title: fc.constantFrom("A", "B") })
  .map(({ id, sku, title }) => sampleProduct(id, sku, { title }));

const sortConflicts = <T extends { position: number; sku: string }>(list: readonly T[]) =>
  [...list].sort((a, b) => a.position - b.position || (a.sku < b.sku ? -1 : 1));

test("the one-pass judgement of staged rows answers as the in-memory staging does", () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(productArb, { selector: (p) => p.sku }).map((list) => {
        const byId = new Map<string, Product>();
        for (const p of list) if (!byId.has(p.id)) byId.set(p.id, p);
        return byId;
      }),
      fc.array(
        fc.array(fc.record({ product: productArb, base: fc.constantFrom("stored", "null", "other") }), {
          minLength: 1,
          maxLength: 4,
        }),
      ),
      fc.boolean(),
      fc.boolean(),
      (site, chunks, withBases, replace) => {
        const staging = new ImportStaging();
        const staged: Staged[] = [];
        let position = 0;
        for (const chunk of chunks) {
          const bases = chunk.map(({ product, base }) =>
            base === "null" ? null : base === "stored" ? (site.get(product.id) ?? null) : product,
          );
          const positions = chunk.map(() => position++);
          staging.add(
            chunk.map((c) => c.product),
            positions,
            withBases ? bases : undefined,
          );
          chunk.forEach(({ product }, i) => {
            staged.push({ product, position: positions[i] as number, base: bases[i], withBases });
          });
        }
        const view: SiteView = {
          get: (id) => site.get(id),
          holderOf: (sku) => [...site.values()].find((p) => p.sku === sku)?.id,
          size: site.size,
        };
        const expected = staging.judge(view, replace);
        const actual = judgeStagedRows(rowsOf(staged, site), replace, () => site.size);
        if (expected.applied) expect(actual).toEqual({ applied: true, counts: expected.counts });
        else if (actual.applied) expect.fail(`applied where the staging refused: ${JSON.stringify(expected)}`);
        else expect(sortConflicts(actual.conflicts)).toEqual(sortConflicts(expected.conflicts));
        if (!expected.applied && !actual.applied) expect(actual.stale).toBe(expected.stale);
      },
    ),
    { numRuns: 2000 },
  );
});

test("rows of one sku out of position order are an author's mistake, named", () => {
  const row = (id: string, first: number): StagedRow => ({
    id,
    sku: "s",
    first,
    last: first,
    body: "{}",
    stored: null,
    holder: null,
    holderStaged: false,
  });
  expect(() => judgeStagedRows([row("b", 2), row("a", 1)], false, () => 0)).toThrow(/position order at a/);
});
