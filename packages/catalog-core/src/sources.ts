// The channels of an import as sources of located records: a JSON list, one product, a CSV or
// NDJSON document (in memory or streamed). The engine (engine.ts) takes any of them alike.
import { decodeCsvStream } from "./csv-stream.ts";
import { decodeNdjson } from "./ndjson.ts";
import { type Place, type ProblemCode, Problems, type Reading, type RecordPart, toPointer } from "./parse.ts";
import { type ByteSource, toBuffers } from "./text.ts";

/** The formats of a document import: CSV as `importCsv` reads it, or NDJSON (one Product Object a line). */
export type StreamFormat = "csv" | "ndjson";

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

/**
 * The records of a CSV or NDJSON document as every import reads them, with their rows or lines
 * (`buffered` when the whole document is in memory); a tool may read a file with it before
 * sending it.
 */
export function documentSource(format: StreamFormat, body: ByteSource, buffered: boolean): RecordSource {
  const problems = new Problems();
  const bytes = toBuffers(body);
  const reading = { counting: false };
  if (format === "csv") {
    return {
      parts: decodeCsvStream(bytes, problems, reading),
      reading,
      locate: (row, path) => ({ row, column: String(path[0] ?? "") }),
      structure: { problems, code: "INVALID_CSV", what: "Malformed CSV" },
      buffered,
    };
  }
  return {
    parts: decodeNdjson(bytes, problems, reading),
    reading,
    locate: (line, path) => ({ line, pointer: toPointer(path) }),
    structure: { problems, code: "INVALID_JSON", what: "Malformed NDJSON" },
    buffered,
  };
}
