// The columns of Shopify's product CSV, in both header sets it has written: the one of its exports
// until 2024 (`Handle`, `Variant SKU`, `Image Src`) and the current one (`URL handle`, `SKU`,
// `Product image URL`). Names compare trimmed and without regard to case: between the two sets
// Shopify changed only the case of many names (`Option1 Name`, `Option1 name`), files made by other
// tools or edited by hand mix the two (`AdWords`, `Adwords`), and no two names of its lists differ
// only by case, so a different case never turns one column into another.
import type { Product } from "../product.ts";
import type { ProfileRow } from "./profile.ts";

/** What the profile reads from a row, whichever header set names it. */
export type ShopifyRole =
  | "handle"
  | "title"
  | "description"
  | "option1"
  | "option2"
  | "option3"
  | "sku"
  | "price"
  | "tracker"
  | "quantity"
  | "policy"
  | "image"
  | "imagePosition"
  | "variantImage"
  | "status"
  | "published";

// Each role's column as Shopify writes it: [in the legacy header, in the current header].
const ROLES: Readonly<Record<ShopifyRole, readonly [string, string]>> = {
  handle: ["Handle", "URL handle"],
  title: ["Title", "Title"],
  description: ["Body (HTML)", "Description"],
  option1: ["Option1 Value", "Option1 value"],
  option2: ["Option2 Value", "Option2 value"],
  option3: ["Option3 Value", "Option3 value"],
  sku: ["Variant SKU", "SKU"],
  price: ["Variant Price", "Price"],
  tracker: ["Variant Inventory Tracker", "Inventory tracker"],
  quantity: ["Variant Inventory Qty", "Inventory quantity"],
  policy: ["Variant Inventory Policy", "Continue selling when out of stock"],
  image: ["Image Src", "Product image URL"],
  imagePosition: ["Image Position", "Image position"],
  variantImage: ["Variant Image", "Variant image URL"],
  status: ["Status", "Status"],
  published: ["Published", "Published on online store"],
};

/** A column name as compared: trimmed, lower case. */
export function canonical(name: string): string {
  return name.trim().toLowerCase();
}

const ROLE_OF: ReadonlyMap<string, ShopifyRole> = new Map(
  (Object.entries(ROLES) as [ShopifyRole, readonly [string, string]][]).flatMap(([role, names]) =>
    names.map((name) => [canonical(name), role] as const),
  ),
);

// Every other column of Shopify's two lists: its own, read by nothing the catalog keeps.
const IGNORED: ReadonlySet<string> = new Set(
  [
    // Legacy header.
    "Vendor",
    "Product Category",
    "Standard Product Type",
    "Custom Product Type",
    "Type",
    "Tags",
    "Option1 Name",
    "Option1 Linked To",
    "Option2 Name",
    "Option2 Linked To",
    "Option3 Name",
    "Option3 Linked To",
    "Variant Grams",
    "Variant Fulfillment Service",
    "Variant Compare At Price",
    "Variant Requires Shipping",
    "Variant Taxable",
    "Unit Price Total Measure",
    "Unit Price Total Measure Unit",
    "Unit Price Base Measure",
    "Unit Price Base Measure Unit",
    "Variant Barcode",
    "Image Alt Text",
    "Gift Card",
    "SEO Title",
    "SEO Description",
    "Variant Weight Unit",
    "Variant Tax Code",
    "Cost per item",
    // Current header, where it differs.
    "Barcode",
    "Compare-at price",
    "Charge tax",
    "Tax code",
    "Weight value (grams)",
    "Weight unit for display",
    "Requires shipping",
    "Fulfillment service",
  ].map(canonical),
);

// Columns Shopify names after a market, a Google Shopping attribute or a metafield of the store.
const IGNORED_FAMILIES: readonly RegExp[] = [
  /^(?:price|compare at price|compare-at price|included) \/ ./,
  /^google shopping \/ ./,
  /\((?:product|variant)\.metafields\.[^.()]+\.[^()]+\)$/,
];

/** How the profile treats a column: read, Shopify's own and not kept, or unknown (`undefined`). */
export function shopifyColumn(name: string): "kept" | "ignored" | undefined {
  const key = canonical(name);
  if (ROLE_OF.has(key)) return "kept";
  if (IGNORED.has(key) || IGNORED_FAMILIES.some((family) => family.test(key))) return "ignored";
  return undefined;
}

/** Whether a header is plainly Shopify's: a handle column beside a column only Shopify writes with it. */
export function isShopifyHeader(header: readonly string[]): boolean {
  const names = new Set(header.map(canonical));
  const any = (list: readonly string[]) => list.some((name) => names.has(name));
  if (names.has("handle")) return any(["variant sku", "variant price", "image src", "body (html)", "option1 value"]);
  if (names.has("url handle")) {
    return any([
      "product image url",
      "variant image url",
      "sku",
      "price",
      "option1 value",
      "published on online store",
    ]);
  }
  return false;
}

const FIELD_ROLES: Readonly<Record<keyof Product, ShopifyRole>> = {
  id: "handle",
  sku: "sku",
  title: "title",
  description: "description",
  price: "price",
  price_min: "price",
  price_max: "price",
  // Made of the variants' stock and the product's status: the status is the value a reader checks.
  available: "status",
  images: "image",
  featured_image: "image",
  url: "handle",
};

/**
 * The column a product field is read from, as `header` writes it; Shopify's name in the header set
 * in use when the header lacks it. The legacy set when the header has no `URL handle` (an empty one).
 */
export function shopifyColumnOf(field: keyof Product, header: readonly string[]): string {
  const names = ROLES[FIELD_ROLES[field]];
  const current = header.some((name) => canonical(name) === "url handle");
  const wanted = current ? names[1] : names[0];
  return header.find((name) => canonical(name) === canonical(wanted)) ?? wanted;
}

/** Where each role's cells are in a file's rows: its column as the file writes it. */
export type ShopifyColumns = Readonly<Partial<Record<ShopifyRole, string>>>;

// The columns of the last header seen: the rows of a CSV all have its names, and finding roles by
// canonical names measured 8% of a Shopify import when done for each group.
let known: { readonly names: string; readonly columns: ShopifyColumns } | undefined;

/** The columns of rows, found by their names; the first of a role wins. */
export function shopifyColumns(rows: readonly ProfileRow[]): ShopifyColumns {
  const first = Object.keys(rows[0]?.cells ?? {});
  const same = rows.every((row) => Object.keys(row.cells).length === first.length);
  const names = same ? first.join("\n") : undefined;
  if (names !== undefined && known?.names === names) return known.columns;
  const columns: Partial<Record<ShopifyRole, string>> = {};
  const seen = new Set<string>();
  for (const row of rows) {
    for (const name in row.cells) {
      if (seen.has(name)) continue;
      seen.add(name);
      const role = ROLE_OF.get(canonical(name));
      if (role !== undefined && columns[role] === undefined) columns[role] = name;
    }
  }
  if (names !== undefined) known = { names, columns };
  return columns;
}

/** The handle of a row, from either header set's column, as written. */
export function handleCell(row: ProfileRow): string {
  const cells = row.cells;
  let value = cells.Handle ?? cells["URL handle"];
  if (value === undefined) {
    for (const name in cells) {
      if (ROLE_OF.get(canonical(name)) === "handle") {
        value = cells[name];
        break;
      }
    }
  }
  return (typeof value === "string" ? value : value?.[0]) ?? "";
}
