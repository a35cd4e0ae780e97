// The channels of an import as sources of located records: a JSON list, one product, a CSV,
// TSV, NDJSON or XML document (in memory or streamed), natively or through a platform's profile.
// The engine (engine.ts) takes any of them alike.
import { CsvReader } from "./csv.ts";
import { CSV_DIALECT, type Dialect } from "./csv-scanner.ts";
import { decodeDelimited } from "./csv-stream.ts";
import { decodeNdjson } from "./ndjson.ts";
import { type Place, type ProblemCode, Problems, type Reading, type RecordPart, toPointer } from "./parse.ts";
import type { Product } from "./product.ts";
import { ColumnCheck } from "./profiles/columns.ts";
import { groupRows, type RowPart } from "./profiles/grouping.ts";
import {
  type ImportProfile,
  type ProfileFormat,
  type ProfileParameters,
  type ProfileRow,
  profileContext,
} from "./profiles/profile.ts";
import { RowReader } from "./profiles/rows.ts";
import { type ByteSource, toBuffers } from "./text.ts";
import { decodeXmlItems } from "./xml-items.ts";

/**
 * The formats of a document import: CSV as `importCsv` reads it, TSV (tab-separated, no quoting),
 * NDJSON (one Product Object a line), or an XML feed (RSS 2.0 or Atom, through a profile).
 */
export type StreamFormat = "csv" | "tsv" | "ndjson" | "xml";

/** How a document import reads its file besides its format. */
export interface DocumentOptions {
  /** A platform's profile; `"native"` or absent: the catalog's own columns. */
  readonly profile?: ImportProfile | "native";
  /** What the file lacks that the profile needs. */
  readonly parameters?: ProfileParameters;
  /** The delimiter of a CSV: `,` (the default), `;`, a tab or `|`. */
  readonly delimiter?: Dialect["delimiter"];
  /** `"ignore"`: columns nobody knows are listed in `ignoredColumns` rather than refused. */
  readonly unknownColumns?: "refuse" | "ignore";
  /** The profile whose platform writes a native header, if any: such a header is refused naming it. */
  readonly detect?: (header: readonly string[]) => string | undefined;
  /** The document's records are a merge's: a native header needs only `id` or `sku`. */
  readonly merge?: boolean;
}

/** What an import of a document says besides its counts: how it was read, and the columns it did not keep. */
export interface DocumentReport {
  readonly profile: string;
  readonly ignoredColumns: readonly string[];
}

/** The records of an import as they are decoded, each part with the positions of its records. */
export interface RecordSource {
  readonly parts: AsyncIterable<RecordPart> | Iterable<RecordPart>;
  /** Where a problem of the record at `position` lies, given the path inside the record. */
  readonly locate: (position: number, path: readonly PropertyKey[]) => Place;
  /** Problems of the document's structure, found while decoding, and how they are reported. */
  readonly structure?: { readonly problems: Problems; readonly code: ProblemCode; readonly what: string };
  /** Whether the whole import is already in memory: past the limit, its records are still counted. */
  readonly buffered: boolean;
  /** How the document is read: the engine sets `counting` once the import is past its limit. */
  readonly reading?: Reading;
  /** Problems of values found while decoding (a profile's price that does not read): as the schema's. */
  readonly values?: Problems;
  /** What the summary says of how the document was read, filled while it is. */
  readonly report?: DocumentReport;
}

/** The records of `{ products: [...] }`, positions their indexes. */
export function listSource(products: readonly unknown[]): RecordSource {
  return {
    parts: [{ records: products, positions: products.map((_, i) => i) }],
    locate: (i, path) => ({ pointer: toPointer(["products", i, ...path]) }),
    buffered: true,
  };
}

/** The record of `{ product: {...} }`. */
export function productSource(product: unknown): RecordSource {
  return {
    parts: [{ records: [product], positions: [0] }],
    locate: (_, path) => ({ pointer: toPointer(["product", ...path]) }),
    buffered: true,
  };
}

const TSV: Dialect = { delimiter: "\t", quoted: false };
const WHAT = { csv: "Malformed CSV", tsv: "Malformed TSV", xml: "Malformed XML feed" } as const;

/**
 * The records of a CSV, TSV, NDJSON or XML document as every import reads it, with their rows,
 * lines or items (`buffered` when the whole document is in memory); a tool may read a file with
 * it before sending it. A profile reads the platform's file into the catalog's records.
 */
