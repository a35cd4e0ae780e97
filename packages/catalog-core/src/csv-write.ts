// Writing products as CSV in the format importCsv reads, so that an export imports back whole.
import { PRODUCT_FIELDS, type Product } from "./product.ts";

type Field = (typeof PRODUCT_FIELDS)[number];

/** A cell as CSV writes it: quoted when it holds a comma, a quote, CR or LF, or starts or ends with white space. */
export function csvCell(text: string): string {
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

// What a spreadsheet reads as the start of a formula (OWASP, "CSV Injection"), a tab or CR
// included: some spreadsheets drop one and read what follows.
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A cell of a report people open in a spreadsheet: a text a spreadsheet would run as a formula
 * (one that starts with `=`, `+`, `-`, `@`, a tab or CR) starts with `'`, which shows it as text;
 * then written as `csvCell` writes it. Not for an export, which must import back as it is.
 */
export function reportCell(text: string): string {
  return csvCell(FORMULA_START.test(text) ? `'${text}` : text);
}

/**
 * A number in plain decimal, which is all a CSV import accepts: `String(n)` when it has no
 * exponent, else the same digits with the exponent written out (`1e-7` is `0.0000001`), so
 * that it reads back as the same number.
 */
export function plainNumber(n: number): string {
  const text = String(n);
  const e = text.indexOf("e");
  if (e === -1) return text;
  const sign = text.startsWith("-") ? "-" : "";
  const mantissa = text.slice(sign.length, e);
  const point = mantissa.indexOf(".");
  const digits = mantissa.replace(".", "");
  const at = (point === -1 ? mantissa.length : point) + Number(text.slice(e + 1));
  if (at <= 0) return `${sign}0.${"0".repeat(-at)}${digits}`;
  if (at >= digits.length) return `${sign}${digits}${"0".repeat(at - digits.length)}`;
  return `${sign}${digits.slice(0, at)}.${digits.slice(at)}`;
}

function cellOf(product: Product, field: Field): string {
  const value = product[field];
  if (value === undefined) return "";
  if (typeof value === "number") return plainNumber(value);
  if (Array.isArray(value)) {
    // One image that does not look like a JSON array is written plain, as people write it.
    const [only] = value;
    return value.length === 1 && only !== undefined && !only.startsWith("[") ? only : JSON.stringify(value);
  }
  return String(value);
}

/** A product as one CSV record of `columns` (every field, in the spec's order, by default), without its line end. */
export function csvRecord(product: Product, columns: readonly Field[] = PRODUCT_FIELDS): string {
  let line = "";
  for (let i = 0; i < columns.length; i++) line += (i === 0 ? "" : ",") + csvCell(cellOf(product, columns[i] as Field));
  return line;
}

/** The header record of an export: every field, in the spec's order. */
export const CSV_HEADER: string = PRODUCT_FIELDS.join(",");
