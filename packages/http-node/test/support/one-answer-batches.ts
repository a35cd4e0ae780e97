// Cases of the root README's rules on a request as a whole, for the one-answer test: the same id
// twice, sku conflicts (in the request, with the site, both at once), swaps, counts, dry runs,
// full syncs (mode=replace) and the empty replace.
import type { Case, Expectation } from "./one-answer-run.ts";
import { imported, invalid } from "./one-answer-validation.ts";
import { product } from "./test-server.ts";

const conflict = (errorCount: number): Expectation => ({ status: 400, code: "SKU_CONFLICT", errorCount });
const p = (id: string, sku = `SKU-${id}`, extra: Record<string, unknown> = {}) => product(id, sku, extra);
const REPLACE = { mode: "replace" } as const;

export const BATCH_CASES: readonly Case[] = [
  {
    name: "the same id twice: the later one wins, counted once",
    products: [p("a", "A", { title: "First" }), p("a", "A", { title: "Second" })],
    expect: { ...imported({ total: 1, created: 1 }), stored: { a: { title: "Second" } } },
  },
  {
    name: "the same id twice over a stored product: the later one, identical to it, is unchanged",
    seed: [p("a")],
    products: [p("a", "SKU-a", { title: "Changed" }), p("a")],
    expect: { ...imported({ total: 1, unchanged: 1 }), stored: { a: { title: "Product a" } } },
  },
  {
    name: "the same id twice with two skus: the earlier sku is free for another id",
    products: [p("a", "S1"), p("a", "S2"), p("b", "S1")],
    expect: { ...imported({ total: 2, created: 2 }), stored: { a: { sku: "S2" }, b: { sku: "S1" } } },
  },
  {
    name: "an invalid product given again valid is still reported",
    products: [p("a", "A", { price: -1 }), p("a", "A")],
    expect: invalid(1),
  },
  {
    name: "counts: created, updated, unchanged",
    seed: [p("u"), p("m")],
    products: [p("u"), p("m", "SKU-m", { title: "New title" }), p("n")],
    expect: { ...imported({ total: 3, created: 1, updated: 1, unchanged: 1 }), stored: { u: {}, m: {}, n: {} } },
  },
  {
    name: "an import replaces the stored product whole: an optional field left out is gone",
    seed: [p("a", "SKU-a", { description: "Old", price: 3 })],
    products: [p("a")],
    expect: imported({ total: 1, updated: 1 }),
  },
  {
    name: "re-importing an identical product with every field is unchanged",
    seed: [
      p("a", "SKU-a", { description: 'd, "q"\nx', price: 2.5, price_min: 1, price_max: 3, images: ["https://i/1"] }),
    ],
    products: [
      p("a", "SKU-a", { description: 'd, "q"\nx', price: 2.5, price_min: 1, price_max: 3, images: ["https://i/1"] }),
    ],
    expect: imported({ total: 1, unchanged: 1 }),
  },
  {
    name: "a sku claimed by two ids in one request",
    products: [p("a", "S"), p("b", "S")],
    expect: conflict(1),
  },
  {
    name: "a sku claimed by three ids in one request, among others",
    products: [p("x"), p("a", "S"), p("b", "S"), p("y"), p("c", "S")],
    expect: conflict(2),
  },
  {
    name: "a sku held by a stored product",
    seed: [p("a", "S")],
    products: [p("b", "S")],
    expect: conflict(1),
  },
  {
    name: "a sku held by a stored product, the claimer given twice: located at its last position",
    seed: [p("a", "S")],
    products: [p("b", "S", { title: "First" }), p("c"), p("b", "S")],
    expect: conflict(1),
  },
  {
    name: "skus held by two stored products, among valid products",
    seed: [p("a", "SA"), p("b", "SB")],
    products: [p("n1"), p("x", "SA"), p("n2"), p("y", "SB")],
    expect: conflict(2),
  },
  {
    name: "both a double claim in the request and a sku held by a stored product: every problem reported",
    seed: [p("h", "H")],
    products: [p("a", "S"), p("b", "S"), p("c", "H")],
    expect: { status: 400, code: "SKU_CONFLICT", minErrorCount: 2, stored: { h: { sku: "H" } } },
  },
  {
    name: "a double claim undone: the first claimer given again with another sku",
    products: [p("a", "S"), p("b", "S"), p("a", "T")],
    expect: { ...imported({ total: 2, created: 2 }), stored: { a: { sku: "T" }, b: { sku: "S" } } },
  },
  {
    name: "a double claim where one claimer's sku comes from its later entry",
    products: [p("a", "X"), p("b", "S"), p("a", "S")],
    expect: conflict(1),
  },
  {
    name: "a sku claimed by the first product and by one past 3,000 (a streamed body's first chunk)",
    products: [p("first", "S"), ...Array.from({ length: 3_100 }, (_, i) => p(`n${i}`)), p("last", "S")],
    expect: conflict(1),
  },
  {
    name: "a sku held by a stored product, claimed past 3,000",
    seed: [p("held", "H")],
    products: [...Array.from({ length: 3_100 }, (_, i) => p(`n${i}`)), p("x", "H")],
    expect: conflict(1),
  },
  {
    name: "invalid products on both sides of 3,000",
    products: Array.from({ length: 3_100 }, (_, i) => p(`n${i}`, `SKU-${i}`, i % 1_000 === 7 ? { price: -1 } : {})),
    expect: invalid(4),
  },
  {
    name: "an invalid product and a sku conflict in one request",
    seed: [p("a", "S")],
    products: [p("b", "S"), p("c", "C", { title: " " })],
    expect: { status: 400, stored: { a: {} } },
  },
  {
    name: "a sku freed in the same request is free: the holder moves to another sku",
    seed: [p("a", "SA")],
    products: [p("a", "SX"), p("b", "SA")],
    expect: { ...imported({ total: 2, created: 1, updated: 1 }), stored: { a: { sku: "SX" }, b: { sku: "SA" } } },
  },
  {
    name: "two stored products swap skus",
    seed: [p("a", "SA"), p("b", "SB")],
    products: [p("a", "SB"), p("b", "SA")],
    expect: { ...imported({ total: 2, updated: 2 }), stored: { a: { sku: "SB" }, b: { sku: "SA" } } },
  },
  {
    name: "dryRun: the same counts, nothing written",
    seed: [p("u"), p("m")],
    products: [p("u"), p("m", "SKU-m", { title: "New title" }), p("n")],
    query: { dryRun: true },
    expect: {
      status: 200,
      counts: { total: 3, created: 1, updated: 1, unchanged: 1, dryRun: true },
      stored: { u: {}, m: { title: "Product m" } },
    },
  },
  {
    name: "dryRun=false writes",
    products: [p("a")],
    query: { dryRun: false },
    expect: { ...imported({ total: 1, created: 1 }), stored: { a: {} } },
  },
  {
    name: "dryRun: a sku conflict is reported",
    seed: [p("a", "S")],
    products: [p("b", "S")],
    query: { dryRun: true },
    expect: conflict(1),
  },
  {
    name: "dryRun: an invalid product is reported",
    products: [p("a", "A", { price: -1 })],
    query: { dryRun: true },
    expect: invalid(1),
  },
  {
    name: "mode=replace deletes what the request does not name, and counts it",
    seed: [p("a"), p("b"), p("c")],
    products: [p("a"), p("d")],
    query: REPLACE,
    expect: { ...imported({ total: 2, created: 1, unchanged: 1, deleted: 2 }), stored: { a: {}, d: {} } },
  },
  {
    name: "mode=replace frees the skus of the products it deletes",
    seed: [p("a", "SA")],
    products: [p("b", "SA")],
    query: REPLACE,
    expect: { ...imported({ total: 1, created: 1, deleted: 1 }), stored: { b: { sku: "SA" } } },
  },
  {
    name: "mode=replace with dryRun: the same counts, nothing written",
    seed: [p("a"), p("b")],
    products: [p("a")],
    query: { ...REPLACE, dryRun: true },
    expect: {
      status: 200,
      counts: { total: 1, created: 0, updated: 0, unchanged: 1, deleted: 1, dryRun: true },
      stored: { a: {}, b: {} },
    },
  },
  {
    name: "mode=replace with a sku claimed twice in the request",
    seed: [p("a")],
    products: [p("b", "S"), p("c", "S")],
    query: REPLACE,
    expect: { ...conflict(1), stored: { a: {} } },
  },
  {
    name: "an empty replace without allowEmpty is refused",
    seed: [p("a")],
    products: [],
    query: REPLACE,
    expect: { status: 400, code: "VALIDATION_FAILED", errorCount: 1, stored: { a: {} } },
  },
  {
    name: "an empty replace with allowEmpty=false is refused",
    seed: [p("a")],
    products: [],
    query: { ...REPLACE, allowEmpty: false },
    expect: { status: 400, code: "VALIDATION_FAILED", errorCount: 1, stored: { a: {} } },
  },
  {
    name: "an empty replace with allowEmpty=true empties the site",
    seed: [p("a"), p("b")],
    products: [],
    query: { ...REPLACE, allowEmpty: true },
    expect: { ...imported({ deleted: 2 }), stored: {} },
  },
  {
    name: "an empty upsert changes nothing",
    seed: [p("a")],
    products: [],
    expect: { ...imported({}), stored: { a: {} } },
  },
];
