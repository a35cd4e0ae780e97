// The rows of both sides of an A/B, matched and compared: a figure per side (the median of its
// rounds), after/before, and a gain oriented so that > 1 is always better, whatever the unit.
import { median } from "../measure.ts";
import { type Baseline, formatNumber, judge, markdownTable, type Row } from "../report.ts";

export type Side = "before" | "after";

/**
 * A row as a scenario printed it. The before side runs this tree's bench, but a row printed by
 * a bench from before short names (an older ab.json, a bench copied by hand) has no `name`, nor
 * its baseline a `label`.
 */
export type PrintedRow = Omit<Row, "name" | "baseline"> & {
  readonly name?: string;
  readonly baseline?: Omit<Baseline, "label"> & { readonly label?: string };
};

/** One scenario run of one side in one round: the rows it printed and how it ended. */
export interface Collected {
  readonly round: number;
  readonly side: Side;
  /** Index of the scenario (with its filter) in the run's list. */
  readonly pick: number;
  readonly rows: readonly PrintedRow[];
  /** Exit code; undefined when it did not run (the reason in `skipped`). */
  readonly code: number | undefined;
  readonly skipped?: string;
  /** Wall time of the scenario's process. */
  readonly seconds?: number;
}

/** A row of the comparison. */
export interface Compared {
  readonly label: string;
  readonly unit: string;
  /** Whether a higher figure is the better one: rates are; sizes, times and CPU per item are not. */
  readonly higherIsBetter: boolean;
  /** Per round, in round order; undefined where the row did not appear, null where it had no figure. */
  readonly rounds: Readonly<Record<Side, readonly (number | null | undefined)[]>>;
  readonly figure: Readonly<Record<Side, number | undefined>>;
  /** after / before of the medians. */
  readonly change: number | undefined;
  /** `change`, inverted where lower is better: > 1 is better whatever the unit. */
  readonly gain: number | undefined;
  /** The same gain within each round (its two runs back to back): how far the rounds agree. */
  readonly roundGains: readonly (number | undefined)[];
  /** The row's own ratio to the baseline it measured in the same process (median over rounds), per side. */
  readonly inRun: Readonly<Record<Side, number | undefined>>;
  readonly flags: readonly string[];
}

/** Below this gain a row is flagged as worse. */
export const WORSE_BELOW = 0.95;

const higherIsBetter = (unit: string) => unit.endsWith("/s");

// Rows of one run are told apart by name and baseline: one figure may be reported against two
// baselines. The short name is the key where a row has one: it stays when a scenario's full
// description (sizes, notes on the server) is reworded.
const byName = (pick: number, name: string, row: PrintedRow) =>
  `${pick}\u0000${name}\u0000${row.baseline?.label ?? row.baseline?.name ?? ""}`;
const byScenario = (pick: number, row: PrintedRow) => `${pick}\u0000${row.scenario}\u0000${row.baseline?.name ?? ""}`;

function labelOf(row: PrintedRow): string {
  const name = row.name ?? row.scenario;
  const baseline = row.baseline?.label ?? row.baseline?.name;
  return baseline === undefined ? name : `${name} [baseline: ${baseline}]`;
}

const middle = (values: readonly (number | null | undefined)[]) => {
  const present = values.filter((value): value is number => typeof value === "number" && Number.isFinite(value));
  return present.length === 0 ? undefined : median(present);
};

interface Entry {
  readonly row: PrintedRow;
  readonly of: Record<Side, (PrintedRow | undefined)[]>;
}

/**
 * Matches the rows of both sides, in the order the after side printed them (rows only before has
 * come last): by short name where both rows have one, else by the full scenario.
 */
