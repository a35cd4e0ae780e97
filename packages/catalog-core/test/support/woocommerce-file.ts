// Files shaped as WooCommerce's product exporter writes them, and the records the WooCommerce
// profile makes of them through the grouping stage, for the profile's tests.
import { parse } from "csv-parse/sync";
import { Problems } from "../../src/parse.ts";
import { groupRows, type RowPart } from "../../src/profiles/grouping.ts";
import { type ProfileParameters, type ProfileRow, profileContext } from "../../src/profiles/profile.ts";
import { woocommerce } from "../../src/profiles/woocommerce.ts";

/** The shop the files are exported from. */
export const SHOP = "https://shop.example";

// The exporter's default columns in its order, then those of one attribute.
/** The exporter's header. */
export const HEADER = [
  "ID",
  "Type",
  "SKU",
  "GTIN, UPC, EAN, or ISBN",
  "Name",
  "Published",
  "Is featured?",
  "Visibility in catalog",
  "Short description",
  "Description",
  "Date sale price starts",
  "Date sale price ends",
  "Tax status",
  "Tax class",
  "In stock?",
  "Stock",
  "Low stock amount",
  "Backorders allowed?",
  "Sold individually?",
  "Weight (kg)",
  "Length (cm)",
  "Width (cm)",
  "Height (cm)",
  "Allow customer reviews?",
  "Purchase note",
  "Sale price",
  "Regular price",
  "Categories",
  "Tags",
  "Shipping class",
  "Images",
  "Download limit",
  "Download expiry days",
  "Parent",
  "Grouped products",
  "Upsells",
  "Cross-sells",
  "External URL",
  "Button text",
  "Position",
  "Brands",
  "Attribute 1 name",
  "Attribute 1 value(s)",
  "Attribute 1 visible",
  "Attribute 1 global",
  "Attribute 1 default",
];

// What the exporter writes for a published, visible, taxable product in stock.
const DEFAULTS: Readonly<Record<string, string>> = {
  Published: "1",
  "Is featured?": "0",
  "Visibility in catalog": "visible",
  "Tax status": "taxable",
  "In stock?": "1",
  "Backorders allowed?": "0",
  "Sold individually?": "0",
  "Allow customer reviews?": "1",
  Position: "0",
};

// PHP's fputcsv: a cell with a separator, quote, backslash or white space is quoted.
const csvCell = (text: string) => (/[,"\s\\]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);

/** A file as WooCommerce's exporter writes it (a BOM, the header, CRLF-free lines). */
export function wooFile(rows: readonly Readonly<Record<string, string>>[]): string {
  const lines = rows.map((row) => HEADER.map((column) => csvCell({ ...DEFAULTS, ...row }[column] ?? "")).join(","));
  return `\uFEFF${[HEADER.map(csvCell).join(","), ...lines].join("\n")}\n`;
}

/** The file's rows as the import decodes them: kept columns only, at the line each starts on. */
export function rowsOf(text: string): ProfileRow[] {
  const out = parse(text, { columns: true, bom: true, info: true }) as {
    record: Record<string, string>;
    info: { lines: number };
  }[];
  let line = 1;
  return out.map(({ record, info }) => {
    const cells = Object.fromEntries(Object.entries(record).filter(([name]) => woocommerce.column(name) === "kept"));
    const row = { position: line + 1, cells };
    line = info.lines;
    return row;
  });
}

/** The records of a file's rows, given in parts cut after the rows `cuts` names, and the problems. */
export async function importRows(
  rows: readonly ProfileRow[],
  parameters: ProfileParameters = {},
  cuts: number[] = [],
  now = Date.now(),
) {
  const problems = new Problems();
  const context = profileContext("csv", { shopUrl: SHOP, ...parameters }, problems, now);
  const parts: RowPart[] = [];
  let from = 0;
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b).concat(rows.length)) {
    parts.push({ rows: rows.slice(from, Math.max(from, cut)), count: Math.max(0, cut - from) });
    from = Math.max(from, cut);
  }
  const records: Record<string, unknown>[] = [];
  const positions: number[] = [];
  for await (const part of groupRows(parts, woocommerce, context)) {
    records.push(...(part.records as Record<string, unknown>[]));
    positions.push(...part.positions);
  }
  return { records, positions, problems };
}

/** The records of a file, in one part, and the problems. */
export const importFile = (text: string, parameters: ProfileParameters = {}, now = Date.now()) =>
  importRows(rowsOf(text), parameters, [], now);

/** Records by id. */
export const byId = (records: readonly Record<string, unknown>[]) => Object.fromEntries(records.map((r) => [r.id, r]));

/** An image the shop holds. */
export const image = (name: string) => `${SHOP}/wp-content/uploads/2024/05/${name}`;
