// The command-line options every bench script understands (--quick, --size, --only, --cpu-rows).
import { parseArgs } from "node:util";

/** Command-line options every bench script understands. */
export interface BenchOptions {
  /** Small sizes and short runs: every scenario in well under a minute (CI). */
  readonly quick: boolean;
  /** `--size N` (repeatable): run only these sizes, for profiling one case. */
  readonly sizes: readonly number[] | undefined;
  /** `--only NAME` (repeatable): run only the parts of a scenario with these names. */
  readonly only: readonly string[] | undefined;
  /**
   * `--cpu-rows`: CPU per product as rows of their own, not only in notes, so that the A/B runner
   * (ab.ts) can compare them; off by default, which keeps the full run's table as it was.
   */
  readonly cpuRows: boolean;
}

/** Reads the options from `process.argv`, ignoring what a script does not know. */
export function benchOptions(): BenchOptions {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      size: { type: "string", multiple: true },
      only: { type: "string", multiple: true },
      "cpu-rows": { type: "boolean", default: false },
    },
    strict: false,
  });
  const list = (value: unknown) => (Array.isArray(value) ? value.map(String) : undefined);
  return {
    quick: values.quick === true,
    sizes: list(values.size)?.map(Number),
    only: list(values.only),
    cpuRows: values["cpu-rows"] === true,
  };
}

/** Warm-up and timed rounds for a workload of `size` items: fewer rounds for bigger work. */
export function roundsFor(size: number, quick: boolean): { warmup: number; iterations: number } {
  if (quick) return { warmup: 3, iterations: 5 };
  if (size <= 1_000) return { warmup: 20, iterations: 31 };
  if (size <= 10_000) return { warmup: 5, iterations: 15 };
  return { warmup: 2, iterations: 11 };
}
