// A CSV writer for tests: products to csvContent, so that tests state products rather than text.
// The records are the export's own (src/csv-write.ts); tests choose the columns and line ends.
import { PRODUCT_FIELDS, type Product } from "@catalog-kit/catalog-core";
import { csvRecord } from "../../src/csv-write.ts";

export { csvCell } from "../../src/csv-write.ts";

/** A test-side CSV document: header of the given columns, one line per product, `eol` between lines. */
export function encodeCsv(
  products: readonly Product[],
  { columns = PRODUCT_FIELDS, eol = "\n" }: { columns?: readonly (typeof PRODUCT_FIELDS)[number][]; eol?: string } = {},
): string {
  const lines = [columns.join(",")];
  for (const product of products) lines.push(csvRecord(product, columns));
  return lines.join(eol) + eol;
}
