// How a case of the sync scenario is measured on its rig (wall time, CPU, the server's RSS before
// and its peak during), and how the rounds' figures are told in the rows' notes.
import { describePostgres } from "../postgres.ts";
import { measureOn, type Rig, type Taken } from "../rig.ts";
import { resetPeakRss, rssOf, type Standalone } from "../standalone.ts";
import type { RedisFigures } from "../watch.ts";
import { fixed, median, megabytes, ROUNDS, TOKEN } from "./setup.ts";

/** One measured case. */
export interface Measured extends Taken {
  /** Server RSS just before the case. */
  readonly rssBefore: number;
  /** Server peak RSS during the case: VmHWM reset before it, else the highest of samples every 50 ms. */
  readonly peakRss: number;
}

// Whether the server's VmHWM could be reset (else peaks are sampled): said in the notes.
let hwmReset = true;

/** Whether every peak so far is a VmHWM reset before its case (else the highest of RSS samples). */
export const hwmWasReset = () => hwmReset;

/** Runs `work` against the rig's server (measureOn), with its RSS before and its peak during. */
export async function measure<T>(rigged: Rig, work: () => Promise<T>): Promise<{ m: Measured; result: T }> {
  const { pid } = rigged.server;
  const rssBefore = await rssOf(pid);
  hwmReset = (await resetPeakRss(pid)) && hwmReset;
  let sampled = rssBefore;
  const sampler = setInterval(() => {
    void rssOf(pid).then(
      (rss) => {
        sampled = Math.max(sampled, rss);
      },
      () => undefined,
    );
  }, 50);
  try {
    const { taken, hwm, result } = await measureOn(rigged, TOKEN, work);
    return { m: { ...taken, rssBefore, peakRss: hwmReset && hwm !== undefined ? hwm : sampled }, result };
  } finally {
    clearInterval(sampler);
  }
}

/** A run's products per second. */
export const rate = (run: { m: Measured; products: number }) => run.products / run.m.seconds;

/** CPU, memory and stalls of one case, for a row's note. */
export function describe(m: Measured, products: number, bytes?: number): string {
  const perProduct = (seconds: number) => `${fixed((seconds * 1e6) / products, 2)} µs a product`;
  const parts = [
    `${fixed(m.seconds, 2)} s`,
    ...(bytes === undefined ? [] : [`${fixed(megabytes(bytes), 0)} MB, ${fixed(megabytes(bytes) / m.seconds)} MB/s`]),
    `server RSS ${fixed(megabytes(m.rssBefore), 0)} MB before, peak ${fixed(megabytes(m.peakRss), 0)} MB during`,
    `server CPU ${fixed(m.serverCpu, 2)} s (${perProduct(m.serverCpu)})`,
    `client CPU ${fixed(m.clientCpu, 2)} s (${perProduct(m.clientCpu)})`,
    `longest GET /healthz meanwhile ${fixed(m.stall, 0)} ms${m.probeFailures > 0 ? ` (${m.probeFailures} not 200, first: ${m.probeFailure})` : ""}`,
  ];
  if (m.redis !== undefined) {
    parts.push(
      `redis-server CPU ${fixed(m.redis.cpuSeconds, 2)} s, ${fixed(megabytes(m.redis.usedBytes), 0)} MB used after`,
      `longest script call ${fixed(m.redis.script, 2)} ms (${m.redis.scriptCall}; ${m.redis.over10} of 10 ms or more), longest command ${fixed(m.redis.any, 2)} ms (${m.redis.anyCall})`,
    );
  }
  if (m.postgres !== undefined) parts.push(describePostgres(m.postgres, products));
  return parts.join(", ");
}

/** The round whose figure is the median one, for its note. */
export function medianRun<T extends { m: Measured; products: number }>(runs: readonly T[]): T {
  const figure = median(runs.map(rate));
  return runs.reduce((best, run) => (Math.abs(rate(run) - figure) < Math.abs(rate(best) - figure) ? run : best));
}

/** What the server wrote to stderr (warnings, failed requests), for a note; empty when nothing. */
export const stderrNote = (server: Standalone) =>
  server.stderrLines === 0 ? "" : `; the server wrote ${server.stderrLines} stderr line(s), first: ${server.stderr[0]}`;
/** The longest wait of a `GET /healthz` in each round, for a note. */
export const stalls = (runs: readonly { m: Measured }[]) => runs.map((run) => `${fixed(run.m.stall, 0)} ms`).join(", ");
/** "median of N rounds", for a note. */
export const rounds = (n: number) => `median of ${n} round${n === 1 ? "" : "s"}`;

/**
 * The longest script call of all rounds of a case and of its baseline, with a note naming the
 * round's call, its count of calls of 10 ms or more and its longest command of any kind.
 */
export function longestCall(
  subject: readonly { m: Measured }[],
  baseline: readonly { m: Measured }[],
  roundCount = ROUNDS,
) {
  const longest = (runs: readonly { m: Measured }[]) =>
    runs.reduce((a, b) => ((b.m.redis?.script ?? 0) > (a.m.redis?.script ?? 0) ? b : a)).m.redis as RedisFigures;
  const [a, b] = [longest(subject), longest(baseline)];
  const what = (r: RedisFigures) =>
    `${r.scriptCall}, ${r.over10} script call(s) of 10 ms or more in its round, longest command of any kind ${fixed(r.any, 2)} ms (${r.anyCall})`;
  return {
    figure: a.script,
    baseline: b.script,
    note: `longest of ${roundCount} round${roundCount === 1 ? "" : "s"}: ${what(a)}; baseline: ${what(b)}`,
  };
}
