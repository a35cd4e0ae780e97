// A CSV writer for tests: products to csvContent, so that tests state products rather than text.
import { PRODUCT_FIELDS, type Product } from "@catalog-kit/catalog-core";

/** Quotes a cell when it holds a comma, a quote, CR, LF, or starts/ends with white space. */
export function csvCell(text: string): string {
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function cellOf(product: Product, field: (typeof PRODUCT_FIELDS)[number]): string {
  const value = product[field];
  if (value === undefined) return "";
  if (field === "images") {
    const images = value as string[];
    return images.length === 1 && !(images[0] as string).startsWith("[")
      ? (images[0] as string)
      : JSON.stringify(images);
  }
  return String(value);
}

/** A test-side CSV writer: header of the given columns, one line per product, `eol` between lines. */
export function encodeCsv(
  products: readonly Product[],
  { columns = PRODUCT_FIELDS, eol = "\n" }: { columns?: readonly (typeof PRODUCT_FIELDS)[number][]; eol?: string } = {},
): string {
  const lines = [columns.join(",")];
  for (const product of products) lines.push(columns.map((field) => csvCell(cellOf(product, field))).join(","));
  return lines.join(eol) + eol;
}
