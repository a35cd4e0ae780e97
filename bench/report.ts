/** A target a figure is judged against: bounds on `figure / baseline`, or on the figure itself. */
export interface Target {
  readonly label: string;
  readonly minRatio?: number;
  readonly maxRatio?: number;
  readonly max?: number;
}

/** One line of the results table: a figure, optionally beside a baseline measured in the same run. */
export interface Row {
  readonly scenario: string;
  readonly figure: number | null;
  readonly unit: string;
  readonly baseline?: { readonly name: string; readonly figure: number; readonly unit: string };
  readonly target?: Target;
  /** figure / baseline measured pairwise (median of per-round ratios); else worked out from the two figures. */
  readonly ratio?: number;
  /** Why there is no figure, or what to know when reading it. */
  readonly note?: string;
}

/** A row with its ratio and verdict worked out. */
export interface JudgedRow extends Omit<Row, "ratio"> {
  readonly ratio: number | null;
  readonly met: boolean | null;
}

/** Child scripts speak to the runner in JSON lines on stdout. */
export type Message =
  | { readonly type: "progress"; readonly text: string }
  | { readonly type: "row"; readonly row: Row };

/** Prints a progress line for the runner (or for a person running the script alone). */
export function progress(text: string): void {
  process.stdout.write(`${JSON.stringify({ type: "progress", text } satisfies Message)}\n`);
}

/** Prints one result row. */
export function emit(row: Row): void {
  process.stdout.write(`${JSON.stringify({ type: "row", row } satisfies Message)}\n`);
}

/** Runs `work`; a failure becomes a row without a figure and a failed exit, and the run goes on. */
export async function guarded(scenario: string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    progress(`${scenario} failed: ${message}`);
    emit({ scenario, figure: null, unit: "", note: `failed: ${message.replaceAll("\n", " ").slice(0, 600)}` });
    process.exitCode = 1;
  }
}

/** Works out a row's ratio (figure / baseline) and whether its target is met. */
export function judge(row: Row): JudgedRow {
  const ratio = row.ratio ?? (row.figure !== null && row.baseline ? row.figure / row.baseline.figure : null);
  let met: boolean | null = null;
  if (row.target?.minRatio !== undefined && ratio !== null) met = ratio >= row.target.minRatio;
  if (row.target?.maxRatio !== undefined && ratio !== null) met = ratio <= row.target.maxRatio;
  if (row.target?.max !== undefined && row.figure !== null) met = row.figure <= row.target.max;
  return { ...row, ratio, met };
}

/** A figure with thousands separators and at most three significant decimals. */
export function formatNumber(value: number): string {
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString("en-US");
  return value.toLocaleString("en-US", { maximumSignificantDigits: 3 });
}

function cellOf(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

/** The results as a markdown table, padded the way the repository's formatter lays tables out. */
export function toMarkdownTable(rows: readonly JudgedRow[]): string {
  const header = ["scenario", "figure", "baseline", "ratio", "target", "met?"];
  const right = [false, true, false, true, false, false];
  const body = rows.map((row) => {
    const figure = row.figure === null ? "not available" : `${formatNumber(row.figure)} ${row.unit}`;
    const baseline = row.baseline
      ? `${row.baseline.name}: ${formatNumber(row.baseline.figure)} ${row.baseline.unit}`
      : "—";
    const ratio = row.ratio === null ? "—" : `${row.ratio.toFixed(2)}x`;
    const met = row.met === null ? (row.target ? "n/a" : "—") : row.met ? "yes" : "**no**";
    const scenario = row.note ? `${row.scenario} (${row.note})` : row.scenario;
    return [scenario, figure, baseline, ratio, row.target?.label ?? "—", met];
  });
  return markdownTable(header, right, body);
}

/** A markdown table of `rows` under `header`, the columns flagged in `right` aligned right. */
export function markdownTable(
  header: readonly string[],
  right: readonly boolean[],
  rows: readonly (readonly string[])[],
): string {
  const body = rows.map((row) => row.map(cellOf));
  const widths = header.map((title, c) =>
    Math.max(3, title.length, ...body.map((cells) => (cells[c] as string).length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, c) => (right[c] ? cell.padStart(widths[c] as number) : cell.padEnd(widths[c] as number))).join(" | ")} |`;
  const rule = `| ${widths.map((width, c) => (right[c] ? `${"-".repeat(width - 1)}:` : "-".repeat(width))).join(" | ")} |`;
  return [line(header), rule, ...body.map(line)].join("\n");
}
