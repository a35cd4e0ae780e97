// WooCommerce's product CSV export as an import: a simple, external or grouped product is its row;
// a variable product and its variations are one product (or one a variation). WooCommerce writes
// rows in the order of their IDs, so variations may come before their parent or after other
// products: their groups are kept open to the end of the file.
import type { ImportProfile, ProfileContext, ProfileRecord, ProfileRow, RowGroup } from "./profile.ts";
import { groupProduct, shopPage, type Variant } from "./values.ts";
import {
  wooCell,
  wooInStock,
  wooKind,
  wooList,
  wooPrice,
  wooPublished,
  wooText,
  wooType,
} from "./woocommerce-cells.ts";
import { isWooHeader, WOO, wooColumn, wooColumnOf } from "./woocommerce-columns.ts";

// A row with neither ID nor SKU is a group of its own: a key no ID or SKU can be (a SKU holds no
// control character), so that it joins nothing.
const rowKey = (row: ProfileRow) => `\u0000row ${row.position}`;

// The product's id: the row's ID, or its SKU in a file written for import (no IDs yet).
const rowId = (row: ProfileRow) => wooCell(row, WOO.id) || wooCell(row, WOO.sku);

// The name other rows give a product: `id:12` (as in Parent), its SKU when it has no ID.
function ownKey(row: ProfileRow): string {
  const id = wooCell(row, WOO.id);
  if (id !== "") return `id:${id}`;
  return wooCell(row, WOO.sku) || rowKey(row);
}

// WordPress's permalink by ID always resolves; without an ID, the shop's usual product path.
function pageOf(row: ProfileRow, context: ProfileContext): string {
  const shopUrl = context.parameters.shopUrl ?? "";
  const id = wooCell(row, WOO.id);
  if (id !== "") return shopPage(shopUrl, `?p=${encodeURIComponent(id)}`);
  return shopPage(shopUrl, `product/${encodeURIComponent(wooCell(row, WOO.sku))}`);
}

// An external product's page is the one its External URL names.
function urlOf(row: ProfileRow, context: ProfileContext): string {
  const external = wooType(row) === "external" ? wooCell(row, WOO.externalUrl) : "";
  return external !== "" ? external : pageOf(row, context);
}

const descriptionOf = (row: ProfileRow) => wooText(row, WOO.description) || wooText(row, WOO.shortDescription);

// A product of its own row: a simple, external or grouped one, or a variable one without variations.
function single(row: ProfileRow, context: ProfileContext): ProfileRecord {
  const variant = variantWith(
    wooCell(row, WOO.sku),
    wooPrice(row, context),
    wooPublished(row, context) !== false && wooInStock(row, context),
  );
  const record = groupProduct({
    id: rowId(row),
    title: wooCell(row, WOO.name),
    description: descriptionOf(row),
    url: urlOf(row, context),
    images: wooList(row, WOO.images),
    variants: [variant],
  });
  return { position: row.position, record };
}

// A variation sells when its parent is published and it is enabled (the exporter writes 0 for a
// disabled variation, -1 under a draft parent; an empty cell follows the parent) and in stock.
function variantOf(row: ProfileRow, parent: ProfileRow, parentPublished: boolean, context: ProfileContext): Variant {
  const enabled = wooPublished(row, context) !== false;
  // A variation without a SKU of its own has its parent's, as WooCommerce shows it.
  const sku = wooCell(row, WOO.sku) || wooCell(parent, WOO.sku);
  return variantWith(sku, wooPrice(row, context), parentPublished && enabled && wooInStock(row, context));
}

function variantWith(sku: string, price: number | undefined, available: boolean): Variant {
  return price === undefined ? { sku, available } : { sku, price, available };
}

// Rows of a group that are not its parent's or its variations': a product ID (or SKU) given twice.
function reportRepeats(rows: readonly ProfileRow[], first: ProfileRow, context: ProfileContext): void {
  for (const row of rows) {
    if (row === first) continue;
    context.problems.add({
      ...context.place(row, wooCell(row, WOO.id) !== "" ? WOO.id : WOO.sku),
      message: `This product is given again: it is the product at row ${first.position}; give each product one row`,
    });
  }
}

function products(rows: readonly ProfileRow[], context: ProfileContext): ProfileRecord[] {
  const variations = rows.filter((row) => wooKind(row) === "variation");
  const others = rows.filter((row) => wooKind(row) !== "variation");
  const parent = others.find((row) => wooKind(row) === "variable");
  if (parent === undefined) {
    for (const row of variations) {
      const name = wooCell(row, WOO.parent);
      context.problems.add({
        ...context.place(row, WOO.parent),
        message:
          name === ""
            ? "A variation needs its parent: the variable product's SKU or id:<ID>"
            : `The parent "${name}" of this variation is not in this file`,
      });
    }
    const first = others[0];
    if (first === undefined) return [];
    reportRepeats(others, first, context);
    return [single(first, context)];
  }
  reportRepeats(others, parent, context);
  if (variations.length === 0) return [single(parent, context)];
  const published = wooPublished(parent, context) !== false;
  if (context.parameters.variants === "items") {
    return variations.map((row) => {
      const record = groupProduct({
        id: rowId(row),
        title: wooCell(row, WOO.name) || wooCell(parent, WOO.name),
        description: descriptionOf(row) || descriptionOf(parent),
        url: urlOf(parent, context),
        images: [...wooList(row, WOO.images), ...wooList(parent, WOO.images)],
        variants: [variantOf(row, parent, published, context)],
      });
      return { position: row.position, record };
    });
  }
  const record = groupProduct({
    id: rowId(parent),
    title: wooCell(parent, WOO.name),
    description: descriptionOf(parent),
    url: urlOf(parent, context),
    images: [...wooList(parent, WOO.images), ...variations.flatMap((row) => wooList(row, WOO.images))],
    variants: variations.map((row) => variantOf(row, parent, published, context)),
  });
  return [{ position: parent.position, record }];
}

function group(row: ProfileRow): RowGroup {
  switch (wooKind(row)) {
    case "variation":
      return { key: wooCell(row, WOO.parent) || rowKey(row), open: true };
    case "variable": {
      const key = ownKey(row);
      const sku = wooCell(row, WOO.sku);
      return sku !== "" && sku !== key ? { key, alias: sku, open: true } : { key, open: true };
    }
    default:
      return { key: ownKey(row) };
  }
}

/**
 * WooCommerce's product CSV export (Products › Export): a variable product and its variations,
 * wherever the file writes them, make one product; `variants: "items"` makes one a variation.
 */
export const woocommerce: ImportProfile = {
  name: "woocommerce",
  formats: ["csv"],
  requires: ["shopUrl"],
  column: wooColumn,
  detect: isWooHeader,
  columnOf: wooColumnOf,
  group,
  products,
};
