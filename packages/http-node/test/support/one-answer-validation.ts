// Cases of the validation rules (the root README's "The rules", the OpenAPI document's Product),
// for the one-answer test: each product problem sent every way it can be (see support/channels.ts
// for what a channel cannot carry).
import type { Channel } from "./channels.ts";
import type { Case, Expectation } from "./one-answer-run.ts";
import { product } from "./test-server.ts";

/** CSV cannot tell these from their absence, or reads them as another value, or has no column for them. */
const NOT_CSV: readonly Channel[] = ["csvContent", "csv", "csv.gz"];
/** A raw body is UTF-8 bytes: a lone surrogate has no encoding there. */
const NOT_RAW_CSV: readonly Channel[] = ["csv", "csv.gz"];

export const invalid = (errorCount: number): Expectation => ({ status: 400, code: "VALIDATION_FAILED", errorCount });
export const imported = (counts: Record<string, number>): Expectation => ({
  status: 200,
  counts: { total: 0, created: 0, updated: 0, unchanged: 0, ...counts },
});

export function without(record: Record<string, unknown>, ...fields: string[]): Record<string, unknown> {
  const copy = { ...record };
  for (const field of fields) delete copy[field];
  return copy;
}

const p = (id: string, extra: Record<string, unknown> = {}) => product(id, `SKU-${id}`, extra);
const url = (n: number) => `https://img.example/${"x".repeat(n - 24)}.jpg`; // n characters
const unknownFields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`extra_${i}`, i]));

