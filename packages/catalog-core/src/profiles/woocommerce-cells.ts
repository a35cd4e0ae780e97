// How WooCommerce's exporter writes the values of a row: its product type, status, stock status,
// sale dates, lists of images and texts, each read back as the shop holds it.

import { clip } from "../text.ts";
import { readInstant } from "./interval.ts";
import type { ProfileContext, ProfileRow } from "./profile.ts";
import { cell, readPrice, sellingPrice } from "./values.ts";
import { WOO } from "./woocommerce-columns.ts";

/** A row's product type (`simple`, `variable`, `external`, ...), its flags left out; `simple` when empty. */
export function wooType(row: ProfileRow): string {
  const types = cell(row, WOO.type)
    .split(",")
    .map((type) => type.trim().toLowerCase())
    .filter((type) => type !== "" && type !== "virtual" && type !== "downloadable");
  return types[0] ?? "simple";
}

/** What a row of WooCommerce's file is, as its Type says. */
export type WooKind = "variable" | "variation" | "product";

/**
 * A row's kind, from its Type (`simple, virtual`: the type, then `downloadable` or `virtual`). The
 * variable types of WooCommerce's extensions (`variable-subscription`, `subscription_variation`)
 * are variable products and variations too; every other type is a product of its own row.
 */
export function wooKind(row: ProfileRow): WooKind {
  const type = wooType(row);
  if (type === "variation" || type.endsWith("_variation")) return "variation";
  if (type === "variable" || type.startsWith("variable-")) return "variable";
  return "product";
}

// The exporter puts a `'` before a value starting with one of these, so that a spreadsheet does
// not run it as a formula; WooCommerce's importer takes it off again.
const FORMULA = /^'[=+\-@\t\r]/;

/** A cell as the shop holds it: the exporter's `'` before `=`, `+`, `-` or `@` taken off, trimmed. */
export function wooCell(row: ProfileRow, column: string): string {
  const text = cell(row, column).trim();
  return FORMULA.test(text) ? text.slice(1) : text;
}

/**
 * A description as the shop holds it: the exporter writes a line break as the two characters `\n`
 * and a `\n` the text held as `\\n`, so both are read back.
 */
export function wooText(row: ProfileRow, column: string): string {
  return wooCell(row, column).replace(/\\\\n|\\n/g, (written) => (written === "\\n" ? "\n" : "\\n"));
}

/**
 * A list cell (Images): values joined with `, `, a comma inside a value written `\,`. Empty values
 * are dropped, as WooCommerce's importer drops them.
 */
export function wooList(row: ProfileRow, column: string): string[] {
  return cell(row, column)
    .split(/(?<!\\),/)
    .map((value) => value.replaceAll("\\,", ",").trim())
    .filter((value) => value !== "");
}

// Published: 1 publish, 0 private, -1 draft, 2 pending review; `true` and `false` as the importer
// reads them. Empty is published: WooCommerce publishes a product whose file gives no status.
const PUBLISHED: Readonly<Record<string, boolean>> = { "1": true, "0": false, "-1": false, "2": false };

/** Whether a row's Published says the product is public; `undefined` when empty (a problem otherwise). */
export function wooPublished(row: ProfileRow, context: ProfileContext): boolean | undefined {
  const text = wooCell(row, WOO.published).toLowerCase();
  if (text === "") return undefined;
  const published = text === "true" ? true : text === "false" ? false : PUBLISHED[text];
  if (published === undefined) {
    context.problems.add({
      ...context.place(row, WOO.published),
      message: `"${clip(text)}" is not a WooCommerce status: 1 (published), 0 (private), -1 (draft) or 2 (pending)`,
    });
    return false;
  }
  return published;
}

/**
 * Whether a row's In stock? lets it be bought: 1 and `backorder` do, 0 does not. Empty is in
 * stock, WooCommerce's own default for a product whose file gives no stock status.
 */
export function wooInStock(row: ProfileRow, context: ProfileContext): boolean {
  const text = wooCell(row, WOO.inStock).toLowerCase();
  if (text === "" || text === "1" || text === "backorder") return true;
  if (text === "0") return false;
  context.problems.add({
    ...context.place(row, WOO.inStock),
    message: `"${clip(text)}" is not a WooCommerce stock status: 1 (in stock), 0 (out of stock) or backorder`,
  });
  return false;
}

// The instant a sale date names, in UTC (the file names no time zone); a date without a time is
// its whole day, so that a sale's last day is included, as WooCommerce sets it.
function saleDate(row: ProfileRow, column: string, end: boolean, context: ProfileContext): number | undefined {
  const text = wooCell(row, column);
  if (text === "") return undefined;
  const at = readInstant(text, end);
  if (at === undefined) {
    context.problems.add({
      ...context.place(row, column),
      message: `"${clip(text)}" is not a date such as 2024-05-31 or 2024-05-31 23:59:59`,
    });
  }
  return at;
}

/**
 * A row's price: its Sale price while the sale runs (between its dates, when given), its Regular
 * price otherwise. Both are read, so that a price the call cannot read is a problem either way.
 */
export function wooPrice(row: ProfileRow, context: ProfileContext): number | undefined {
  const regular = readPrice(row, WOO.regularPrice, context, wooCell(row, WOO.regularPrice));
  const sale = readPrice(row, WOO.salePrice, context, wooCell(row, WOO.salePrice));
  const start = saleDate(row, WOO.saleStarts, false, context);
  const end = saleDate(row, WOO.saleEnds, true, context);
  return sellingPrice(regular, sale, { start, end }, context.now);
}
