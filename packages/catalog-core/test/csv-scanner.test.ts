// The CSV scanner must read exactly what csv-parse reads, or hand the text to csv-parse.
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { parseRecords } from "../src/csv.ts";
import { scanCsv, scanPieces } from "../src/csv-scanner.ts";
import { encodeCsv } from "./support/csv-encode.ts";
import { realisticProducts } from "./support/realistic-products.ts";

// Pieces that sit on csv-parse's edges: quotes, escaped quotes, both line ends, lone CR, BOM,
// blank lines, white space, multi-byte and ill-formed text.
const piece = fc.constantFrom(
  "a",
  "bc",
  "é",
  "😀",
  ",",
  '"',
  '""',
  "\n",
  "\r\n",
  "\r",
  " ",
  "\t",
  "\ufeff",
  "\ud800",
  '"x,y"',
  '"multi\nline"',
  '"with ""quotes"""',
  '"crlf\r\ninside"',
  "\n\n",
);
const soup = fc.array(piece, { maxLength: 30 }).map((pieces) => pieces.join(""));

const cellText = fc.string({
  unit: fc.constantFrom("a", "Z", " ", ",", '"', "\n", "\r\n", "é", "🌿", "1"),
  maxLength: 8,
});
const quoted = (cell: string) => (/[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell);
// Well-formed documents: rows of cells, quoted when needed, LF or CRLF ends, blank lines between.
const document = fc
  .tuple(
    fc.array(fc.array(cellText, { minLength: 1, maxLength: 4 }), { maxLength: 6 }),
    fc.constantFrom("\n", "\r\n"),
    fc.boolean(),
    fc.boolean(),
  )
  .map(([rows, eol, bom, blankLines]) => {
    const lines = rows.map((cells) => cells.map(quoted).join(","));
    return (bom ? "\ufeff" : "") + lines.join(blankLines ? `${eol}${eol}` : eol) + (rows.length % 2 ? eol : "");
  });

function slow(text: string): unknown {
  try {
    return parseRecords(text);
  } catch (error) {
    return error;
  }
}

describe("scanCsv", () => {
  test.prop([fc.oneof(soup, document)], { numRuns: 3_000 })("reads what csv-parse reads, or defers to it", (text) => {
    const fast = scanCsv(text);
    if (fast !== undefined) expect(fast).toStrictEqual(slow(text));
  });

  test.prop([document], { numRuns: 1_000 })("reads every well-formed document itself", (text) => {
    const cells = text.replace(/^\ufeff/, "");
    // A cell that starts with white space and then a quote is csv-parse's error to report.
    fc.pre(!/(^|[,\n])[ \r]+"/.test(cells));
    expect(scanCsv(text)).toBeDefined();
  });

  test("reads realistic CSV itself, row numbers included", () => {
    const text = encodeCsv(realisticProducts(300));
    const fast = scanCsv(text);
    expect(fast).toBeDefined();
    expect(fast).toStrictEqual(parseRecords(text));
  });
});

describe("scanPieces", () => {
  // The document cut after some of its LFs that end records (none inside quotes), as a stream's chunks are read.
  test.prop([document, fc.array(fc.nat(), { maxLength: 4 }), fc.constantFrom(0, 1, Number.POSITIVE_INFINITY)])(
    "reads pieces of whole records as scanCsv reads them joined",
    (text, cuts, keep) => {
      const bytes = Buffer.from(text);
      const ends: number[] = [];
      let quotes = 0;
      for (let i = 0; i < bytes.length; i++) {
        if (bytes[i] === 34) quotes++;
        else if (bytes[i] === 10 && quotes % 2 === 0) ends.push(i + 1);
      }
      const at = [...new Set(cuts.map((cut) => ends[cut % Math.max(1, ends.length)] ?? 0))].sort((a, b) => a - b);
      const pieces = [...at, bytes.length].map((end, i) => bytes.subarray(i === 0 ? 0 : at[i - 1], end));
      expect(scanPieces(pieces, keep)).toStrictEqual(scanCsv(bytes, keep));
    },
  );

  test("leaves pieces that are not UTF-8 to be read joined", () => {
    expect(scanPieces([Buffer.from("a,b\n"), Buffer.from([0xed, 0xa0, 0x80, 0x0a])])).toBeUndefined();
  });
});
