// CSV decoding of an import: the bytes cut into pieces of whole records while they arrive, each
// piece read by csv.ts, rows counted across pieces.
import { CsvReader } from "./csv.ts";
import type { Problems, Reading, RecordPart } from "./parse.ts";

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
 * Decodes a CSV document by the rules of `CsvReader` while its bytes arrive: cut into pieces of
 * whole records, each read as it comes, rows counted across pieces. Yields the records of each
 * piece, with their rows as positions; problems go to `structure`.
 */
export async function* decodeCsvStream(
  source: AsyncIterable<Buffer>,
  structure: Problems,
  reading?: Reading,
): AsyncGenerator<RecordPart> {
  const reader = new CsvReader(structure, reading);
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let quoted = false;
  let line = 1;
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
    const out = reader.read(piece, line);
    if (out === false) return;
    line += countLf(piece);
    if (out.count > 0) yield out;
  }
  if (pendingBytes > 0) {
    const out = reader.read(Buffer.concat(pending), line);
    if (out === false) return;
    if (out.count > 0) yield out;
  }
  reader.end();
}
