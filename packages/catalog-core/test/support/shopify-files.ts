// Shopify product CSVs as its exports write them, in both header sets, decoded into the rows the
// Shopify profile reads, and run through the grouping stage as an import runs them.
import { parse } from "csv-parse/sync";
import { checkProducts, type Place, Problems } from "../../src/parse.ts";
import { groupRows, type RowPart } from "../../src/profiles/grouping.ts";
import { type ProfileParameters, type ProfileRow, profileContext } from "../../src/profiles/profile.ts";
import { shopify } from "../../src/profiles/shopify.ts";

const GOOGLE = [
  "Google Shopping / Google Product Category",
  "Google Shopping / Gender",
  "Google Shopping / Age Group",
  "Google Shopping / MPN",
  "Google Shopping / Condition",
  "Google Shopping / Custom Product",
  "Google Shopping / Custom Label 0",
  "Google Shopping / Custom Label 1",
  "Google Shopping / Custom Label 2",
  "Google Shopping / Custom Label 3",
  "Google Shopping / Custom Label 4",
];

/** The header of Shopify's product export until 2024, with two markets and a metafield. */
export const LEGACY_HEADER = [
  "Handle",
  "Title",
  "Body (HTML)",
  "Vendor",
  "Product Category",
  "Type",
  "Tags",
  "Published",
  "Option1 Name",
  "Option1 Value",
  "Option1 Linked To",
  "Option2 Name",
  "Option2 Value",
  "Option2 Linked To",
  "Option3 Name",
  "Option3 Value",
  "Option3 Linked To",
  "Variant SKU",
  "Variant Grams",
  "Variant Inventory Tracker",
  "Variant Inventory Qty",
  "Variant Inventory Policy",
  "Variant Fulfillment Service",
  "Variant Price",
  "Variant Compare At Price",
  "Variant Requires Shipping",
  "Variant Taxable",
  "Unit Price Total Measure",
  "Unit Price Total Measure Unit",
  "Unit Price Base Measure",
  "Unit Price Base Measure Unit",
  "Variant Barcode",
  "Image Src",
  "Image Position",
  "Image Alt Text",
  "Gift Card",
  "SEO Title",
  "SEO Description",
  ...GOOGLE,
  "Color (product.metafields.shopify.color-pattern)",
  "Variant Image",
  "Variant Weight Unit",
  "Variant Tax Code",
  "Cost per item",
  "Included / United States",
  "Price / United States",
  "Compare At Price / United States",
  "Included / International",
  "Price / International",
  "Compare At Price / International",
  "Status",
];

/** The header of Shopify's current product export and template (2024+). */
export const CURRENT_HEADER = [
  "Title",
  "URL handle",
  "Description",
  "Vendor",
  "Product category",
  "Type",
  "Tags",
  "Published on online store",
  "Status",
  "SKU",
  "Barcode",
  "Option1 name",
  "Option1 value",
  "Option1 Linked To",
  "Option2 name",
  "Option2 value",
  "Option2 Linked To",
  "Option3 name",
  "Option3 value",
  "Option3 Linked To",
  "Price",
  "Price / International",
  "Compare-at price",
  "Compare-at price / International",
  "Cost per item",
  "Charge tax",
  "Tax code",
  "Unit price total measure",
  "Unit price total measure unit",
  "Unit price base measure",
  "Unit price base measure unit",
  "Inventory tracker",
  "Inventory quantity",
  "Continue selling when out of stock",
  "Weight value (grams)",
  "Weight unit for display",
  "Requires shipping",
  "Fulfillment service",
  "Product image URL",
  "Image position",
  "Image alt text",
  "Variant image URL",
  "Gift card",
  "SEO title",
  "SEO description",
  "Color (product.metafields.shopify.color-pattern)",
  "Google Shopping / Google product category",
  "Google Shopping / Gender",
  "Google Shopping / Age group",
  "Google Shopping / Manufacturer part number (MPN)",
  "Google Shopping / Ad group name",
  "Google Shopping / Ads labels",
  "Google Shopping / Condition",
  "Google Shopping / Custom product",
  "Google Shopping / Custom label 0",
  "Google Shopping / Custom label 1",
  "Google Shopping / Custom label 2",
  "Google Shopping / Custom label 3",
  "Google Shopping / Custom label 4",
  "Included / International",
];

function quote(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** A CSV of `header` whose rows give the named cells, every other cell empty, as Shopify writes them. */
export function shopifyCsv(header: readonly string[], rows: readonly Readonly<Record<string, string>>[]): string {
  for (const row of rows) {
    for (const name of Object.keys(row)) if (!header.includes(name)) throw new Error(`No column "${name}"`);
  }
  const lines = [header.map(quote).join(",")];
  for (const row of rows) lines.push(header.map((name) => quote(row[name] ?? "")).join(","));
  return `${lines.join("\n")}\n`;
}

/** The header of a CSV and its rows as the profile receives them: kept columns only, at their line. */
export function decodeShopify(text: string): { header: string[]; rows: ProfileRow[] } {
  const records = parse(text, { info: true }) as unknown as { record: string[]; info: { lines: number } }[];
  const header = records[0]?.record ?? [];
  const rows: ProfileRow[] = [];
  for (let i = 1; i < records.length; i++) {
    const { record } = records[i] as { record: string[] };
    const cells: Record<string, string> = {};
    header.forEach((name, column) => {
      if (shopify.column(name) === "kept") cells[name] = record[column] ?? "";
    });
    rows.push({ position: (records[i - 1]?.info.lines ?? 0) + 1, cells });
  }
  return { header, rows };
}

/** Records and positions the grouping stage makes of rows given in parts, its problems, and the schema's. */
export async function importShopify(parts: readonly (readonly ProfileRow[])[], parameters: ProfileParameters) {
  const problems = new Problems();
  const context = profileContext("csv", parameters, problems);
  const records: Record<string, unknown>[] = [];
  const positions: number[] = [];
  const input: RowPart[] = parts.map((rows) => ({ rows, count: rows.length }));
  for await (const part of groupRows(input, shopify, context)) {
    records.push(...(part.records as Record<string, unknown>[]));
    positions.push(...part.positions);
  }
  return { records, positions, problems: problems.list };
}

/** The schema's problems of records made from a file of `header`, each at its row and column. */
export function schemaProblems(records: readonly unknown[], positions: readonly number[], header: readonly string[]) {
  const problems = new Problems();
  const locate = (index: number, path: readonly PropertyKey[]): Place => ({
    row: positions[index] ?? 0,
    column: shopify.columnOf((path[0] ?? "id") as Parameters<typeof shopify.columnOf>[0], header),
  });
  checkProducts(records, locate, problems);
  return problems.list;
}
