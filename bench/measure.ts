// Timing for the in-process scenarios: cases timed in alternating rounds after a warm-up, and
// their medians.
import { performance } from "node:perf_hooks";

/** One thing to time: `run` does the work once; `setup` (sync or async) prepares it outside the clock. */
export interface TimedCase {
  readonly name: string;
  readonly setup?: () => unknown;
  readonly run: (prepared: unknown) => unknown;
}

/** How many untimed warm-up rounds and timed rounds to run. */
export interface Rounds {
  readonly warmup: number;
  readonly iterations: number;
}

/** The middle value (mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

const collect = (globalThis as { gc?: () => void }).gc;

/** Seconds per round of every case, in round order. */
export class Timings {
  readonly samples: ReadonlyMap<string, readonly number[]>;

  constructor(samples: ReadonlyMap<string, readonly number[]>) {
    this.samples = samples;
  }

  /** Median seconds of one case. */
  median(name: string): number {
    return median(this.of(name));
  }

  /**
   * How many times faster `subject` ran than `baseline` (a rate ratio), as the median of the
   * ratios of the two runs of each round: a load that comes and goes hits both sides of a pair.
   */
  ratio(subject: string, baseline: string): number {
    const a = this.of(subject);
    const b = this.of(baseline);
    return median(a.map((seconds, round) => (b[round] as number) / seconds));
  }

  private of(name: string): readonly number[] {
    const values = this.samples.get(name);
    if (values === undefined) throw new Error(`no timings for ${name}`);
    return values;
  }
}

/**
 * Times every case once per round, alternating cases inside each round (in a rotating order) so
 * that machine noise (other work on the cores, CPU frequency) lands on all of them alike.
 * Garbage from the previous round is collected before each timed run when `--expose-gc` is on.
 */
export async function timeAlternating(cases: readonly TimedCase[], rounds: Rounds): Promise<Timings> {
  const samples = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (let round = 0; round < rounds.warmup + rounds.iterations; round++) {
    // Each round starts with the next case, so that no case always runs first (right after a collection).
    for (let k = 0; k < cases.length; k++) {
      const timed = cases[(round + k) % cases.length] as TimedCase;
      const prepared = await timed.setup?.();
      collect?.();
      const start = performance.now();
      await timed.run(prepared);
      const seconds = (performance.now() - start) / 1000;
      if (round >= rounds.warmup) samples.get(timed.name)?.push(seconds);
    }
  }
  return new Timings(samples);
}
