// The rules every profile shares, written once: how platforms write prices and availability, and
// how the variants of a group become one product.

import { clip } from "../text.ts";
import type { ProfileContext, ProfileRow } from "./profile.ts";

/** A cell's text, the first of a repeated XML element; `""` when the row lacks it. */
export function cell(row: ProfileRow, column: string): string {
  const value = row.cells[column];
  return (typeof value === "string" ? value : value?.[0]) ?? "";
}

/** Every value of a column: an XML element's repeats, or the one cell. */
export function cellList(row: ProfileRow, column: string): readonly string[] {
  const value = row.cells[column];
  if (value === undefined) return [];
  return typeof value === "string" ? (value === "" ? [] : [value]) : value;
}

const PRICE = { ".": /^\d+(?:\.\d+)?$/, ",": /^\d+(?:,\d+)?$/ } as const;

/**
 * A price as the file writes it with the call's decimal separator; a text that is not one is a
 * problem at its place (never `19,90` read as 19 or 1990), and `undefined`. Empty: `undefined`.
 */
export function readPrice(row: ProfileRow, column: string, context: ProfileContext, text = cell(row, column)) {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  const decimal = context.parameters.decimal ?? ".";
  if (PRICE[decimal].test(trimmed)) return Number(decimal === "," ? trimmed.replace(",", ".") : trimmed);
  const other = decimal === "." ? "," : ".";
  const hint = PRICE[other].test(trimmed) ? ` (give decimal=${other} if the file writes decimals with "${other}")` : "";
  context.problems.add({
    ...context.place(row, column),
    message: `"${clip(trimmed)}" is not a price with the decimal separator "${decimal}"${hint}`,
  });
  return undefined;
}

/**
 * A feed price, `15.00 USD` (the amount, a space, the ISO 4217 code; the code may be left out
 * when the call names the currency): a code other than the call's `currency` is a problem.
 */
export function readMoney(row: ProfileRow, column: string, context: ProfileContext): number | undefined {
  const text = cell(row, column).trim();
  if (text === "") return undefined;
  const match = /^(\S+)(?:\s+([A-Za-z]{3}))?$/.exec(text);
  if (match === null) {
    context.problems.add({
      ...context.place(row, column),
      message: `"${clip(text)}" is not a price such as "15.00 USD"`,
    });
    return undefined;
  }
  const code = match[2]?.toUpperCase();
  const expected = context.parameters.currency?.toUpperCase();
  if (code !== undefined && expected !== undefined && code !== expected) {
    context.problems.add({
      ...context.place(row, column),
      message: `The price is in ${code}; this import's currency is ${expected}`,
    });
    return undefined;
  }
  return readPrice(row, column, context, match[1]);
}

// How feeds spell availability, with `_` or a space: Google's four values and Meta's.
// A map, not an object: "constructor" or "__proto__" must be unknown words, not what an object inherits.
const AVAILABILITY: ReadonlyMap<string, boolean> = new Map([
  ["in stock", true],
  ["out of stock", false],
  ["preorder", true],
  ["backorder", true],
  ["available for order", true],
  ["discontinued", false],
]);

// Availabilities as files write them (`in_stock`), each respelled once: a feed repeats a few on
// every row. Bounded, as any text may come.
const WRITTEN = new Map<string, boolean>();

function availabilityOf(text: string): boolean | undefined {
  const known = WRITTEN.get(text);
  if (known !== undefined) return known;
  const available = AVAILABILITY.get(text.trim().toLowerCase().replaceAll("_", " ").replace(/\s+/g, " "));
  if (available !== undefined && WRITTEN.size < 64) WRITTEN.set(text, available);
  return available;
}

/** A feed's `availability` (`in_stock`, `in stock`, `preorder`, ...); anything else is a problem. */
export function readAvailability(row: ProfileRow, column: string, context: ProfileContext): boolean | undefined {
  const text = cell(row, column);
  const available = availabilityOf(text);
  if (available === undefined) {
    const known = [...AVAILABILITY.keys()].join(", ");
    context.problems.add({
      ...context.place(row, column),
      message: text.trim() === "" ? `Required: one of ${known}` : `"${clip(text)}" is not one of ${known}`,
    });
  }
  return available;
}

/**
 * The price a variant sells at: its sale price while the sale runs (from `start`, included, to
 * `end`, excluded, either open), else its regular price.
 */
export function sellingPrice(
  regular: number | undefined,
  sale: number | undefined,
  runs: { readonly start?: number | undefined; readonly end?: number | undefined },
  now: number,
): number | undefined {
  const running = (runs.start === undefined || runs.start <= now) && (runs.end === undefined || now < runs.end);
  return sale !== undefined && running ? sale : regular;
}

/** One variant of a group, as the group's product needs it. */
export interface Variant {
  readonly sku?: string;
  readonly price?: number;
  readonly available: boolean;
}

/** What a group of rows says of its product, before the rule that makes one product of it. */
export interface GroupParts {
  readonly id: string;
  readonly title?: string;
  readonly description?: string;
  readonly url?: string;
  /** Every image of the group, in order; repeats are dropped. */
  readonly images: readonly string[];
  /** At least one. */
  readonly variants: readonly Variant[];
}

/**
 * The one product of a group: the group's id, the first variant's sku and price, `price_min` and
 * `price_max` over the priced variants when there are several, available when any variant is,
 * every image once in order, the first featured. Absent values stay absent, for the schema to name.
 */
export function groupProduct(parts: GroupParts): Record<string, unknown> {
  const product: Record<string, unknown> = { id: parts.id };
  const first = parts.variants[0];
  if (first?.sku !== undefined && first.sku !== "") product.sku = first.sku;
  if (parts.title !== undefined && parts.title !== "") product.title = parts.title;
  if (parts.description !== undefined && parts.description !== "") product.description = parts.description;
  if (first?.price !== undefined) product.price = first.price;
  // Loops, not flatMap, some and a spread Set: this runs for every product of every profile.
  let priced = 0;
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  let available = false;
  for (const variant of parts.variants) {
    if (variant.available) available = true;
    if (variant.price === undefined) continue;
    priced++;
    low = Math.min(low, variant.price);
    high = Math.max(high, variant.price);
  }
  if (priced > 1) {
    product.price_min = low;
    product.price_max = high;
  }
  product.available = available;
  const seen = new Set<string>();
  const images: string[] = [];
  for (const image of parts.images) {
    if (seen.has(image) || image.trim() === "") continue;
    seen.add(image);
    images.push(image);
  }
  if (images.length > 0) {
    product.images = images;
    product.featured_image = images[0];
  }
  if (parts.url !== undefined && parts.url !== "") product.url = parts.url;
  return product;
}

/** A product's page under a shop's address: `shopUrl` joined with `path`, one slash between. */
export function shopPage(shopUrl: string, path: string): string {
  return `${shopUrl.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}
