// Random imports for the one-answer properties: lists of valid products (catalog-core's
// productArb) and invalid ones (a valid product broken one or two ways), ids from a small pool so
// that ids repeat, a seeded site, random query options and text layouts; only lists every channel
// can carry (CSV being the narrowest).
import { productArb } from "@catalog-kit/catalog-core/testing";
import fc from "fast-check";
import { type ImportQuery, type Layout, toCsv } from "./channels.ts";

type Rec = Record<string, unknown>;

export interface RandomImport {
  readonly seed: readonly Rec[];
  readonly products: readonly Rec[];
  readonly query: ImportQuery;
  readonly layout: Layout;
}

const IDS = fc.constantFrom("a", "b", "c", "d", "é", "a/b", "x, y", 'q"q');

// CSV reads an empty cell as the field absent: an empty description is left out.
function tidy(product: Rec): Rec {
  const { description, ...rest } = product;
  return description === "" ? rest : product;
}

const without = (product: Rec, field: string): Rec => {
  const { [field]: _gone, ...rest } = product;
  return rest;
};

const BREAK: readonly ((product: Rec) => Rec)[] = [
  (product) => ({ ...product, price: -1 }),
  (product) => ({ ...product, price_max: Number.POSITIVE_INFINITY }),
  (product) => ({ ...product, price_min: 5, price_max: 1 }),
  (product) => ({ ...product, title: "  " }),
  (product) => without(product, "url"),
  (product) => without(product, "available"),
  (product) => ({ ...product, id: ` ${product.id}` }),
  (product) => ({ ...product, id: `${product.id}\u0007` }),
  (product) => ({ ...product, sku: "s".repeat(257) }),
  (product) => ({ ...product, title: "t".repeat(1_001) }),
  (product) => ({ ...product, images: Array.from({ length: 101 }, (_, i) => `https://i/${i}`) }),
  (product) => ({ ...product, images: ["https://i/ok", "", 3] }),
];

function productsOf(valid: fc.Arbitrary<Rec>, validWeight: number): fc.Arbitrary<Rec> {
  const broken = fc
    .tuple(valid, fc.uniqueArray(fc.nat(BREAK.length - 1), { minLength: 1, maxLength: 2 }))
    .map(([product, breaks]) => breaks.reduce((p, b) => (BREAK[b] as (p: Rec) => Rec)(p), product));
  return fc.oneof({ arbitrary: valid, weight: validWeight }, { arbitrary: broken, weight: 1 });
}

function seedOf(valid: fc.Arbitrary<Rec>): fc.Arbitrary<Rec[]> {
  return fc
    .uniqueArray(valid, { selector: (product) => product.id, maxLength: 4 })
    .map((list) => list.filter((product, i) => list.findIndex((other) => other.sku === product.sku) === i));
}

const query: fc.Arbitrary<ImportQuery> = fc.record(
  { dryRun: fc.boolean(), mode: fc.constant("replace" as const), allowEmpty: fc.boolean() },
  { requiredKeys: [] },
);
const layout: fc.Arbitrary<Layout> = fc.record({
  bom: fc.boolean(),
  crlf: fc.boolean(),
  blankLines: fc.boolean(),
  finalNewline: fc.boolean(),
});

function imports(valid: fc.Arbitrary<Rec>, validWeight: number): fc.Arbitrary<RandomImport> {
  return fc
    .record({
      seed: seedOf(valid),
      products: fc.array(productsOf(valid, validWeight), { maxLength: 6 }),
      query,
      layout,
    })
    .filter(({ products, layout }) => toCsv(products, layout, true) !== undefined);
}

/** Valid products' skus are their id's own (`SKU-<id>`): no sku conflict, only validation, repeats and counts. */
export const productLists: fc.Arbitrary<RandomImport> = imports(
  productArb(IDS, fc.constant("")).map((product) => tidy({ ...product, sku: `SKU-${product.id}` })),
  3,
);

/** Skus from a pool of three: products claim each other's and the site's. */
export const conflictingLists: fc.Arbitrary<RandomImport> = imports(
  productArb(IDS, fc.constantFrom("S1", "S2", "S3")).map((product) => tidy({ ...product })),
  8,
);
