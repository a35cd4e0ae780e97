/** A target a figure is judged against: bounds on `figure / baseline`, or on the figure itself. */
export interface Target {
  readonly label: string;
  readonly minRatio?: number;
  readonly maxRatio?: number;
  readonly max?: number;
}

/** A figure measured in the same run as a row's, to set it beside. */
export interface Baseline {
  /** A few words for the table's cell: "fastify", "JSON.parse", "COPY floor". */
  readonly label: string;
  /** What exactly was measured, for the row's line in the notes below the table. */
  readonly name: string;
  readonly figure: number;
  readonly unit: string;
}

/** A baseline as rows name it, without its figure: a few words for the table, in full for the notes. */
export type NamedBaseline = Pick<Baseline, "label" | "name">;

/** One line of the results table: a figure, optionally beside a baseline measured in the same run. */
export interface Row {
  /**
   * A short name (about 60 characters at most) for the table's cell. With its baseline's label it
   * is unique within a run (one figure may be set beside two baselines), and the A/B runner
   * matches rows of two trees by it: keep it stable.
   */
  readonly name: string;
  /** The full description (sizes, server, load), for the row's line in the notes below the table. */
  readonly scenario: string;
  readonly figure: number | null;
  readonly unit: string;
  readonly baseline?: Baseline;
  readonly target?: Target;
  /** figure / baseline measured pairwise (median of per-round ratios); else worked out from the two figures. */
  readonly ratio?: number;
  /** Why there is no figure, or what to know when reading it. */
  readonly note?: string;
}

/** What judging a row reads of it: a row of this bench, or one an older bench printed. */
export type Judgeable = Pick<Row, "figure" | "ratio" | "target"> & { readonly baseline?: { readonly figure: number } };

/** `T` with its ratio and verdict worked out. */
export type Judged<T extends Judgeable> = Omit<T, "ratio"> & {
  readonly ratio: number | null;
  readonly met: boolean | null;
};

/** A row with its ratio and verdict worked out. */
export type JudgedRow = Judged<Row>;

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

/**
 * Runs `work`; a failure becomes a row named `name` (about `scenario`) without a figure, and a
 * failed exit, and the run goes on.
 */
export async function guarded(name: string, scenario: string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    progress(`${name} failed: ${message}`);
    emit({ name, scenario, figure: null, unit: "", note: `failed: ${message.replaceAll("\n", " ").slice(0, 600)}` });
    process.exitCode = 1;
  }
}

/** Works out a row's ratio (figure / baseline) and whether its target is met. */
export function judge<T extends Judgeable>(row: T): Judged<T> {
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

/** Yes, **no**, n/a (a target that could not be judged) or — (no target). */
function verdictOf(row: JudgedRow): string {
  if (row.met === null) return row.target ? "n/a" : "—";
  return row.met ? "yes" : "**no**";
}

/**
 * The results as a markdown table of short cells, numbered, padded the way the repository's
 * formatter lays tables out; what each row is in full goes to its line of `toMarkdownNotes`.
 */
export function toMarkdownTable(rows: readonly JudgedRow[]): string {
  const header = ["#", "name", "figure", "baseline", "ratio", "target", "verdict"];
  const right = [true, false, true, false, true, false, false];
  const body = rows.map((row, i) => {
    const figure = row.figure === null ? "not available" : `${formatNumber(row.figure)} ${row.unit}`;
    const baseline = row.baseline
      ? `${row.baseline.label}: ${formatNumber(row.baseline.figure)} ${row.baseline.unit}`
      : "—";
    const ratio = row.ratio === null ? "—" : `${row.ratio.toFixed(2)}x`;
    return [String(i + 1), row.name, figure, baseline, ratio, row.target?.label ?? "—", verdictOf(row)];
  });
  return markdownTable(header, right, body);
}

/** `text` on one line: a line break would end a list item. */
const oneLine = (text: string) => text.replaceAll(/\s*[\r\n]+\s*/g, " ").trim();

/**
 * One line per row of `toMarkdownTable`, numbered as its row: the full scenario, the baseline's
 * full name, the note. Every row gets its line, even one with nothing more than its scenario:
 * markdown (and the formatter) number a list from its first item on, so a row left out would
 * shift the numbers of every line after it.
 */
export function toMarkdownNotes(rows: readonly Pick<Row, "scenario" | "baseline" | "note">[]): string {
  return rows
    .map((row, i) => {
      const parts = [row.scenario, ...(row.baseline ? [`baseline: ${row.baseline.name}`] : []), row.note ?? ""];
      return `${i + 1}. ${oneLine(parts.filter((part) => part !== "").join("; "))}`;
    })
    .join("\n");
}

/** The table, then its notes under a heading of their own. */
export function toMarkdownReport(rows: readonly JudgedRow[]): string {
  return `${toMarkdownTable(rows)}\n\n## Notes\n\n${toMarkdownNotes(rows)}`;
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
