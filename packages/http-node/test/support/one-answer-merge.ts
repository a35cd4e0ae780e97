// Cases of merges (mode=merge) for the one-answer test: a record changes the fields it carries of
// the product it names by id or sku, whichever channel carries it (an empty CSV cell is a field
// not given), and `missing` says alike what a record that names no product does.
import type { Case } from "./one-answer-run.ts";
import { invalid } from "./one-answer-validation.ts";
import { product } from "./test-server.ts";

const p = (id: string, sku = `SKU-${id}`, extra: Record<string, unknown> = {}) => product(id, sku, extra);
const MERGE = { mode: "merge" } as const;
const merged = (counts: Record<string, number>, skippedKeys: readonly string[] = []) => ({
  status: 200,
  counts: { total: 0, created: 0, updated: 0, unchanged: 0, skipped: 0, ...counts, skippedKeys },
});

export const MERGE_CASES: readonly Case[] = [
  {
    name: "mode=merge changes only the fields given, of the product named by id or by sku",
    seed: [p("a"), p("b", "SB", { price: 3 })],
    products: [
      { id: "a", price: 5 },
      { sku: "SB", title: "New" },
      { id: "a", available: false },
    ],
    query: MERGE,
    expect: {
      ...merged({ total: 2, updated: 2 }),
      stored: { a: { price: 5, available: false, title: "Product a" }, b: { title: "New", price: 3 } },
    },
  },
  {
    name: "mode=merge: records that name no product are located PRODUCT_NOT_FOUND, and nothing is written",
    seed: [p("a")],
    products: [{ id: "a", price: 5 }, { id: "x", price: 1 }, { sku: "NONE" }],
    query: MERGE,
    expect: { status: 400, code: "PRODUCT_NOT_FOUND", errorCount: 2, stored: { a: { title: "Product a" } } },
  },
  {
    name: "missing=skip: counted in skipped, their keys in request order",
    seed: [p("a")],
    products: [{ id: "x" }, { id: "a", available: false }, { sku: "Y" }],
    query: { ...MERGE, missing: "skip" },
    expect: { ...merged({ total: 1, updated: 1, skipped: 2 }, ["x", "Y"]), stored: { a: { available: false } } },
  },
  {
    name: "missing=create: a record that names no product is created whole",
    seed: [p("a")],
    products: [{ id: "a", price: 2 }, p("n")],
    query: { ...MERGE, missing: "create" },
    expect: { ...merged({ total: 2, created: 1, updated: 1 }), stored: { a: { price: 2 }, n: {} } },
  },
  {
    name: "mode=merge with dryRun: the same counts, nothing written",
    seed: [p("a")],
    products: [{ id: "a", title: "Changed" }],
    query: { ...MERGE, dryRun: true },
    expect: {
      status: 200,
      counts: { total: 1, created: 0, updated: 1, unchanged: 0, skipped: 0, skippedKeys: [], dryRun: true },
      stored: { a: { title: "Product a" } },
    },
  },
  {
    name: "a merge that would leave a product invalid is located at the field it gives",
    seed: [p("a", "SKU-a", { price_max: 5 })],
    products: [{ id: "a", price_min: 9 }],
    query: MERGE,
    expect: { ...invalid(1), stored: { a: { price_max: 5 } } },
  },
];
