// Shopify's product CSV: one row a variant, the rows of a product sharing its handle, rows that
// carry only the handle and an image for its further images. The mapping and its rules are
// documented in PROFILES.md ("Shopify"); the column names in shopify-columns.ts.

import { clip } from "../text.ts";
import type { ImportProfile, ProfileContext, ProfileRecord, ProfileRow } from "./profile.ts";
import {
  handleCell,
  isShopifyHeader,
  type ShopifyColumns,
  type ShopifyRole,
  shopifyColumn,
  shopifyColumnOf,
  shopifyColumns,
} from "./shopify-columns.ts";
import { cell, groupProduct, readPrice, shopPage, type Variant } from "./values.ts";

// The option value Shopify gives the one variant of a product without options: not a name of it.
const DEFAULT_TITLE = "default title";

/** A group's rows read by role, whichever header set the file uses. */
class ShopifyRows {
  readonly columns: ShopifyColumns;
  readonly context: ProfileContext;

  constructor(rows: readonly ProfileRow[], context: ProfileContext) {
    this.columns = shopifyColumns(rows);
    this.context = context;
  }

  /** A cell's text, `""` when the file lacks its column. */
  read(row: ProfileRow, role: ShopifyRole): string {
    const column = this.columns[role];
    return column === undefined ? "" : cell(row, column);
  }

  /** The first text of a role over rows: Shopify writes a product's own columns on one row only. */
  first(rows: readonly ProfileRow[], role: ShopifyRole): string | undefined {
    for (const row of rows) {
      const text = this.read(row, role);
      if (text.trim() !== "") return text;
    }
    return undefined;
  }

  /** A column's name for a problem: as the file writes it, else the name of `fallback`'s set. */
  column(role: ShopifyRole, fallback: string): string {
    return this.columns[role] ?? fallback;
  }

  /** A whole number (a stock quantity, an image position); a text that is not one is a problem. */
  wholeNumber(row: ProfileRow, role: ShopifyRole): number | undefined {
    const text = this.read(row, role).trim();
    if (text === "") return undefined;
    if (/^[-+]?\d+$/.test(text)) return Number(text);
    this.context.problems.add({
      ...this.context.place(row, this.column(role, role)),
      message: `"${clip(text)}" is not a whole number`,
    });
    return undefined;
  }
}

/** A variant row as the product needs it. */
interface ShopifyVariant extends Variant {
  readonly row: ProfileRow;
  readonly options: readonly string[];
  readonly image: string;
}

// A variant is sold out, and stays so, when Shopify tracks its stock, none is left, and the policy
// is to deny orders: `deny` in the legacy header, `DENY` or `FALSE` ("continue selling": no) now.
// A quantity the file leaves out is not known to be zero: the variant counts as available.
function inStock(rows: ShopifyRows, row: ProfileRow): boolean {
  if (rows.read(row, "tracker").trim().toLowerCase() !== "shopify") return true;
  const policy = rows.read(row, "policy").trim().toLowerCase();
  if (policy !== "deny" && policy !== "false") return true;
  const quantity = rows.wholeNumber(row, "quantity");
  return quantity === undefined || quantity > 0;
}

// A product is off sale when its status is draft or archived, or it is not published.
function listed(rows: ShopifyRows, group: readonly ProfileRow[]): boolean {
  const status = rows.first(group, "status")?.trim().toLowerCase();
  const published = rows.first(group, "published")?.trim().toLowerCase();
  return status !== "draft" && status !== "archived" && published !== "false";
}

function variantsOf(rows: ShopifyRows, group: readonly ProfileRow[], onSale: boolean): ShopifyVariant[] {
  const variants: ShopifyVariant[] = [];
  for (const row of group) {
    const options = (["option1", "option2", "option3"] as const)
      .map((role) => rows.read(row, role).trim())
      .filter((value) => value !== "");
    const sku = rows.read(row, "sku").trim();
    const priceText = rows.read(row, "price");
    // An image row carries only the handle and its image: no option, SKU or price.
    if (options.length === 0 && sku === "" && priceText.trim() === "") continue;
    const price = readPrice(row, rows.column("price", "Variant Price"), rows.context, priceText);
    variants.push({
      row,
      options,
      image: rows.read(row, "variantImage").trim(),
      ...(sku === "" ? {} : { sku }),
      ...(price === undefined ? {} : { price }),
      available: onSale && inStock(rows, row),
    });
  }
  return variants;
}

// Every image of the group: those with an Image Position in its order, then the others in the
// file's order (variant images, images without a position). The sort is stable.
function imagesOf(rows: ShopifyRows, group: readonly ProfileRow[]): string[] {
  const placed: { url: string; position: number }[] = [];
  for (const row of group) {
    const image = rows.read(row, "image").trim();
    if (image !== "") placed.push({ url: image, position: rows.wholeNumber(row, "imagePosition") ?? Infinity });
    const variantImage = rows.read(row, "variantImage").trim();
    if (variantImage !== "") placed.push({ url: variantImage, position: Infinity });
  }
  return placed.sort((a, b) => a.position - b.position).map((image) => image.url);
}

function products(group: readonly ProfileRow[], context: ProfileContext): ProfileRecord[] {
  const head = group[0];
  if (head === undefined) return [];
  const rows = new ShopifyRows(group, context);
  const handle = handleCell(head).trim();
  if (handle === "") {
    context.problems.add({
      ...context.place(head, rows.column("handle", "Handle")),
      message: "Required: the product's handle, which names it and its page",
    });
    return [];
  }
  const title = rows.first(group, "title");
  const description = rows.first(group, "description");
  const url = shopPage(context.parameters.shopUrl ?? "", `products/${handle}`);
  const onSale = listed(rows, group);
  const images = imagesOf(rows, group);
  const variants = variantsOf(rows, group, onSale);

  if (context.parameters.variants === "items" && variants.length > 0) {
    return variants.map((variant) => {
      const own = variant.sku ?? `${handle}-${variant.row.position}`;
      const named = variant.options.filter((option) => option.toLowerCase() !== DEFAULT_TITLE);
      const record = groupProduct({
        id: own,
        ...(title === undefined ? {} : { title: named.length > 0 ? `${title} - ${named.join(" / ")}` : title }),
        ...(description === undefined ? {} : { description }),
        url,
        images: [variant.image, ...images],
        variants: [{ ...variant, sku: own }],
      });
      return { position: variant.row.position, record };
    });
  }

  const record = groupProduct({
    id: handle,
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
    url,
    images,
    // A product of image rows only, or of a title row without variant columns: one unpriced variant.
    variants: variants.length > 0 ? variants : [{ available: onSale }],
  });
  // The first variant's SKU; else the first a variant has; else the handle, unique in the shop.
  record.sku ??= variants.find((variant) => variant.sku !== undefined)?.sku ?? handle;
  return [{ position: head.position, record }];
}

/** Shopify's product CSV, in its legacy header (`Handle`, `Variant SKU`) and its current one (`URL handle`, `SKU`). */
export const shopify: ImportProfile = {
  name: "shopify",
  formats: ["csv"],
  requires: ["shopUrl"],
  column: shopifyColumn,
  detect: isShopifyHeader,
  columnOf: shopifyColumnOf,
  // A row without a handle is a group of its own, its problem named once, never joined to others.
  group(row) {
    const handle = handleCell(row).trim();
    return { key: handle === "" ? `\u0000${row.position}` : handle };
  },
  products,
};
