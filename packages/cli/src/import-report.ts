// How an import ended, told twice: for people on standard error (what was sent, the summary with
// its counts, or the server's problem as a table), and with --json for programs on standard
// output (the server's answer, one JSON line, nothing else).
import { formatBytes, formatCount } from "./human-numbers.ts";
import type { Io } from "./io.ts";
import { type ProblemAnswer, problemTable } from "./problems.ts";
import { errorText, type Outcome } from "./retry.ts";
import type { UploadAnswer } from "./upload.ts";

/** What the report says besides the outcome. */
export interface ImportContext {
  /** The body's size, when known. */
  readonly size: number | undefined;
  readonly idempotencyKey: string;
  /** Print the answer on standard output. */
  readonly json: boolean;
  /** `performance.now()` and `process.cpuUsage()` when the import began. */
  readonly started: number;
  readonly cpu: NodeJS.CpuUsage;
  /** Whether the body could be sent again (standard input, once read, cannot). */
  readonly resendable: boolean;
}

interface Summary {
  readonly total: number;
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly deleted?: number;
  readonly skipped?: number;
  readonly skippedKeys?: readonly string[];
  readonly dryRun?: boolean;
}

function isSummary(body: unknown): body is Summary {
  const counts = body as Partial<Record<keyof Summary, unknown>> | null;
  return (
    typeof counts === "object" &&
    counts !== null &&
    ["total", "created", "updated", "unchanged"].every((key) => typeof counts[key as keyof Summary] === "number")
  );
}

/** The summary of a successful import with its counts written for people: 20,000, not 20000. */
export function summaryLine({
  total,
  created,
  updated,
  unchanged,
  deleted,
  skipped,
  skippedKeys,
  dryRun,
}: Summary): string {
  const n = formatCount;
  const products = `${n(total)} ${total === 1 ? "product" : "products"}`;
  // A merge names the keys it skipped, the first ones: which records named no product.
  const keys =
    skippedKeys !== undefined && skippedKeys.length > 0
      ? ` (${skippedKeys.slice(0, 5).join(", ")}${(skipped ?? 0) > 5 ? ", ..." : ""})`
      : "";
  const gone = `${deleted === undefined ? "" : `, ${n(deleted)} deleted`}${skipped === undefined ? "" : `, ${n(skipped)} skipped${keys}`}`;
  return dryRun
    ? `Dry run: ${products} checked (${n(created)} would be created, ${n(updated)} updated, ${n(unchanged)} unchanged${gone}); nothing was written`
    : `Imported ${products}: ${n(created)} created, ${n(updated)} updated, ${n(unchanged)} unchanged${gone}`;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The line naming the platform's columns a profile's import did not keep; undefined when the answer names none. */
export function ignoredLine(body: unknown): string | undefined {
  const ignored = (body as { ignoredColumns?: unknown } | null)?.ignoredColumns;
  if (!Array.isArray(ignored) || ignored.length === 0) return undefined;
  return `Ignored columns (not kept by the catalog): ${ignored.map(String).join(", ")}`;
}

/**
 * The line naming the import's record (`catalog-kit imports show ID`), and where a refused
 * import's whole problem report is when the answer lists only its first problems.
 */
export function importIdLine(body: unknown): string | undefined {
  const { importId, problems, errorCount } = (body ?? {}) as {
    importId?: unknown;
    problems?: unknown;
    errorCount?: unknown;
  };
  if (typeof importId !== "string") return undefined;
  const shown = Array.isArray(problems) ? problems.length : 0;
  return typeof errorCount === "number" && errorCount > shown
    ? `Import ${importId}: the whole problem report is catalog-kit imports problems ${importId} -o problems.csv`
    : `Import ${importId}`;
}

function sentLine(answer: UploadAnswer, context: ImportContext): string {
  const seconds = ((performance.now() - context.started) / 1_000).toFixed(1);
  const used = process.cpuUsage(context.cpu);
  const cpu = `this tool used ${((used.user + used.system) / 1e6).toFixed(2)} s of CPU`;
  if (!answer.early) return `Sent ${formatBytes(answer.sent)} in ${seconds} s; ${cpu}`;
  const of = context.size === undefined ? "" : ` of ${formatBytes(context.size)}`;
  return answer.sent === 0
    ? `The server answered before the upload began (0 B${of} sent, ${seconds} s); ${cpu}`
    : `The server answered before the upload ended (${formatBytes(answer.sent)}${of} sent, ${seconds} s); ${cpu}`;
}

/** Prints how the import ended; returns the command's exit code (0 done, 1 refused, 3 no answer). */
export function reportImport(outcome: Outcome<UploadAnswer>, context: ImportContext, io: Io): number {
  const err = (line: string) => io.stderr.write(`${line}\n`);
  if (outcome.kind !== "answer") {
    err(`No answer from the server: ${errorText(outcome.error)}`);
    if (outcome.kind === "lost") {
      err(
        context.resendable
          ? `The import may have arrived: send it again with --idempotency-key ${context.idempotencyKey}, so that it is not applied twice`
          : "The import may have arrived; standard input cannot be sent again: save it to a file to have it retried",
      );
    }
    return 3;
  }
  const { answer } = outcome;
  const body = parse(answer.text);
  err(sentLine(answer, context));
  if (context.json) {
    io.stdout.write(`${JSON.stringify(body ?? { status: answer.status, detail: answer.text })}\n`);
  }
  if (answer.status >= 200 && answer.status < 300) {
    if (answer.replayed) {
      err(
        `Idempotent-Replayed: the server had applied this import (key ${context.idempotencyKey}) already; this is its answer from then`,
      );
    }
    err(isSummary(body) ? summaryLine(body) : answer.text);
    const ignored = ignoredLine(body);
    if (ignored !== undefined) err(ignored);
    const named = importIdLine(body);
    if (named !== undefined) err(named);
    return 0;
  }
  err(
    typeof body === "object" && body !== null
      ? problemTable({ status: answer.status, ...(body as ProblemAnswer) }).trimEnd()
      : `HTTP ${answer.status}: ${answer.text}`,
  );
  const named = importIdLine(body);
  if (named !== undefined) err(named);
  return 1;
}
