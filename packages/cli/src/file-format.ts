// The formats of catalog files: what --format names, and what a file's name says when it is not
// given (`.csv`, `.tsv`, `.ndjson`, `.jsonl`, `.json`, `.xml`, `.rss`, `.atom`, each maybe `.gz`).
import { UsageError } from "./options.ts";

/**
 * A catalog file's format: CSV or TSV rows, NDJSON lines, JSON (an array of products, or an import
 * body), or an XML feed (RSS or Atom, read by a profile).
 */
export type Format = "csv" | "tsv" | "ndjson" | "json" | "xml";

/** What `export` writes: the catalog's own formats (a feed is written by --profile). */
export type ExportFormat = "csv" | "ndjson" | "json";

const FORMATS: readonly Format[] = ["csv", "tsv", "ndjson", "json", "xml"];

/** How a file is sent: its format, and whether it is gzip (sent as it is, with Content-Encoding). */
export interface FileKind {
  readonly format: Format;
  readonly gzip: boolean;
}

const BY_EXTENSION: Readonly<Record<string, Format>> = {
  csv: "csv",
  tsv: "tsv",
  ndjson: "ndjson",
  jsonl: "ndjson",
  json: "json",
  xml: "xml",
  rss: "xml",
  atom: "xml",
};

/** The value of `--format`, checked; undefined when it was not given. */
export function formatOption(value: string | undefined): Format | undefined {
  if (value === undefined) return undefined;
  if ((FORMATS as readonly string[]).includes(value)) return value as Format;
  throw new UsageError(`--format must be csv, tsv, ndjson, json or xml, not ${value}`);
}

/** The value of export's `--format`, checked: the catalog's own formats only. */
export function exportFormatOption(value: string | undefined): ExportFormat | undefined {
  if (value === undefined || value === "csv" || value === "ndjson" || value === "json") return value;
  throw new UsageError(`export's --format must be csv, ndjson or json, not ${value}`);
}

function isGzip(file: string): boolean {
  return file.toLowerCase().endsWith(".gz");
}

function byName(file: string): Format | undefined {
  const name = isGzip(file) ? file.slice(0, -3) : file;
  return BY_EXTENSION[name.slice(name.lastIndexOf(".") + 1).toLowerCase()];
}

/** How `import` sends `file` ("-" is standard input): `--format` if given, else what the name says. */
export function importKind(file: string, format: Format | undefined): FileKind {
  if (file === "-") {
    if (format === undefined)
      throw new UsageError("Give the format of standard input: --format csv|tsv|ndjson|json|xml");
    return { format, gzip: false };
  }
  const found = format ?? byName(file);
  if (found === undefined) {
    throw new UsageError(
      `Cannot tell the format of ${file}: give --format, or name it .csv, .tsv, .ndjson, .jsonl, .json, .xml, .rss or .atom (maybe .gz)`,
    );
  }
  return { format: found, gzip: isGzip(file) };
}

/** What `export` writes to `file` (undefined or "-": standard output): `--format`, else the name's, else CSV. */
export function exportFormat(file: string | undefined, format: ExportFormat | undefined): ExportFormat {
  if (file !== undefined && file !== "-" && isGzip(file)) {
    throw new UsageError("export writes uncompressed files: pipe it to gzip instead");
  }
  if (format !== undefined) return format;
  const named = file === undefined || file === "-" ? undefined : byName(file);
  return named === "ndjson" || named === "json" ? named : "csv";
}
