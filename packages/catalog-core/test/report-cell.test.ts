// A report's CSV cell as a spreadsheet reads it: never the start of a formula, and the text as it
// was, one leading quote apart.
import { fc, test } from "@fast-check/vitest";
import { parse } from "csv-parse/sync";
import { describe, expect } from "vitest";
import { reportCell } from "../src/csv-write.ts";

const FORMULA = ["=", "+", "-", "@", "\t", "\r"];

// The cell a CSV reader reads back from one written alone on its line.
const readBack = (cell: string) => (parse(`${cell}\n`, { relax_column_count: true }) as string[][])[0]?.[0];

describe("reportCell", () => {
  test.each([
    ['=HYPERLINK("https://evil.example","open")', `"'=HYPERLINK(""https://evil.example"",""open"")"`],
    ["+1+2", "'+1+2"],
    ["-2+3", "'-2+3"],
    ["@SUM(A1)", "'@SUM(A1)"],
    ["\t=1", "'\t=1"],
    ["SKU-1", "SKU-1"],
    ["", ""],
  ])("%j is written %s", (text, cell) => {
    expect(reportCell(text)).toBe(cell);
  });

  test.prop([
    fc.tuple(
      fc.constantFrom("", ...FORMULA),
      fc.string({ unit: fc.constantFrom("a", "=", "-", ",", '"', "\n", " ", "'") }),
    ),
  ])("reads back as the text, a quote before any that starts like a formula, never as one", ([start, rest]) => {
    const text = start + rest;
    const cell = readBack(reportCell(text)) ?? "";
    expect(FORMULA.some((c) => cell.startsWith(c))).toBe(false);
    expect(cell).toBe(FORMULA.some((c) => text.startsWith(c)) ? `'${text}` : text);
  });
});