export function compare(runs: readonly Collected[], rounds: number): Compared[] {
  const entries: Entry[] = [];
  const named = new Map<string, Entry>();
  const described = new Map<string, Entry>();
  const ordered = [...runs].sort((a, b) => (a.side === b.side ? 0 : a.side === "after" ? -1 : 1));
  for (const run of ordered) {
    for (const row of run.rows) {
      const nameKey = row.name === undefined ? undefined : byName(run.pick, row.name, row);
      const scenarioKey = byScenario(run.pick, row);
      // The full scenario matches only where one of the two rows has no name: two named rows
      // that differ are two rows, whatever their descriptions.
      const fallback = described.get(scenarioKey);
      let entry =
        (nameKey === undefined ? undefined : named.get(nameKey)) ??
        (fallback !== undefined && (nameKey === undefined || fallback.row.name === undefined) ? fallback : undefined);
      if (entry === undefined) {
        entry = { row, of: { before: Array(rounds).fill(undefined), after: Array(rounds).fill(undefined) } };
        entries.push(entry);
      }
      if (nameKey !== undefined && !named.has(nameKey)) named.set(nameKey, entry);
      if (!described.has(scenarioKey)) described.set(scenarioKey, entry);
      entry.of[run.side][run.round] = row;
    }
  }
  return entries.map(({ row, of }) => {
    const better = higherIsBetter(row.unit);
    const figures = (side: Side) => of[side].map((r) => (r === undefined ? undefined : r.figure));
    const byRound = { before: figures("before"), after: figures("after") };
    const figure = { before: middle(byRound.before), after: middle(byRound.after) };
    const gainOf = (before: number | null | undefined, after: number | null | undefined) => {
      if (typeof after !== "number" || typeof before !== "number" || before === 0 || after === 0) return undefined;
      return better ? after / before : before / after;
    };
    const gain = gainOf(figure.before, figure.after);
    const inRun = (side: Side) => middle(of[side].map((r) => (r === undefined ? undefined : judge(r).ratio)));
    const flags: string[] = [];
    for (const side of ["before", "after"] as const) {
      if (byRound[side].every((value) => value === undefined)) flags.push(`missing ${side}`);
      else if (byRound[side].some((value) => value === null)) flags.push(`no figure ${side}`);
      else if (byRound[side].some((value) => value === undefined)) flags.push(`incomplete ${side}`);
    }
    if (gain !== undefined && gain < WORSE_BELOW) flags.push("worse");
    return {
      label: labelOf(row),
      unit: row.unit,
      higherIsBetter: better,
      rounds: byRound,
      figure,
      change: figure.before !== undefined && figure.after !== undefined ? figure.after / figure.before : undefined,
      gain,
      roundGains: byRound.after.map((after, round) => gainOf(byRound.before[round], after)),
      inRun: { before: inRun("before"), after: inRun("after") },
      flags,
    };
  });
}

const number = (value: number | null | undefined) =>
  value === undefined ? "—" : value === null ? "n/a" : formatNumber(value);
const times = (value: number | undefined) => (value === undefined ? "—" : `${value.toFixed(3)}x`);

/** The comparison as a markdown table; flagged rows say so in bold. */
export function toAbTable(rows: readonly Compared[]): string {
  const header = [
    "row",
    "unit",
    "better",
    "before",
    "after",
    "after/before",
    "gain (> 1 = after better)",
    "gain per round",
    "rounds before",
    "rounds after",
    "ratio to in-run baseline, before → after",
    "flag",
  ];
  const right = [false, false, false, true, true, true, true, false, false, false, false, false];
  const body = rows.map((row) => [
    row.label,
    row.unit,
    row.higherIsBetter ? "higher" : "lower",
    number(row.figure.before),
    number(row.figure.after),
    times(row.change),
    times(row.gain),
    row.roundGains.map(times).join(" / "),
    row.rounds.before.map(number).join(" / "),
    row.rounds.after.map(number).join(" / "),
    `${times(row.inRun.before)} → ${times(row.inRun.after)}`,
    row.flags.length === 0 ? "" : `**${row.flags.join(", ")}**`,
  ]);
  return markdownTable(header, right, body);
}
