// NDJSON decoding of an import: bytes to one record per line, while they arrive, every problem
// located at its line.
import { isUtf8 } from "node:buffer";
import type { Problems, Reading, RecordPart } from "./parse.ts";
import { decodeText } from "./text.ts";

/** Longest line accepted: far above the largest valid product (about 2 MB of escaped JSON). */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;

const LF = 10;

/**
 * Decodes NDJSON (also called JSON Lines): one JSON value per line, LF or CRLF, blank lines
 * skipped, a UTF-8 byte order mark skipped at the start. Yields the records of each arrival, with
 * their 1-based line numbers as positions; a line that is not UTF-8 or not JSON, or longer than
 * `MAX_LINE_BYTES`, is a problem at its line (and never held whole), and decoding goes on.
 */
export async function* decodeNdjson(
  source: AsyncIterable<Buffer>,
  problems: Problems,
  reading: Reading = { counting: false },
): AsyncGenerator<RecordPart> {
  let carry: Buffer | undefined;
  let line = 1;
  // Inside a line found too long: its bytes are dropped up to its end.
  let skipping = false;
  for await (const chunk of source) {
    const joined = carry !== undefined;
    let bytes = carry === undefined ? chunk : Buffer.concat([carry, chunk]);
    carry = undefined;
    if (skipping) {
      const end = bytes.indexOf(LF);
      if (end === -1) continue;
      skipping = false;
      line++;
      bytes = bytes.subarray(end + 1);
    }
    const end = bytes.lastIndexOf(LF);
    if (end === -1) {
      if (bytes.length > MAX_LINE_BYTES) {
        problems.add({ line, message: `Line is longer than ${MAX_LINE_BYTES} bytes` });
        skipping = true;
      } else carry = joined ? bytes : Buffer.from(bytes); // a chunk may be written over once the next is asked for (see toBuffers)
      continue;
    }
    if (end + 1 < bytes.length) carry = Buffer.from(bytes.subarray(end + 1));
    const out = decodeLines(bytes.subarray(0, end), line, problems, reading.counting);
    line += out.lines;
    if (out.count > 0) yield out;
  }
  if (carry !== undefined) {
    const out = decodeLines(carry, line, problems, reading.counting);
    if (out.count > 0) yield out;
  }
}

// The lines of `bytes` (LF-separated, the last one without its LF), starting at line `first`.
function decodeLines(
  bytes: Buffer,
  first: number,
  problems: Problems,
  counting: boolean,
): RecordPart & { lines: number; count: number } {
  const records: unknown[] = [];
  const positions: number[] = [];
  // Lines that hold a record, readable or not.
  let count = 0;
  let lines: string[];
  if (isUtf8(bytes)) lines = bytes.toString("utf8").split("\n");
  else {
    // Rare: find the lines at fault, and read the others.
    lines = [];
    for (let from = 0; from <= bytes.length; ) {
      const lf = bytes.indexOf(LF, from);
      const to = lf === -1 ? bytes.length : lf;
      const text = decodeText(bytes.subarray(from, to));
      if (text !== undefined) lines.push(text);
      else {
        problems.add({ line: first + lines.length, message: "Line is not valid UTF-8" });
        lines.push("");
        count++;
      }
      from = to + 1;
    }
  }
  for (let i = 0; i < lines.length; i++) {
    let text = lines[i] as string;
    if (i === 0 && first === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    const c = text.charCodeAt(0);
    if (text.length === 0 || (c <= 32 && text.trim() === "")) continue;
    count++;
    if (counting) continue;
    try {
      records.push(JSON.parse(text));
      positions.push(first + i);
    } catch (error) {
      const reason = error instanceof Error ? error.message : "malformed JSON";
      problems.add({ line: first + i, message: `Line is not valid JSON: ${reason}` });
    }
  }
  return { records, positions, lines: lines.length, count };
}
