// The load of the HTTP scenario: GETs through wrk (a C load generator on one thread, when
// installed; autocannon otherwise), POSTs through autocannon, contenders alternating round after
// round, and their figures compared.
import autocannon from "autocannon";
import { median } from "../measure.ts";
import { progress } from "../report.ts";
import { TOKEN } from "../servers/shared.ts";
import { runWrk, writeGetScript } from "../wrk.ts";
import type { Running } from "./servers.ts";
import { aloneRounds, getPaths, type Load, quick, rounds, work, wrk } from "./setup.ts";

/** What a server sustained in one round of a load. */
export interface Measured {
  /** Requests per second, every one answered 2xx. */
  readonly rate: number;
  readonly requests: number;
  /** 99th percentile latency in milliseconds. */
  readonly p99: number;
  /**
   * Server CPU per request in microseconds. When the load generator is the bound (it shares the
   * machine's cores), rates converge and this is what still tells the servers apart.
   */
  readonly cpuMicros: number | undefined;
  /** The load generator's CPU per request in microseconds: wrk's, or this process's for autocannon. */
  readonly generatorMicros: number | undefined;
  /** The store's CPU per request in microseconds, for a server whose store the bench watches. */
  readonly storeMicros?: number;
}

// Keys unique to this process and run, so that no keyed request can meet a key recorded before.
const KEY_RUN = `bench-${process.pid}-${Date.now().toString(36)}`;
let keys = 0;

const getScript = writeGetScript(work, getPaths, { "x-service-access-token": TOKEN });

/** GETs through wrk: what the server sustained; throws when any request failed. */
async function loadWithWrk(server: Running, spec: Load): Promise<Measured> {
  const cpuBefore = server.cpuSeconds();
  const result = await runWrk(server.url, getScript, spec.connections, spec.seconds);
  const cpuAfter = server.cpuSeconds();
  if (result.failures > 0) throw new Error(`${server.url}: ${result.failures} failed GETs`);
  const cpuMicros =
    cpuBefore === undefined || cpuAfter === undefined ? undefined : ((cpuAfter - cpuBefore) * 1e6) / result.requests;
  return {
    rate: result.requests / result.seconds,
    requests: result.requests,
    p99: result.p99,
    cpuMicros,
    generatorMicros: (result.cpuSeconds * 1e6) / result.requests,
  };
}

/** What the server sustained under `spec` (and its store's CPU, when watched); throws when any request failed. */
export async function load(server: Running, spec: Load): Promise<Measured> {
  const storeBefore = await server.storeCpuSeconds?.();
  const measured =
    wrk && spec.method === "GET" ? await loadWithWrk(server, spec) : await loadWithAutocannon(server, spec);
  if (storeBefore === undefined || server.storeCpuSeconds === undefined) return measured;
  const storeSeconds = (await server.storeCpuSeconds()) - storeBefore;
  return { ...measured, storeMicros: (storeSeconds * 1e6) / measured.requests };
}

/** The load through autocannon, in this process (its CPU is the generator's). */
async function loadWithAutocannon(server: Running, spec: Load): Promise<Measured> {
  const { url } = server;
  const cpuBefore = server.cpuSeconds();
  const generatorBefore = process.cpuUsage();
  let next = 0;
  let replayed = 0;
  const result = await autocannon({
    url: `${url}${spec.path}`,
    connections: spec.connections,
    duration: spec.seconds,
    headers: { "x-service-access-token": TOKEN, "content-type": "application/json" },
    requests: [
      {
        method: spec.method,
        setupRequest: (request) => {
          const n = next++;
          const headers = spec.keyed
            ? { ...request.headers, "idempotency-key": `${KEY_RUN}-${keys++}` }
            : request.headers;
          if (spec.bodies)
            return { ...request, headers, body: spec.bodies[n % spec.bodies.length] as unknown as string };
          return { ...request, path: getPaths[n % getPaths.length] as string };
        },
        // A replay would be an answer from a record, not an import: the load would measure nothing.
        ...(spec.keyed
          ? {
              onResponse: (_status, _body, _context, headers) => {
                if (headers?.["idempotent-replayed"] !== undefined) replayed++;
              },
            }
          : {}),
      },
    ],
  });
  if (result.errors > 0 || result.non2xx > 0 || result.timeouts > 0 || replayed > 0) {
    throw new Error(
      `${url}${spec.path}: ${result.errors} errors, ${result.non2xx} non-2xx, ${result.timeouts} timeouts, ${replayed} replayed`,
    );
  }
  const cpuAfter = server.cpuSeconds();
  const generator = process.cpuUsage(generatorBefore);
  const cpuMicros =
    cpuBefore === undefined || cpuAfter === undefined
      ? undefined
      : ((cpuAfter - cpuBefore) * 1e6) / result.requests.total;
  return {
    rate: result.requests.total / (result.duration || spec.seconds),
    requests: result.requests.total,
    p99: result.latency.p99,
    cpuMicros,
    generatorMicros: (generator.user + generator.system) / result.requests.total,
  };
}

