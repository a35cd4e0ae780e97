import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, test } from "vitest";
import { judge, type Row, toMarkdownNotes, toMarkdownReport, toMarkdownTable } from "../report.ts";
import type { Measured } from "../stream/cases.ts";
import { cpuPerProductRows, nameOf, streamRows } from "../stream/rows.ts";
import { CASES } from "../stream/setup.ts";
import { REALISTIC_ROWS } from "./realistic-rows.ts";

const judged = REALISTIC_ROWS.map(judge);
const MAX_CELL = 100;
const MAX_NAME = 60;

/** The cells of a markdown table's line, unescaped and trimmed. */
const cellsOf = (line: string) =>
  line
    .slice(1, -1)
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim().replaceAll("\\|", "|"));

/** Names are unique within a run beside their baseline's label: one figure may stand beside two baselines. */
const keysOf = (rows: readonly Row[]) => rows.map((row) => `${row.name} [${row.baseline?.label ?? ""}]`);

describe("results table", () => {
  const lines = toMarkdownTable(judged).split("\n");

  test("has a header, a rule and a line of seven short cells per row", () => {
    expect(cellsOf(lines[0] as string)).toEqual(["#", "name", "figure", "baseline", "ratio", "target", "verdict"]);
    expect(lines).toHaveLength(judged.length + 2);
    for (const line of lines) {
      const cells = cellsOf(line);
      expect(cells).toHaveLength(7);
      for (const cell of cells) expect(cell.length, cell).toBeLessThanOrEqual(MAX_CELL);
    }
  });

  test("numbers its rows and gives each its short name and its baseline's label", () => {
    judged.forEach((row, i) => {
      const [number, name, , baseline] = cellsOf(lines[i + 2] as string);
      expect(number).toBe(String(i + 1));
      expect(name).toBe(row.name);
      if (row.baseline === undefined) expect(baseline).toBe("—");
      else expect(baseline?.startsWith(`${row.baseline.label}: `), baseline).toBe(true);
    });
  });

  test("says yes, **no**, n/a or — for the verdict", () => {
    // A quick run judges no target: each then reads n/a.
    const quick = judged.map((row) => ({ ...row, met: null }));
    for (const rows of [judged, quick]) {
      const verdicts = toMarkdownTable(rows)
        .split("\n")
        .slice(2)
        .map((line) => cellsOf(line)[6]);
      rows.forEach((row, i) => {
        const expected = row.met === null ? (row.target ? "n/a" : "—") : row.met ? "yes" : "**no**";
        expect(verdicts[i]).toBe(expected);
      });
    }
    const seen = [...judged, ...quick].map((row) => cellsOf(toMarkdownTable([row]).split("\n")[2] as string)[6]);
    expect(new Set(seen)).toEqual(new Set(["yes", "**no**", "n/a", "—"]));
  });
});

describe("notes below the table", () => {
  const notes = toMarkdownNotes(judged).split("\n");

  test("give every row one line, numbered as its row", () => {
    expect(notes).toHaveLength(judged.length);
    notes.forEach((line, i) => {
      expect(line.startsWith(`${i + 1}. `), line).toBe(true);
    });
  });

  test("say in full what the table says in short: scenario, baseline, note", () => {
    judged.forEach((row, i) => {
      const line = notes[i] as string;
      expect(line).toContain(row.scenario);
      if (row.baseline) expect(line).toContain(`; baseline: ${row.baseline.name}`);
      if (row.note) expect(line).toContain(row.note.replaceAll(/\s*\n\s*/g, " ").trim());
    });
  });

  test("keep a note with line breaks on one line", () => {
    const [line] = toMarkdownNotes([{ scenario: "s", note: "failed: one\n  at two\r\n  at three\n" }]).split("\n");
    expect(line).toBe("1. s; failed: one at two at three");
  });

  test("come under their own heading, after the table", () => {
    const report = toMarkdownReport(judged);
    expect(report.indexOf("\n\n## Notes\n\n1. ")).toBeGreaterThan(report.indexOf("| 1 |"));
  });
});

describe("short names", () => {
  test("of the realistic rows are short and unique beside their baseline", () => {
    for (const row of REALISTIC_ROWS) expect(row.name.length, row.name).toBeLessThanOrEqual(MAX_NAME);
    expect(new Set(keysOf(REALISTIC_ROWS)).size).toBe(REALISTIC_ROWS.length);
  });

  test("of every streamed case and storage are short and unique beside their baseline", () => {
    const plain = {
      seconds: 40,
      serverCpu: 20,
      clientCpu: 25,
      stall: 100,
      probeFailures: 0,
      probeFailure: undefined,
      products: 1_216_763,
      bytes: 1_073_741_000,
      idleRss: 90e6,
      halfRss: 200e6,
      peakRss: 250e6,
      heapAfter: 150e6,
    } satisfies Measured;
    // Redis's figures come with Redis storage only.
    const onRedis: Measured = {
      ...plain,
      redis: {
        script: 100,
        scriptCall: "EVALSHA",
        any: 100,
        anyCall: "EVALSHA",
        over10: 3,
        cpuSeconds: 20,
        peakBytes: 1e9,
        usedBytes: 1e9,
        keysBefore: 0,
        keys: 0,
      },
    };
    const against = { label: "buffered JSON", name: "buffered bulk JSON over HTTP" };
    const rows = (["memory", "redis", "postgres"] as const).flatMap((storage) => {
      const of = storage === "redis" ? onRedis : plain;
      // The bad last line is a row of its own (bad-row.ts), not one of these.
      return CASES.filter((name) => name !== "bad-row").flatMap((name) => [
        ...streamRows(storage, name, of, of, against),
        ...cpuPerProductRows(nameOf(storage, name), "subject", of, of, against),
      ]);
    });
    for (const row of rows) expect(row.name.length, row.name).toBeLessThanOrEqual(MAX_NAME);
    expect(new Set(keysOf(rows)).size).toBe(rows.length);
  });
});

test("the report is as the repository's formatter lays it out", () => {
  const report = `# Benchmark results\n\n${toMarkdownReport(judged)}\n`;
  const biome = createRequire(import.meta.url).resolve("@biomejs/biome/bin/biome");
  const formatted = spawnSync(process.execPath, [biome, "format", "--stdin-file-path=RESULTS.md"], {
    input: report,
    encoding: "utf8",
  });
  expect(formatted.status, formatted.stderr).toBe(0);
  expect(formatted.stdout).toBe(report);
});

test("the committed RESULTS.md keeps to short cells and numbers its notes as its rows", () => {
  const text = readFileSync(new URL("../RESULTS.md", import.meta.url), "utf8");
  const [before, notes] = text.split("\n## Notes\n");
  const table = (before as string).split("\n").filter((line) => line.startsWith("|"));
  const rows = table.slice(2).map(cellsOf);
  expect(rows.length).toBeGreaterThan(0);
  for (const cells of table.map(cellsOf)) {
    expect(cells).toHaveLength(7);
    for (const cell of cells) expect(cell.length, cell).toBeLessThanOrEqual(MAX_CELL);
  }
  const lines = (notes as string).trim().split("\n");
  expect(lines).toHaveLength(rows.length);
  rows.forEach((cells, i) => {
    expect(cells[0]).toBe(String(i + 1));
    expect(lines[i]?.startsWith(`${i + 1}. `), lines[i]).toBe(true);
  });
});
