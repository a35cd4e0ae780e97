// CSV decoding of an import: pieces of whole records to a table (by the fast scanner of
// csv-scanner.ts, or by csv-parse for anything unusual and for every error), then to product records.

import { isUtf8 } from "node:buffer";
import { CsvError, parse } from "csv-parse/sync";
import { CSV_DIALECT, type CsvTable, type Dialect, isBlank, scanCsv, scanPieces } from "./csv-scanner.ts";
import { isCatalogError } from "./errors.ts";
import { Problems, type Reading, type RecordPart } from "./parse.ts";
import { PRODUCT_FIELDS, REQUIRED_FIELDS } from "./product.ts";
import { clip, decodeText, LONE_SURROGATE } from "./text.ts";

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

/** How a native CSV is read besides its dialect: what an unknown column does, and the columns ignored so far. */
export interface HeaderRules {
  /** `"refuse"` (the default): an unknown column is a problem; `"ignore"`: it is listed in `ignored`. */
  readonly unknownColumns?: "refuse" | "ignore" | undefined;
  /** Filled with the columns ignored, in header order. */
  readonly ignored?: string[];
  /** The name of the profile whose platform writes this header, if any: a header that is not native then names it. */
  readonly detect?: ((header: readonly string[]) => string | undefined) | undefined;
  /** A merge's header: any columns, one of them `id` or `sku`, which name the products to change. */
  readonly merge?: boolean | undefined;
}

/**
 * The columns a header row names, in order: known field names (trimmed), none repeated, every
 * required one present (a merge's: `id` or `sku`). Each problem is added at the header's row and the column's name; an
 * ignored column is `undefined`. A header a platform writes is one problem that names its profile.
 */
export function readHeader(
  header: readonly string[],
  row: number,
  problems: Problems,
  rules: HeaderRules = {},
): (Field | undefined)[] {
  const names = header.map((name) => name.trim());
  const unknown = names.filter((name) => !FIELDS.has(name));
  const profile = unknown.length > 0 ? rules.detect?.(names) : undefined;
  if (profile !== undefined) {
    problems.add({
      row,
      column: unknown[0] as string,
      message: `This header is a ${profile} file's: import it with profile=${profile}`,
    });
    return [];
  }
  const ignore = rules.unknownColumns === "ignore";
  const columns: (Field | undefined)[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    if (!FIELDS.has(name)) {
      if (ignore) rules.ignored?.push(name);
      else problems.add({ row, column: name, message: `Unknown column "${clip(name)}"` });
      columns.push(undefined);
      continue;
    }
    if (seen.has(name)) problems.add({ row, column: name, message: `Column "${name}" is repeated` });
    seen.add(name);
    columns.push(name as Field);
  }
  if (rules.merge) {
    if (!seen.has("id") && !seen.has("sku"))
      problems.add({
        row,
        column: "id",
        message: 'A merge needs an "id" or a "sku" column, naming the products to change',
      });
    return columns;
  }
  for (const name of REQUIRED_FIELDS) {
    if (!seen.has(name)) problems.add({ row, column: name, message: `Required column "${name}" is missing` });
  }
  return columns;
}

