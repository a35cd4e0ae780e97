// A CSV document in chunks: each chunk is read in place but for the record begun in an earlier
// one, which must give what reading each chunk joined to that record gives (the reference below),
// and for well-formed CSV what reading the whole document at once gives.
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { CsvReader } from "../src/csv.ts";
import { decodeCsvStream } from "../src/csv-stream.ts";
import { Problems } from "../src/parse.ts";

const HEADER = "id,sku,title,available,featured_image,url\n";

// The bytes cut at the given offsets (each taken modulo the length).
function cut(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => (bytes.length === 0 ? 0 : c % bytes.length)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const c of at) {
    chunks.push(bytes.subarray(from, c));
    from = c;
  }
  chunks.push(bytes.subarray(from));
  return chunks;
}

async function* stream(chunks: readonly Buffer[]): AsyncGenerator<Buffer> {
  yield* chunks;
}

async function decode(chunks: readonly Buffer[]) {
  const structure = new Problems();
  const records: unknown[] = [];
  const rows: number[] = [];
  for await (const part of decodeCsvStream(stream(chunks), structure)) {
    records.push(...part.records);
    rows.push(...part.positions);
  }
  return { records, rows, problems: structure.list };
}

// Each chunk up to its last LF outside quotes, joined to what the chunks before it left over, read as one piece.
function reference(chunks: readonly Buffer[]) {
  const structure = new Problems();
  const reader = new CsvReader(structure);
  const records: unknown[] = [];
  const rows: number[] = [];
  const lines = (bytes: Buffer) => bytes.toString("latin1").split("\n").length - 1;
  let line = 1;
  let quoted = false;
  let pending = Buffer.alloc(0);
  const read = (piece: Buffer) => {
    const out = reader.read([piece], line);
    if (out === false) return false;
    line += lines(piece);
    records.push(...out.records);
    rows.push(...out.positions);
    return true;
  };
  for (const chunk of chunks) {
    let last = -1;
    for (let i = 0; i < chunk.length; i++) {
      if (chunk[i] === 34) quoted = !quoted;
      else if (chunk[i] === 10 && !quoted) last = i;
    }
    pending = Buffer.concat([pending, last === -1 ? chunk : chunk.subarray(0, last + 1)]);
    if (last === -1) continue;
    if (!read(pending)) return { records, rows, problems: structure.list };
    pending = Buffer.from(chunk.subarray(last + 1));
  }
  if (pending.length > 0 && !read(pending)) return { records, rows, problems: structure.list };
  reader.end();
  return { records, rows, problems: structure.list };
}

// Rows that are often well-formed CSV and often not: stray and unclosed quotes, lone CRs, wrong
// numbers of cells, blank lines, multi-byte characters.
const bodyArb = fc.stringMatching(/^(a|1|true|é|🌿|,|"|""|"a,b"|"x\ny"|\n|\r\n|\r| )*$/);
const cutsArb = fc.array(fc.nat(), { maxLength: 6 });

describe("decodeCsvStream", () => {
  test.prop([bodyArb, cutsArb], { numRuns: 500 })(
    "reads chunks cut anywhere as the reference does, malformed ones too",
    async (body, cuts) => {
      const chunks = cut(Buffer.from(HEADER + body), cuts);
      expect(await decode(chunks)).toEqual(reference(chunks));
    },
  );

  test.prop([fc.array(fc.stringMatching(/^(a|é|🌿|,|""|\n|\r\n| )*$/), { maxLength: 8 }), cutsArb])(
    "reads well-formed CSV cut anywhere (inside quotes and characters too) as it reads it whole",
    async (cells, cuts) => {
      const rows = cells.map((cell, i) => `${i},s${i},"${cell}",true,f,u\n`).join("");
      const bytes = Buffer.from(HEADER + rows);
      expect(await decode(cut(bytes, cuts))).toEqual(await decode([bytes]));
    },
  );
});
