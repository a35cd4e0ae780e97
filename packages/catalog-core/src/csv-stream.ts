// CSV decoding of a streamed import: the bytes cut into pieces of whole records while they
// arrive, each piece read as csv.ts reads a whole document, rows counted across pieces.
import { isUtf8 } from "node:buffer";
import { type Field, parseRecords, readHeader, toRecord } from "./csv.ts";
import { scanCsv } from "./csv-scanner.ts";
import { isCatalogError } from "./errors.ts";
import type { StreamRecords } from "./ndjson.ts";
import { Problems } from "./parse.ts";

/** Longest record accepted: far above the largest valid product. */
export const MAX_RECORD_BYTES = 8 * 1024 * 1024;

const QUOTE = 34;
const LF = 10;

// The last LF of `chunk` that ends a record, given whether the chunk starts inside quotes: a LF
// outside quotes, where the quotes seen so far are even (a doubled quote counts twice).
function lastBoundary(chunk: Buffer, quoted: boolean): { boundary: number; quoted: boolean } {
  let boundary = -1;
  for (let pos = 0; pos < chunk.length; ) {
    const quote = chunk.indexOf(QUOTE, pos);
    const end = quote === -1 ? chunk.length : quote;
    if (!quoted && end > pos) {
      const lf = chunk.lastIndexOf(LF, end - 1);
      if (lf >= pos) boundary = lf;
    }
    if (quote === -1) break;
    quoted = !quoted;
    pos = quote + 1;
  }
  return { boundary, quoted };
}

function countLf(bytes: Buffer): number {
  let count = 0;
  for (let at = bytes.indexOf(LF); at !== -1; at = bytes.indexOf(LF, at + 1)) count++;
  return count;
}

/**
 * Decodes a streamed CSV document by the rules of `decodeCsv` (header of known columns, typed
 * cells, blank lines skipped, rows counted as lines from the header = 1). Yields the records of
 * each piece of whole records, with their rows as positions. A record with the wrong number of
 * cells is a problem added to `structure`, and decoding goes on; a problem that leaves the rest
 * unreadable (a bad header, bad quoting, bytes that are not UTF-8) is added and ends decoding.
 */
export async function* decodeCsvStream(
  source: AsyncIterable<Buffer>,
  structure: Problems,
): AsyncGenerator<StreamRecords> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let quoted = false;
  let line = 1;
  let columns: Field[] | undefined;

  // The records of a piece of whole records starting on line `first`; false when decoding must end.
  function read(piece: Buffer, first: number): StreamRecords | false {
    if (!isUtf8(piece)) {
      let at = first;
      for (const text of piece.toString("latin1").split("\n")) {
        if (!isUtf8(Buffer.from(text, "latin1"))) break;
        at++;
      }
      structure.add({ row: at, message: "The CSV is not valid UTF-8" });
      return false;
    }
    let table: ReturnType<typeof scanCsv>;
    try {
      table = scanCsv(piece, Number.POSITIVE_INFINITY, first) ?? parseRecords(piece.toString("utf8"), undefined, first);
    } catch (error) {
      if (!isCatalogError(error, "INVALID_CSV")) throw error;
      for (const problem of error.problems) structure.add(problem);
      return false;
    }
    const records: unknown[] = [];
    const positions: number[] = [];
    let r = 0;
    if (columns === undefined) {
      const header = table.records[0];
      if (header === undefined) return { records, positions };
      const problems = new Problems();
      columns = readHeader(header, table.rows[0] as number, problems);
      for (const problem of problems.list) structure.add(problem);
      if (problems.count > 0) return false;
      r = 1;
    }
    for (; r < table.records.length; r++) {
      const cells = table.records[r] as string[];
      const row = table.rows[r] as number;
      if (cells.length !== columns.length) {
        structure.add({ row, message: `Expected ${columns.length} cells, found ${cells.length}` });
        continue;
      }
      records.push(toRecord(columns, cells));
      positions.push(row);
    }
    return { records, positions };
  }

  for await (const chunk of source) {
    const found = lastBoundary(chunk, quoted);
    quoted = found.quoted;
    if (found.boundary === -1) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes > MAX_RECORD_BYTES) {
        structure.add({
          row: line,
          message: `A record longer than ${MAX_RECORD_BYTES} bytes, or a quote never closed`,
        });
        return;
      }
      continue;
    }
    pending.push(chunk.subarray(0, found.boundary + 1));
    const piece = pending.length === 1 ? (pending[0] as Buffer) : Buffer.concat(pending);
    const rest = chunk.subarray(found.boundary + 1);
    pending = rest.length > 0 ? [rest] : [];
    pendingBytes = rest.length;
    const out = read(piece, line);
    if (out === false) return;
    line += countLf(piece);
    if (out.records.length > 0) yield out;
  }
  if (pendingBytes > 0) {
    const piece = Buffer.concat(pending);
    const out = read(piece, line);
    if (out === false) return;
    if (out.records.length > 0) yield out;
  }
  if (columns === undefined) structure.add({ row: 1, message: "The CSV is empty: expected a header row" });
}
