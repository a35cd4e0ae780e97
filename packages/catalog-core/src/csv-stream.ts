// Delimited documents (CSV, TSV) decoded while they arrive: the bytes cut into pieces of whole
// records, each piece read by a reader of csv.ts, rows counted across pieces.
import { CsvReader, type DocumentReader } from "./csv.ts";
import { CSV_DIALECT, type Dialect } from "./csv-scanner.ts";
import type { Problems, Reading, RecordPart } from "./parse.ts";

/** Longest record accepted: far above the largest valid product. */
export const MAX_RECORD_BYTES = 8 * 1024 * 1024;

const QUOTE = 34;
const LF = 10;

// The first and the last LF of `chunk` that end a record, given whether the chunk starts inside
// quotes: LFs outside quotes, where the quotes seen so far are even (a doubled quote counts twice).
function boundaries(chunk: Buffer, quoted: boolean): { first: number; last: number; quoted: boolean } {
  let first = -1;
  let last = -1;
  // The first LF at or after the current part of the chunk: each LF is searched for once.
  let lf = -1;
  for (let pos = 0; pos < chunk.length; ) {
    const quote = chunk.indexOf(QUOTE, pos);
    const end = quote === -1 ? chunk.length : quote;
    if (!quoted && end > pos) {
      if (first === -1 && lf < end) {
        if (lf < pos) lf = chunk.indexOf(LF, pos);
        if (lf === -1) lf = chunk.length;
        if (lf < end) first = lf;
      }
      const at = chunk.lastIndexOf(LF, end - 1);
      if (at >= pos) last = at;
    }
    if (quote === -1) break;
    quoted = !quoted;
    pos = quote + 1;
  }
  return { first, last, quoted };
}

function countLf(bytes: Buffer): number {
  let count = 0;
  for (let at = bytes.indexOf(LF); at !== -1; at = bytes.indexOf(LF, at + 1)) count++;
  return count;
}

// The same for a dialect without quotes (TSV): every LF ends a record.
const unquoted = (chunk: Buffer) => ({ first: chunk.indexOf(LF), last: chunk.lastIndexOf(LF), quoted: false });

/**
 * Decodes a CSV document by the rules of `CsvReader` while its bytes arrive: cut into pieces of
 * whole records, each read as it comes, rows counted across pieces. Yields the records of each
 * piece, with their rows as positions; problems go to `structure`.
 */
export function decodeCsvStream(
  source: AsyncIterable<Buffer>,
  structure: Problems,
  reading?: Reading,
): AsyncGenerator<RecordPart> {
  return decodeDelimited(source, new CsvReader(structure, reading), structure);
}

/**
 * Decodes a delimited document of `dialect` while its bytes arrive: cut into pieces of whole
 * records, each given to `reader` as it comes, rows counted across pieces; yields each part the
 * reader makes of records. Problems of structure go to `structure`.
 */
export async function* decodeDelimited<Part>(
  source: AsyncIterable<Buffer>,
  reader: DocumentReader<Part>,
  structure: Problems,
  dialect: Dialect = CSV_DIALECT,
): AsyncGenerator<Part & { readonly count: number }> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let quoted = false;
  let line = 1;
  for await (const chunk of source) {
    const found: { first: number; last: number; quoted: boolean } = dialect.quoted
      ? boundaries(chunk, quoted)
      : unquoted(chunk);
    quoted = found.quoted;
    if (found.last === -1) {
      // Copied: the chunk's bytes may be written over once the next one is asked for (see toBuffers).
      pending.push(Buffer.from(chunk));
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
    // Only the record begun in an earlier chunk is copied to be whole: the rest of the chunk is
    // read where it lies (a copy of every chunk measured 35 to 95 ms of a 100,000-row import of
    // about 1.5 s).
    const pieces: Buffer[] = [];
    let from = 0;
    if (pending.length > 0) {
      pending.push(chunk.subarray(0, found.first + 1));
      pieces.push(Buffer.concat(pending));
      from = found.first + 1;
    }
    if (from <= found.last) pieces.push(chunk.subarray(from, found.last + 1));
    const rest = chunk.subarray(found.last + 1);
    pending = rest.length > 0 ? [Buffer.from(rest)] : [];
    pendingBytes = rest.length;
    const out = reader.read(pieces, line);
    if (out === false) return;
    for (const piece of pieces) line += countLf(piece);
    if (out.count > 0) yield out;
  }
  if (pendingBytes > 0) {
    const out = reader.read([Buffer.concat(pending)], line);
    if (out === false) return;
    if (out.count > 0) yield out;
  }
  reader.end();
}
