// The mix of operations a soak client draws from, and what one adapter's run records of them:
// statuses, latencies, unexpected answers with a few examples.
import { type Answer, problemCode, Tally } from "../client.ts";
import { KEPT_EXAMPLES } from "./options.ts";

/** An operation of the mix. */
export type Op = "get-id" | "get-sku" | "delete" | "single" | "bulk" | "csv";
export const WEIGHTS: readonly [Op, number][] = [
  ["get-id", 30],
  ["get-sku", 15],
  ["delete", 8],
  ["single", 17],
  ["bulk", 18],
  ["csv", 12],
];

/** The statistics of one adapter's run. */
export class Stats {
  readonly statuses = new Tally();
  readonly unexpected = new Tally();
  readonly examples: string[] = [];
  readonly latencies = new Map<Op, number[]>(WEIGHTS.map(([op]) => [op, []]));
  recording = false;

  record(op: Op, answer: Answer): void {
    if (!this.recording) return;
    this.latencies.get(op)?.push(answer.ms);
    const code = answer.status >= 400 ? problemCode(answer.body) : undefined;
    this.statuses.add(
      answer.status === 0 ? `no answer (${answer.error})` : `${answer.status}${code ? ` ${code}` : ""}`,
    );
  }

  fail(what: string, detail: string): void {
    this.unexpected.add(what);
    if (this.examples.length < KEPT_EXAMPLES) this.examples.push(`${what}: ${detail}`);
  }
}
