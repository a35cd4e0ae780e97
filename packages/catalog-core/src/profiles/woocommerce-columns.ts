// The columns of WooCommerce's product CSV exporter (WC_Product_CSV_Exporter): those read into
// products, the platform's others (ignored), and those it names per file (attributes, downloads,
// meta data, weight and dimensions in the shop's units).
import type { Product } from "../product.ts";

/** The columns a WooCommerce product is read from, by what they hold. */
export const WOO = {
  id: "ID",
  type: "Type",
  sku: "SKU",
  name: "Name",
  published: "Published",
  shortDescription: "Short description",
  description: "Description",
  saleStarts: "Date sale price starts",
  saleEnds: "Date sale price ends",
  inStock: "In stock?",
  salePrice: "Sale price",
  regularPrice: "Regular price",
  images: "Images",
  parent: "Parent",
  externalUrl: "External URL",
} as const;

const KEPT: ReadonlySet<string> = new Set(Object.values(WOO));

// The exporter's other default columns, and those WooCommerce's own extensions add (Brands, the
// cost of goods).
const IGNORED: ReadonlySet<string> = new Set([
  "GTIN, UPC, EAN, or ISBN",
  "Is featured?",
  "Visibility in catalog",
  "Tax status",
  "Tax class",
  "Stock",
  "Low stock amount",
  "Backorders allowed?",
  "Sold individually?",
  "Allow customer reviews?",
  "Purchase note",
  "Categories",
  "Tags",
  "Shipping class",
  "Download limit",
  "Download expiry days",
  "Grouped products",
  "Upsells",
  "Cross-sells",
  "Button text",
  "Position",
  "Brands",
  "Cost of goods",
]);

// Columns the exporter numbers or names per file; the units are the shop's (`Weight (lbs)`).
const IGNORED_PATTERNS: readonly RegExp[] = [
  /^(?:Weight|Length|Width|Height) \([^)]+\)$/,
  /^Attribute \d+ (?:name|value\(s\)|visible|global|default)$/,
  /^Download \d+ (?:ID|name|URL)$/,
  /^Meta: ./,
];

/** How WooCommerce's column `name` is treated: kept, the platform's and ignored, or unknown. */
export function wooColumn(name: string): "kept" | "ignored" | undefined {
  if (KEPT.has(name)) return "kept";
  if (IGNORED.has(name) || IGNORED_PATTERNS.some((pattern) => pattern.test(name))) return "ignored";
  return undefined;
}

// Columns only WooCommerce's exporter writes: a header with two of them besides Type and Name is its.
const DISTINCTIVE = [
  WOO.inStock,
  WOO.regularPrice,
  WOO.published,
  WOO.parent,
  "Is featured?",
  "Visibility in catalog",
  "Backorders allowed?",
];

/** Whether a header is WooCommerce's: Type, Name, an ID or SKU, and two of its own columns. */
export function isWooHeader(header: readonly string[]): boolean {
  const names = new Set(header.map((name) => name.trim()));
  if (!names.has(WOO.type) || !names.has(WOO.name) || !(names.has(WOO.id) || names.has(WOO.sku))) return false;
  return DISTINCTIVE.filter((name) => names.has(name)).length >= 2;
}

/** The column a product field is read from: the first of its columns the header has. */
export function wooColumnOf(field: keyof Product, header: readonly string[]): string {
  const first = (...columns: string[]) => columns.find((column) => header.includes(column)) ?? (columns[0] as string);
  switch (field) {
    case "id":
      return first(WOO.id, WOO.sku);
    case "sku":
      return WOO.sku;
    case "title":
      return WOO.name;
    case "description":
      return first(WOO.description, WOO.shortDescription);
    case "price":
    case "price_min":
    case "price_max":
      return first(WOO.regularPrice, WOO.salePrice);
    case "available":
      return first(WOO.inStock, WOO.published);
    case "images":
    case "featured_image":
      return WOO.images;
    case "url":
      return first(WOO.externalUrl, WOO.id);
  }
}
