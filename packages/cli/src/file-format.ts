// The formats of catalog files: what --format names, and what a file's name says when it is not
// given (`.csv`, `.ndjson`, `.jsonl`, `.json`, each maybe `.gz`).
import { UsageError } from "./options.ts";

/** A catalog file's format: CSV rows, NDJSON lines, or JSON (an array of products, or an import body). */
export type Format = "csv" | "ndjson" | "json";

/** How a file is sent: its format, and whether it is gzip (sent as it is, with Content-Encoding). */
export interface FileKind {
  readonly format: Format;
  readonly gzip: boolean;
}

const BY_EXTENSION: Readonly<Record<string, Format>> = { csv: "csv", ndjson: "ndjson", jsonl: "ndjson", json: "json" };

/** The value of `--format`, checked; undefined when it was not given. */
export function formatOption(value: string | undefined): Format | undefined {
  if (value === undefined) return undefined;
  if (value === "csv" || value === "ndjson" || value === "json") return value;
  throw new UsageError(`--format must be csv, ndjson or json, not ${value}`);
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
    if (format === undefined) throw new UsageError("Give the format of standard input: --format csv|ndjson|json");
    return { format, gzip: false };
  }
  const found = format ?? byName(file);
  if (found === undefined) {
    throw new UsageError(
      `Cannot tell the format of ${file}: give --format, or name it .csv, .ndjson, .jsonl or .json (maybe .gz)`,
    );
  }
  return { format: found, gzip: isGzip(file) };
}

/** What `export` writes to `file` (undefined or "-": standard output): `--format`, else the name's, else CSV. */
export function exportFormat(file: string | undefined, format: Format | undefined): Format {
  if (file !== undefined && file !== "-" && isGzip(file)) {
    throw new UsageError("export writes uncompressed files: pipe it to gzip instead");
  }
  return format ?? (file === undefined || file === "-" ? undefined : byName(file)) ?? "csv";
}