/** One record's cells as a product record: typed cells, an empty cell = field absent, ignored columns skipped. */
export function toRecord(
  columns: readonly (Field | undefined)[],
  cells: readonly string[],
  restore?: (cell: string) => string,
): Record<string, unknown> {
  const product: Record<string, unknown> = {};
  for (let c = 0; c < columns.length; c++) {
    const column = columns[c];
    if (column === undefined) continue;
    const cell = restore === undefined ? (cells[c] as string) : restore(cells[c] as string);
    if (cell !== "") product[column] = convert(column, cell);
  }
  return product;
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
export function parseRecords(
  text: string,
  keep = Number.POSITIVE_INFINITY,
  firstLine = 1,
  dialect = CSV_DIALECT,
): CsvTable {
  const rows: number[] = [];
  let count = 0;
  let endLine = firstLine - 1;
  let emptyLines = 0;
  let records: string[][];
  try {
    records = parse(text, {
      bom: true,
      delimiter: dialect.delimiter,
      quote: dialect.quoted ? '"' : false,
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

// A lone surrogate (text given as such, see text.ts) would be read as U+FFFD by the scan. Each
// one is swapped for a private-use character the piece does not hold (same length, no line
// break, so rows stay put), and a cell holding that character gets its lone surrogate back after
// the scan, for the product schema to report at its row and column like any other bad cell.
const LONE = "\ud800";

function unusedCharacter(text: string): string | undefined {
  for (let code = 0xe000; code <= 0xf8ff; code++) {
    const candidate = String.fromCharCode(code);
    if (!text.includes(candidate)) return candidate;
  }
  return undefined;
}

// The row of the first line of `piece` (starting on line `first`) that is not text.
function firstBadLine(piece: Buffer, first: number): number {
  let at = first;
  for (let from = 0; from < piece.length; at++) {
    const lf = piece.indexOf(10, from);
    const to = lf === -1 ? piece.length : lf;
    if (decodeText(piece.subarray(from, to)) === undefined) break;
    from = to + 1;
  }
  return at;
}

/** A table read from pieces of whole records, and how to give a cell back its lone surrogates. */
export interface ReadTable {
  readonly table: CsvTable;
  readonly restore: ((cell: string) => string) | undefined;
}

/**
 * The table of pieces of whole records that follow one another, the first starting on line
 * `first`, read as their concatenation is (records past `keep` only counted); false, with the
 * problem added to `structure`, when they do not read (bad quoting, bytes that are not text).
 */
export function readTable(
  pieces: readonly Buffer[],
  first: number,
  keep: number,
  structure: Problems,
  dialect: Dialect,
): ReadTable | false {
  try {
    const scanned = scanPieces(pieces, keep, first, dialect);
    if (scanned !== undefined) return { table: scanned, restore: undefined };
    const piece = pieces.length > 1 ? Buffer.concat(pieces) : (pieces[0] as Buffer);
    if (isUtf8(piece)) {
      const table = scanCsv(piece, keep, first, dialect) ?? parseRecords(piece.toString("utf8"), keep, first, dialect);
      return { table, restore: undefined };
    }
    const text = decodeText(piece);
    const marker = text === undefined ? undefined : unusedCharacter(text);
    if (text === undefined || marker === undefined) {
      structure.add({ row: firstBadLine(piece, first), message: `The ${kindOf(dialect)} is not valid UTF-8` });
      return false;
    }
    const marked = text.replace(LONE_SURROGATE, marker);
    const restore = (cell: string) => (cell.includes(marker) ? cell.replaceAll(marker, LONE) : cell);
    return { table: scanCsv(marked, keep, first, dialect) ?? parseRecords(marked, keep, first, dialect), restore };
  } catch (error) {
    if (!isCatalogError(error, "INVALID_CSV")) throw error;
    for (const problem of error.problems) structure.add(problem);
    return false;
  }
}

/** Reads a delimited document from pieces of whole records: what `decodeDelimited` drives. */
export interface DocumentReader<Part> {
  /** The part of pieces that follow one another, the first starting on line `first`; false when reading must end. */
  read(pieces: readonly Buffer[], first: number): (Part & { readonly count: number }) | false;
  /** Ends the document. */
  end(): void;
}

/** What a dialect's documents are called in problems: "CSV" or "TSV". */
export const kindOf = (dialect: Dialect) => (dialect.quoted ? "CSV" : "TSV");

/** The problem of a document without a header. */
export const noHeader = (dialect: Dialect) => `The ${kindOf(dialect)} is empty: expected a header row`;

/**
 * Reads a CSV document (header of known columns, typed cells, an empty cell = field absent,
 * blank lines skipped) from pieces of whole records, rows counted as lines from the header = 1.
 * A record with the wrong number of cells is a problem added to `structure`, and reading goes
 * on; a problem that leaves the rest unreadable (a bad header, bad quoting, bytes that are not
 * text) is added and ends reading. Cell values are checked afterwards by the product schema.
 */
export class CsvReader implements DocumentReader<RecordPart> {
  private columns: (Field | undefined)[] | undefined;
  private readonly structure: Problems;
  private readonly reading: Reading;
  private readonly dialect: Dialect;
  private readonly rules: HeaderRules;

  constructor(
    structure: Problems,
    reading: Reading = { counting: false },
    dialect = CSV_DIALECT,
    rules: HeaderRules = {},
  ) {
    this.structure = structure;
    this.reading = reading;
    this.dialect = dialect;
    this.rules = rules;
  }

  read(pieces: readonly Buffer[], first: number): (RecordPart & { count: number }) | false {
    const { structure } = this;
    // Past the header, records are only counted once the import is known to be refused.
    const keep = this.reading.counting && this.columns !== undefined ? 0 : Number.POSITIVE_INFINITY;
    const read = readTable(pieces, first, keep, structure, this.dialect);
    if (read === false) return false;
    const { table, restore } = read;
    const records: unknown[] = [];
    const positions: number[] = [];
    let r = 0;
    if (this.columns === undefined) {
      const header = table.records[0];
      if (header === undefined) return { records, positions, count: 0 };
      const before = structure.count;
      const names = restore ? header.map(restore) : header;
      this.columns = readHeader(names, table.rows[0] as number, structure, this.rules);
      if (structure.count > before) return false;
      r = 1;
    }
    const { columns } = this;
    const start = r;
    for (; r < table.records.length; r++) {
      const cells = table.records[r] as string[];
      const row = table.rows[r] as number;
      if (cells.length !== columns.length) {
        structure.add({ row, message: `Expected ${columns.length} cells, found ${cells.length}` });
        continue;
      }
      records.push(toRecord(columns, cells, restore));
      positions.push(row);
    }
    return { records, positions, count: table.count - start };
  }

  end(): void {
    if (this.columns === undefined) this.structure.add({ row: 1, message: noHeader(this.dialect) });
  }
}
