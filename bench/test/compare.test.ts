import { describe, expect, test } from "vitest";
import { type Collected, compare, type PrintedRow, type Side } from "../ab/compare.ts";

const fastify = { label: "fastify", name: "fastify, same catalog", figure: 100, unit: "req/s" };

/** One run of pick 0 in round 0 on `side`. */
const run = (side: Side, rows: readonly PrintedRow[]): Collected => ({ round: 0, side, pick: 0, rows, code: 0 });

const row = (figure: number, fields: Partial<PrintedRow> & Pick<PrintedRow, "scenario">): PrintedRow => ({
  figure,
  unit: "req/s",
  ...fields,
});

describe("A/B matching of rows", () => {
  test("matches by short name where both sides have one, whatever the full scenarios say", () => {
    const compared = compare(
      [
        run("before", [row(90, { name: "GET by id, handler, memory", scenario: "HTTP GET by id, 10 s x 3" })]),
        run("after", [row(99, { name: "GET by id, handler, memory", scenario: "HTTP GET by id, 8 s x 3" })]),
      ],
      1,
    );
    expect(compared).toHaveLength(1);
    expect(compared[0]).toMatchObject({ label: "GET by id, handler, memory", figure: { before: 90, after: 99 } });
    expect(compared[0]?.flags).toEqual([]);
  });

  test("falls back to the full scenario and the baseline's name where a side has no short names", () => {
    const scenario = "HTTP GET by id, memory, handler alone";
    const { label: _, ...unlabelled } = fastify;
    const compared = compare(
      [
        run("before", [row(90, { scenario, baseline: unlabelled })]),
        run("after", [row(99, { name: "GET by id, handler, memory", scenario, baseline: fastify })]),
      ],
      1,
    );
    expect(compared).toHaveLength(1);
    expect(compared[0]).toMatchObject({
      label: "GET by id, handler, memory [baseline: fastify]",
      figure: { before: 90, after: 99 },
    });
  });

  test("falls back likewise when the after side is the one without names", () => {
    const scenario = "bulk JSON import, 100,000, memory";
    const compared = compare(
      [
        run("before", [row(90, { name: "bulk JSON 100,000, memory", scenario })]),
        run("after", [row(99, { scenario })]),
      ],
      1,
    );
    expect(compared).toHaveLength(1);
    expect(compared[0]).toMatchObject({ label: scenario, figure: { before: 90, after: 99 } });
  });

  test("keeps two named rows apart when only their scenarios agree", () => {
    const scenario = "the same description";
    const compared = compare(
      [run("before", [row(90, { name: "one", scenario })]), run("after", [row(99, { name: "two", scenario })])],
      1,
    );
    expect(compared.map((c) => [c.label, c.flags])).toEqual([
      ["two", ["missing before"]],
      ["one", ["missing after"]],
    ]);
  });

  test("keeps one figure against two baselines as two rows", () => {
    const name = "GET by id, handler, memory";
    const bare = { label: "bare node:http", name: "bare node:http, fixed JSON", figure: 200, unit: "req/s" };
    const rows = [
      row(99, { name, scenario: "s", baseline: fastify }),
      row(99, { name, scenario: "s", baseline: bare }),
    ];
    const compared = compare([run("before", rows), run("after", rows)], 1);
    expect(compared.map((c) => c.label)).toEqual([`${name} [baseline: fastify]`, `${name} [baseline: bare node:http]`]);
    expect(compared.every((c) => c.flags.length === 0)).toBe(true);
  });
});