export const VALIDATION_CASES: readonly Case[] = [
  { name: "a valid product", products: [p("a")], expect: imported({ total: 1, created: 1 }) },
  {
    name: "a valid product with every optional field, its text holding commas, quotes and newlines",
    products: [
      p("full", {
        title: 'Socks, "striped"',
        description: 'Line one, "quoted"\nline two\r\nline three',
        price: 19.99,
        price_min: 10,
        price_max: 25.5,
        images: ["https://img.example/1.jpg", 'https://img.example/"2".jpg'],
      }),
    ],
    expect: imported({ total: 1, created: 1 }),
  },
  {
    name: "unicode and white space inside values",
    products: [p("café-😀", { title: "  Café 😀\tmug ", description: "  " })],
    expect: imported({ total: 1, created: 1 }),
  },
  { name: "a required field missing", products: [without(p("a"), "title")], expect: invalid(1) },
  {
    name: "every required field missing (CSV: every cell empty)",
    products: [p("a"), {}],
    expect: invalid(6),
  },
  { name: "a string field holding a number", products: [p("a", { title: 42 })], skip: NOT_CSV, expect: invalid(1) },
  {
    name: "available holding a string",
    products: [p("a", { available: "true" })],
    skip: NOT_CSV,
    expect: invalid(1),
  },
  { name: "a price holding a string", products: [p("a", { price: "19.99" })], skip: NOT_CSV, expect: invalid(1) },
  {
    name: "images holding a string",
    products: [p("a", { images: "https://img.example/a.jpg" })],
    skip: NOT_CSV,
    expect: invalid(1),
  },
  {
    name: "images holding a number and an object (CSV: a JSON array cell)",
    products: [p("a", { images: ["https://img.example/a.jpg", 7, { src: "x" }] })],
    expect: invalid(2),
  },
  { name: "null for an optional field", products: [p("a", { description: null })], skip: NOT_CSV, expect: invalid(1) },
  { name: "a product that is not an object", products: [null], skip: NOT_CSV, expect: invalid(1) },
  {
    name: "products that are not objects, among valid ones",
    products: [42, p("a"), "text", null, true],
    skip: NOT_CSV,
    expect: invalid(4),
  },
  { name: "an unknown field", products: [p("a", { colour: "red" })], skip: NOT_CSV, expect: invalid(1) },
  {
    name: "an unknown field whose name holds / and ~",
    products: [p("a", { "size/fit~x": "M" })],
    skip: NOT_CSV,
    expect: invalid(1),
  },
  {
    name: "a product with 120 unknown fields: errorCount 120",
    products: [p("a", unknownFields(120))],
    skip: NOT_CSV,
    expect: invalid(120),
  },
  {
    name: "unknown fields in several products",
    products: [p("a", { colour: "red", size: "M" }), p("b"), p("c", { Title: "x" })],
    skip: NOT_CSV,
    expect: invalid(3),
  },
  {
    name: "an unknown field beside invalid known fields",
    products: [p("a", { colour: "red", price: -1, title: " " })],
    skip: NOT_CSV,
    expect: invalid(3),
  },
  { name: "a required string empty", products: [p("a", { title: "" })], skip: NOT_CSV, expect: invalid(1) },
  {
    name: "required strings blank",
    products: [p("a", { title: "   ", url: "\t", featured_image: " \n " })],
    expect: invalid(3),
  },
  { name: "an empty id", products: [p("a", { id: "" })], skip: NOT_CSV, expect: invalid(1) },
  { name: "a blank sku", products: [p("a", { sku: "  " })], expect: invalid(1) },
  {
    name: "id and sku of 256 characters are valid, 257 are not",
    products: [
      product("x".repeat(256), "s".repeat(256)),
      product("y".repeat(257), "y"),
      p("z", { sku: "s".repeat(257) }),
    ],
    expect: invalid(2),
  },
  {
    name: "control characters in id and sku, and the rows after a newline in a cell",
    products: [p("a\u0007b", { sku: "s\nt" }), p("c", { price: -1 }), product("d\u0000", "d")],
    expect: invalid(4),
  },
  {
    name: "DEL and C1 controls in id and sku",
    products: [product("a\u007f", "a"), p("b", { sku: "x\u0085y" })],
    expect: invalid(2),
  },
  {
    name: "leading or trailing white space in id and sku",
    products: [product(" a", "a"), product("b ", "b"), p("c", { sku: "\u00a0s" }), p("d", { sku: "s\t" })],
    expect: invalid(4),
  },
  {
    name: "title of 1,000 characters is valid, 1,001 is not",
    products: [p("a", { title: "t".repeat(1_000) }), p("b", { title: "t".repeat(1_001) })],
    expect: invalid(1),
  },
  {
    name: "description of 65,536 characters is valid, 65,537 is not",
    products: [p("a", { description: "d".repeat(65_536) }), p("b", { description: "d".repeat(65_537) })],
    expect: invalid(1),
  },
  {
    name: "URLs of 2,048 characters are valid, 2,049 are not (url, featured_image, images)",
    products: [
      p("a", { url: url(2_048), featured_image: url(2_048), images: [url(2_048)] }),
      p("b", { url: url(2_049) }),
      p("c", { featured_image: url(2_049) }),
      p("d", { images: ["https://img.example/ok.jpg", url(2_049)] }),
    ],
    expect: invalid(3),
  },
  {
    name: "images: 100 entries are valid, 101 are not",
    products: [
      p("a", { images: Array.from({ length: 100 }, (_, i) => `https://img.example/${i}.jpg`) }),
      p("b", { images: Array.from({ length: 101 }, (_, i) => `https://img.example/${i}.jpg`) }),
    ],
    expect: invalid(1),
  },
  {
    name: "images with an empty and a blank entry",
    products: [p("a", { images: ["", "https://img.example/a.jpg", " "] })],
    expect: invalid(2),
  },
  { name: "an empty images list", products: [p("a", { images: [] })], expect: imported({ total: 1, created: 1 }) },
  {
    name: "negative prices",
    products: [p("a", { price: -1 }), p("b", { price_min: -0.01 }), p("c", { price_max: -5, price_min: 1 })],
    expect: invalid(4), // c: price_max below 0, and price_min above it
  },
  {
    name: "infinite prices (JSON: a number literal too large for a double; CSV: a plain decimal too large)",
    products: [p("a", { price: Number.POSITIVE_INFINITY }), p("b", { price_max: Number.NEGATIVE_INFINITY })],
    expect: invalid(3), // -Infinity: not finite, and below 0
  },
  {
    name: "price_min greater than price_max",
    products: [p("a", { price_min: 10, price_max: 9.99 })],
    expect: invalid(1),
  },
  {
    name: "zero prices, and price_min equal to price_max",
    products: [p("a", { price: 0, price_min: 0, price_max: 0 }), p("b", { price_min: 5.5, price_max: 5.5 })],
    expect: imported({ total: 2, created: 2 }),
  },
  {
    name: "a lone surrogate in a title",
    products: [p("a", { title: "broken \ud800 text" })],
    skip: NOT_RAW_CSV,
    expect: invalid(1),
  },
  {
    name: "many problems in one product",
    products: [
      without(
        product(" a", "a", {
          title: "  ",
          price: -1,
          images: Array.from({ length: 101 }, () => "https://img.example/a.jpg"),
        }),
        "available",
      ),
    ],
    expect: invalid(5),
  },
  {
    name: "150 invalid products: 100 listed, errorCount 150",
    products: Array.from({ length: 150 }, (_, i) => p(`n${i}`, { price: -1 })),
    expect: invalid(150),
  },
  {
    name: "valid and invalid products mixed: nothing written",
    products: [p("a"), p("b", { price: -2 }), p("c"), without(p("d"), "url")],
    seed: [p("a", { title: "Stored" })],
    expect: { ...invalid(2), stored: { a: { title: "Stored" } } },
  },
];