/** Runs each contender once per round (`times` rounds), in turn; returns every contender's per-round rates. */
export async function alternate(
  name: string,
  contenders: Record<string, [Running, Load]>,
  times = rounds,
): Promise<Map<string, Measured[]>> {
  const rates = new Map<string, Measured[]>(Object.keys(contenders).map((key) => [key, []]));
  // Untimed load first, so that every server is compiled and warm when its rounds start.
  if (!quick) for (const [server, spec] of Object.values(contenders)) await load(server, { ...spec, seconds: 2 });
  for (let round = 0; round < times; round++) {
    for (const [key, [server, spec]] of Object.entries(contenders)) {
      progress(`${name}: ${key}, round ${round + 1} of ${times}, ${spec.seconds} s`);
      rates.get(key)?.push(await load(server, spec));
    }
  }
  return rates;
}

/** Starts a fresh server process. */
export type Starter = () => Promise<Running>;

/**
 * Runs each contender alone, round after round: a fresh process every round, started, warmed,
 * measured and stopped before the next contender starts, in an order that turns every round.
 * With a few idle server processes beside the measured one, identical servers differed by up to
 * a fifth in CPU per GET from one process to the next, for the whole life of the process; alone,
 * by a few per cent. A figure that depends on which process drew which luck is no comparison.
 */
export async function alternateAlone(
  name: string,
  contenders: Record<string, [Starter, Load]>,
  times = aloneRounds,
): Promise<Map<string, Measured[]>> {
  const keys = Object.keys(contenders);
  const rates = new Map<string, Measured[]>(keys.map((key) => [key, []]));
  for (let round = 0; round < times; round++) {
    for (const key of [...keys.slice(round % keys.length), ...keys.slice(0, round % keys.length)]) {
      const [start, spec] = contenders[key] as [Starter, Load];
      progress(`${name}: ${key}, round ${round + 1} of ${times}, ${spec.seconds} s, a fresh process`);
      const server = await start();
      try {
        if (!quick) await load(server, { ...spec, seconds: 2 });
        rates.get(key)?.push(await load(server, spec));
      } finally {
        await server.stop();
      }
    }
  }
  return rates;
}

/**
 * A subject's figures against a baseline's over the same rounds: median rates (times
 * `perRequest`, for products a request), the median of the per-round ratios, CPU, and a note.
 */
export function compare(rates: Map<string, Measured[]>, subject: string, baseline: string, perRequest = 1) {
  const a = rates.get(subject) ?? [];
  const b = rates.get(baseline) ?? [];
  const p99 = (runs: Measured[]) => `${Number(median(runs.map((run) => run.p99)).toFixed(2))} ms`;
  const unit = perRequest === 1 ? "a request" : "a product";
  const micros = (runs: Measured[], pick: (run: Measured) => number | undefined) => {
    const values = runs.map(pick).filter((value) => value !== undefined);
    return values.length === runs.length ? median(values) / perRequest : undefined;
  };
  const cpu = (runs: Measured[]) => {
    const server = micros(runs, (run) => run.cpuMicros);
    const generator = micros(runs, (run) => run.generatorMicros);
    const store = micros(runs, (run) => run.storeMicros);
    return (
      (server === undefined ? "" : `, server CPU ${server.toFixed(2)} µs ${unit}`) +
      (store === undefined ? "" : `, store CPU ${store.toFixed(2)} µs ${unit}`) +
      (generator === undefined ? "" : `, load generator CPU ${generator.toFixed(2)} µs ${unit}`)
    );
  };
  // The median of the per-round ratios of a CPU figure, where every round of both sides has it.
  const ratioOf = (pick: (run: Measured) => number | undefined) => {
    const ratios = perRound(a, b, pick, (x, y) => x / y);
    return ratios === undefined ? undefined : median(ratios);
  };
  return {
    figure: median(a.map((run) => run.rate)) * perRequest,
    baseline: median(b.map((run) => run.rate)) * perRequest,
    ratio: median(a.map((x, i) => x.rate / (b[i] as Measured).rate)),
    cpu: micros(a, (run) => run.cpuMicros),
    storeCpu: micros(a, (run) => run.storeMicros),
    baselineCpu: micros(b, (run) => run.cpuMicros),
    baselineStoreCpu: micros(b, (run) => run.storeMicros),
    cpuRatio: ratioOf((run) => run.cpuMicros),
    storeCpuRatio: ratioOf((run) => run.storeMicros),
    note: `p99 latency ${p99(a)}${cpu(a)}; baseline ${p99(b)}${cpu(b)}`,
  };
}

// `combine` of each round's figures, subject and baseline; undefined unless every round of both has one.
function perRound(
  a: readonly Measured[],
  b: readonly Measured[],
  pick: (run: Measured) => number | undefined,
  combine: (subject: number, baseline: number) => number,
): number[] | undefined {
  const values: number[] = [];
  for (let i = 0; i < a.length; i++) {
    const other = b[i];
    const [x, y] = [pick(a[i] as Measured), other === undefined ? undefined : pick(other)];
    if (x === undefined || y === undefined) return undefined;
    values.push(combine(x, y));
  }
  return values.length > 0 ? values : undefined;
}

/** The per-round differences of server CPU a request, subject less baseline (µs), where every round has both. */
export function cpuDifferences(
  rates: Map<string, Measured[]>,
  subject: string,
  baseline: string,
): number[] | undefined {
  return perRound(
    rates.get(subject) ?? [],
    rates.get(baseline) ?? [],
    (run) => run.cpuMicros,
    (x, y) => x - y,
  );
}