export function documentSource(
  format: StreamFormat,
  body: ByteSource,
  buffered: boolean,
  options: DocumentOptions = {},
): RecordSource {
  const problems = new Problems();
  const bytes = toBuffers(body);
  const reading = { counting: false };
  if (format === "ndjson") {
    return {
      parts: decodeNdjson(bytes, problems, reading),
      reading,
      locate: (line, path) => ({ line, pointer: toPointer(path) }),
      structure: { problems, code: "INVALID_JSON", what: "Malformed NDJSON" },
      buffered,
    };
  }
  const { profile } = options;
  if (format === "xml") {
    if (profile === undefined || profile === "native") throw new TypeError("An XML feed is read through a profile");
    return profileSource(profile, "xml", problems, buffered, options, (columns) => ({
      rows: keptElements(decodeXmlItems(bytes, problems), columns),
      header: () => [],
    }));
  }
  const dialect = format === "tsv" ? TSV : { ...CSV_DIALECT, delimiter: options.delimiter ?? "," };
  if (profile === undefined || profile === "native") {
    const ignoredColumns: string[] = [];
    const shown = profile !== undefined || options.unknownColumns !== undefined;
    const rules = {
      unknownColumns: options.unknownColumns,
      ignored: ignoredColumns,
      detect: options.detect,
      merge: options.merge,
    };
    return {
      parts: decodeDelimited(bytes, new CsvReader(problems, reading, dialect, rules), problems, dialect),
      reading,
      locate: (row, path) => ({ row, column: String(path[0] ?? "") }),
      structure: { problems, code: "INVALID_CSV", what: WHAT[format] },
      buffered,
      ...(shown ? { report: { profile: "native", ignoredColumns } } : {}),
    };
  }
  return profileSource(profile, format, problems, buffered, options, (columns) => {
    const reader = new RowReader(problems, columns, dialect);
    return { rows: decodeDelimited(bytes, reader, problems, dialect), header: () => reader.header ?? [] };
  });
}

// The rows of an XML feed, each item's elements checked by the profile's columns as they are met:
// an unknown one is a problem at its first item, the platform's others are listed as ignored.
// Each name is judged once, at its first item, and kept or not by its judgement after that.
async function* keptElements(parts: AsyncIterable<RowPart>, columns: ColumnCheck): AsyncGenerator<RowPart> {
  const kept = new Map<string, boolean>();
  for await (const part of parts) {
    const rows: ProfileRow[] = new Array(part.rows.length);
    for (let r = 0; r < rows.length; r++) {
      const row = part.rows[r] as ProfileRow;
      const cells: Record<string, string | readonly string[]> = {};
      const names = Object.keys(row.cells);
      for (let n = 0; n < names.length; n++) {
        const name = names[n] as string;
        let keep = kept.get(name);
        if (keep === undefined) {
          keep = columns.treat(name, () => ({ item: row.position, element: name })) === "kept";
          kept.set(name, keep);
        }
        if (keep) cells[name] = row.cells[name] as string | readonly string[];
      }
      rows[r] = { position: row.position, cells };
    }
    yield { rows, count: part.count };
  }
}

// The source of a platform's file read through its profile: the rows `decode` reads, each column
// checked by the profile, grouped into products; `header` names the columns once they are read.
function profileSource(
  profile: ImportProfile,
  format: ProfileFormat,
  problems: Problems,
  buffered: boolean,
  options: DocumentOptions,
  decode: (columns: ColumnCheck) => { rows: AsyncIterable<RowPart>; header: () => readonly string[] },
): RecordSource {
  const values = new Problems();
  const context = profileContext(format, options.parameters ?? {}, values);
  const columns = new ColumnCheck(profile, problems, options.unknownColumns === "ignore");
  const { rows, header } = decode(columns);
  return {
    parts: groupRows(rows, profile, context),
    locate: (position, path) =>
      context.place({ position, cells: {} }, profile.columnOf(path[0] as keyof Product, header())),
    structure: { problems, code: format === "xml" ? "INVALID_XML" : "INVALID_CSV", what: WHAT[format] },
    values,
    buffered,
    report: { profile: profile.name, ignoredColumns: columns.ignored },
  };
}
