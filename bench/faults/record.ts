// What a faults run records as it goes: timed log lines, violations with a few examples, the
// answers' statuses, and the verification's summary lines.
import { performance } from "node:perf_hooks";
import { Tally } from "../client.ts";
import { KEPT_EXAMPLES } from "./options.ts";

const started = performance.now();
export function log(line: string): void {
  process.stdout.write(`[${((performance.now() - started) / 1_000).toFixed(1).padStart(5)} s] ${line}\n`);
}

export const failures = new Tally();
export const verifySummary: string[] = [];
export const examples: string[] = [];
export function fail(what: string, detail: string): void {
  failures.add(what);
  if (examples.length < KEPT_EXAMPLES) examples.push(`${what}: ${detail}`);
}

/** Every answer of part 1, by status, code and cause. */
export const statuses = new Tally();
