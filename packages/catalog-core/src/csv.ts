// CSV decoding of an import: the text to a table (by the fast scanner of csv-scanner.ts, or by
// csv-parse for anything unusual and for every error), then the table to product records.
import { CsvError, parse } from "csv-parse/sync";
import { type CsvTable, isBlank, scanCsv } from "./csv-scanner.ts";
import { type Locator, Problems } from "./parse.ts";
import { PRODUCT_FIELDS, REQUIRED_FIELDS } from "./product.ts";

/** Product records decoded from CSV, not yet validated, with the line each record starts on. */
export interface CsvRecords {
  readonly records: readonly Record<string, unknown>[];
  /** 1-based line of csvContent on which each record starts (header = line 1). */
  readonly rows: readonly number[];
  /** Data records in csvContent; over `maxRecords`, none of them is decoded and `records` is empty. */
  readonly total: number;
  /** Locates a problem of record `index` at its row and the column named by the path. */
  readonly locate: Locator;
}

/** A product field, as a CSV column names it. */
export type Field = (typeof PRODUCT_FIELDS)[number];
const FIELDS: ReadonlySet<string> = new Set(PRODUCT_FIELDS);

const NUMBER = /^-?\d+(?:\.\d+)?$/;

// A cell that does not convert is passed on as text, so the schema reports it with the others.
function convert(field: Field, cell: string): unknown {
  switch (field) {
    case "price":
    case "price_min":
    case "price_max":
      return NUMBER.test(cell) ? Number(cell) : cell;
    case "available": {
      const lower = cell.toLowerCase();
      return lower === "true" ? true : lower === "false" ? false : cell;
    }
    case "images":
      if (!cell.startsWith("[")) return [cell];
      try {
        return JSON.parse(cell);
      } catch {
        return cell;
      }
    default:
      return cell;
  }
}

/**
 * The columns a header row names, in order: known field names (trimmed), none repeated, every
 * required one present. Each problem is added at the header's row and the column's name.
 */
export function readHeader(header: readonly string[], row: number, problems: Problems): Field[] {
  const columns = header.map((name) => name.trim()) as Field[];
  const seen = new Set<string>();
  for (const name of columns) {
    if (!FIELDS.has(name)) problems.add({ row, column: name, message: `Unknown column "${clip(name)}"` });
    else if (seen.has(name)) problems.add({ row, column: name, message: `Column "${name}" is repeated` });
    seen.add(name);
  }
  for (const name of REQUIRED_FIELDS) {
    if (!seen.has(name)) problems.add({ row, column: name, message: `Required column "${name}" is missing` });
  }
  return columns;
}

/** One record's cells as a product record: typed cells, an empty cell = field absent. */
export function toRecord(
  columns: readonly Field[],
  cells: readonly string[],
  restore?: (cell: string) => string,
): Record<string, unknown> {
  const product: Record<string, unknown> = {};
  for (let c = 0; c < columns.length; c++) {
    const cell = restore === undefined ? (cells[c] as string) : restore(cells[c] as string);
    if (cell !== "") product[columns[c] as Field] = convert(columns[c] as Field, cell);
  }
  return product;
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function countNewlines(record: readonly string[]): number {
  let count = 0;
  for (const cell of record) {
    for (let at = cell.indexOf("\n"); at !== -1; at = cell.indexOf("\n", at + 1)) count++;
  }
  return count;
}

/**
 * The table csv-parse reads, with row numbers counted here from `firstLine` (a streamed document
 * is read in pieces of whole records); throws `INVALID_CSV` with its message.
 */
export function parseRecords(text: string, keep = Number.POSITIVE_INFINITY, firstLine = 1): CsvTable {
  const rows: number[] = [];
  let count = 0;
  let endLine = firstLine - 1;
  let emptyLines = 0;
  let records: string[][];
  try {
    records = parse(text, {
      bom: true,
      record_delimiter: ["\r\n", "\n"],
      relax_column_count: true,
      skip_empty_lines: true,
      // csv-parse's own line count treats every CR as a line break; count LF-ended lines ourselves.
      on_record: (record: string[], context) => {
        const start = endLine + 1 + (context.empty_lines - emptyLines);
        emptyLines = context.empty_lines;
        endLine = start + countNewlines(record);
        if (isBlank(record) || ++count > keep) return null;
        rows.push(start);
        return record;
      },
    });
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    const problems = new Problems();
    problems.add({ row: endLine + 1, message: error.message.replace(/ at line \d+/, "") });
    problems.throwIfAny("INVALID_CSV", "Malformed CSV");
    throw error;
  }
  return { records, rows, count };
}

// A lone surrogate would be read as U+FFFD by the UTF-8 scan and stored as such. Each one is
// swapped for a private-use character the text does not hold (same length, no line break, so
// rows stay put), and a cell holding that character gets a lone surrogate back after the scan,
// for the product schema to report at its row and column like any other bad cell.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const LONE = "\ud800";

function unusedCharacter(text: string): string | undefined {
  for (let code = 0xe000; code <= 0xf8ff; code++) {
    const candidate = String.fromCharCode(code);
    if (!text.includes(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Decodes csvContent into product records: header of known field names (any order, optional
 * columns may be absent), typed cells, an empty cell = field absent. Throws `INVALID_CSV` for the
 * document's structure; cell values are checked afterwards by the product schema. A document of
 * more than `maxRecords` records is only counted (`total`), so that the caller can refuse it.
 */
export function decodeCsv(csvContent: string, maxRecords = Number.POSITIVE_INFINITY): CsvRecords {
  let text = csvContent;
  let marker: string | undefined;
  if (!text.isWellFormed()) {
    marker = unusedCharacter(text);
    if (marker === undefined) {
      // Every private-use character in one document: refuse it whole rather than guess.
      const problems = new Problems();
      problems.add({ pointer: "/csvContent", message: "Must be well-formed Unicode (no lone surrogates)" });
      problems.throwIfAny("VALIDATION_FAILED", "csvContent must be well-formed Unicode");
    }
    text = text.replace(LONE_SURROGATE, marker as string);
  }
  const { records: table, rows: lines, count } = scanCsv(text, maxRecords + 1) ?? parseRecords(text, maxRecords + 1);
  const total = Math.max(count - 1, 0);
  if (total > maxRecords) return { records: [], rows: [], total, locate: () => ({}) };
  const structure = new Problems();
  const header = table[0];
  if (header === undefined) {
    structure.add({ row: 1, message: "The CSV is empty: expected a header row" });
    structure.throwIfAny("INVALID_CSV", "Malformed CSV");
  }
  const headerRow = lines[0] as number;
  const restore = (cell: string) =>
    marker !== undefined && cell.includes(marker) ? cell.replaceAll(marker, LONE) : cell;
  const columns = readHeader((header as string[]).map(restore), headerRow, structure);
  for (let r = 1; r < table.length; r++) {
    const length = (table[r] as string[]).length;
    if (length !== columns.length)
      structure.add({ row: lines[r] as number, message: `Expected ${columns.length} cells, found ${length}` });
  }
  structure.throwIfAny("INVALID_CSV", "Malformed CSV");

  const rows = lines.slice(1);
  const records: Record<string, unknown>[] = new Array(rows.length);
  for (let r = 1; r < table.length; r++) records[r - 1] = toRecord(columns, table[r] as string[], restore);
  const locate: Locator = (index, path) => ({ row: rows[index] as number, column: String(path[0] ?? "") });
  return { records, rows, total, locate };
}
