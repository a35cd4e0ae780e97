// What a faults run records as it goes: timed log lines, violations with a few examples, the
// answers' statuses, and the verification's summary lines.
import { performance } from "node:perf_hooks";
import { Tally } from "../client.ts";
import { KEPT_EXAMPLES } from "./options.ts";

const started = performance.now();
/** Prints a line with the seconds since the run started. */
export function log(line: string): void {
  process.stdout.write(`[${((performance.now() - started) / 1_000).toFixed(1).padStart(5)} s] ${line}\n`);
}

/** Violations by kind; any one fails the run. */
export const failures = new Tally();
/** The checks' lines of the final summary. */
export const verifySummary: string[] = [];
/** The first few violations, in full. */
export const examples: string[] = [];
/** Records a violation: `what` is its kind, `detail` names the request or key. */
export function fail(what: string, detail: string): void {
  failures.add(what);
  if (examples.length < KEPT_EXAMPLES) examples.push(`${what}: ${detail}`);
}

/** Every answer of part 1, by status, code and cause. */
export const statuses = new Tally();
