// HTTP load against the product and its baselines, each server in its own process (so the load
// generator never shares an event loop with a server), rounds alternating. GETs go through wrk (a C
// load generator on one thread, when installed; autocannon otherwise), POSTs through autocannon.
// One file past the usual length: its rounds must alternate every server in one process, so the
// servers, the load and the rows of both storages are driven from here.
// The product runs twice: the handler alone on startServer, and the standalone server exactly as
// `npm start` runs it (its CLI, a configuration file, the access log on, every default).
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createRedisStore } from "@catalog-kit/adapter-redis";
import { createCatalog } from "@catalog-kit/catalog-core";
import { type RedisServer, startRedisServer } from "@catalog-kit/test-support";
import autocannon from "autocannon";
import { generateProducts, toBulkBody, toCsvContent } from "../data.ts";
import { median } from "../measure.ts";
import { benchOptions } from "../options.ts";
import { emit, progress, type Row } from "../report.ts";
import { KEY_PREFIX, SITE, TOKEN } from "../servers/shared.ts";
import { npmStartArgs, ROOT } from "../standalone.ts";
import { haveWrk, runWrk, writeGetScript } from "../wrk.ts";

const { quick, only } = benchOptions();
/** `--only memory|redis` and `--only get|bulk|csv` (repeatable) narrow the run; a kind not named is not narrowed. */
const wanted = (name: string, kind: readonly string[]) => {
  const named = only?.filter((o) => kind.includes(o)) ?? [];
  return named.length === 0 || named.includes(name);
};
const PARTS = ["get", "bulk", "csv"];
const stored = quick ? 1_000 : 10_000;
const getSeconds = quick ? 1 : 10;
const postSeconds = quick ? 1 : 5;
const rounds = quick ? 1 : 3;
const BATCH = 1_000;
const products = generateProducts(stored);
const here = new URL("..", import.meta.url);

const work = mkdtempSync(join(tmpdir(), "catalog-bench-http-"));
process.once("exit", () => rmSync(work, { recursive: true, force: true }));
const wrk = haveWrk();

interface Running {
  readonly url: string;
  /** CPU seconds the server process has used so far, where the system tells (Linux); else undefined. */
  cpuSeconds(): number | undefined;
  stop(): Promise<void>;
}

// utime + stime of a process, in clock ticks of 1/100 s (Linux's USER_HZ).
function cpuSecondsOf(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

// A server child process: where it listens, its CPU so far, and a graceful stop.
function running(url: string, child: ChildProcess, exited: Promise<void>): Running {
  return {
    url,
    cpuSeconds: () => cpuSecondsOf(child.pid),
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

async function startServer(file: string, args: readonly string[] = []): Promise<Running> {
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", "tsx", "--conditions=@catalog-kit/source", file, ...args],
    { cwd: here, stdio: ["ignore", "pipe", "inherit"] },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const url = await new Promise<string>((resolve, reject) => {
    lines.once("line", (line) => resolve((JSON.parse(line) as { url: string }).url));
    child.once("exit", (code) => reject(new Error(`${file} exited with ${code} before listening`)));
  });
  return running(url, child, exited);
}

/**
 * The standalone server as `npm start` runs it (`catalog-kit serve` from source, under tsx), configured
 * by a file with the bench's site and token and nothing else, so every limit and the access log
 * are at their defaults. Its stdout (the access log) goes to a file, as `npm start > access.log`
 * would; the products are loaded over HTTP.
 */
async function startNpmStart(): Promise<Running> {
  const config = join(work, "config.json");
  writeFileSync(config, JSON.stringify({ sites: [SITE], tokens: [{ token: TOKEN, sites: [SITE] }] }));
  const log = join(work, "access.log");
  const out = openSync(log, "w");
  const { ACCESS_LOG: _, ...env } = process.env;
  const child: ChildProcess = spawn(process.execPath, npmStartArgs(), {
    cwd: ROOT,
    env: { ...env, PORT: "0", CATALOG_CONFIG: config },
    stdio: ["ignore", out, "inherit"],
  });
  closeSync(out);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let url: string | undefined;
  for (let waited = 0; url === undefined; waited += 50) {
    if (child.exitCode !== null || waited > 30_000)
      throw new Error(`npm start did not listen:\n${readFileSync(log, "utf8")}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    url = /listening on (http:\/\/\S+)/.exec(readFileSync(log, "utf8"))?.[1];
  }
  for (let first = 0; first < stored; first += BATCH) {
    const response = await fetch(`${url}/external/product/v1/bulk`, {
      method: "POST",
      headers: { "x-service-access-token": TOKEN, "content-type": "application/json" },
      body: toBulkBody(products.slice(first, first + BATCH)),
    });
    if (response.status !== 200) throw new Error(`npm start refused the preload: ${await response.text()}`);
  }
  return running(url, child, exited);
}

// Visit products in a scrambled order, as real traffic does.
const getPaths = products.map(
  (_, i) =>
    `/external/product/v1/${encodeURIComponent((products[(i * 7_919) % stored] as { id: string }).id)}?siteId=${SITE.siteId}&siteType=${SITE.siteType}`,
);

// Ten slices of 1,000 stored products, each in two price variants sent in turn, so that every
// request really updates 1,000 products instead of finding them unchanged.
function bodies(encode: (batch: typeof products) => string): Buffer[] {
  const out: Buffer[] = [];
  for (let variant = 0; variant < 2; variant++) {
    for (let first = 0; first + BATCH <= stored; first += BATCH) {
      const batch = products.slice(first, first + BATCH).map((p) => ({ ...p, price: (p.price ?? 0) + variant }));
      out.push(Buffer.from(encode(batch)));
    }
  }
  return out;
}
const bulkBodies = bodies(toBulkBody);
const csvBodies = bodies((batch) => JSON.stringify({ csvContent: toCsvContent(batch) }));

interface Load {
  readonly path: string;
  readonly method: "GET" | "POST";
  readonly connections: number;
  readonly seconds: number;
  readonly bodies?: readonly Buffer[];
}

interface Measured {
  /** Requests per second, every one answered 2xx. */
  readonly rate: number;
  /** 99th percentile latency in milliseconds. */
  readonly p99: number;
  /**
   * Server CPU per request in microseconds. When the load generator is the bound (it shares the
   * machine's cores), rates converge and this is what still tells the servers apart.
   */
  readonly cpuMicros: number | undefined;
  /** The load generator's CPU per request in microseconds: wrk's, or this process's for autocannon. */
  readonly generatorMicros: number | undefined;
}

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
    p99: result.p99,
    cpuMicros,
    generatorMicros: (result.cpuSeconds * 1e6) / result.requests,
  };
}

/** What the server sustained under `spec`; throws when any request failed. */
async function load(server: Running, spec: Load): Promise<Measured> {
  if (wrk && spec.method === "GET") return loadWithWrk(server, spec);
  const { url } = server;
  const cpuBefore = server.cpuSeconds();
  const generatorBefore = process.cpuUsage();
  let next = 0;
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
          if (spec.bodies) return { ...request, body: spec.bodies[n % spec.bodies.length] as unknown as string };
          return { ...request, path: getPaths[n % getPaths.length] as string };
        },
      },
    ],
  });
  if (result.errors > 0 || result.non2xx > 0 || result.timeouts > 0) {
    throw new Error(
      `${url}${spec.path}: ${result.errors} errors, ${result.non2xx} non-2xx, ${result.timeouts} timeouts`,
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
    p99: result.latency.p99,
    cpuMicros,
    generatorMicros: (generator.user + generator.system) / result.requests.total,
  };
}

/** Runs each contender once per round, in turn; returns every contender's per-round rates. */
async function alternate(name: string, contenders: Record<string, [Running, Load]>): Promise<Map<string, Measured[]>> {
  const rates = new Map<string, Measured[]>(Object.keys(contenders).map((key) => [key, []]));
  // Untimed load first, so that every server is compiled and warm when its rounds start.
  if (!quick) for (const [server, spec] of Object.values(contenders)) await load(server, { ...spec, seconds: 2 });
  for (let round = 0; round < rounds; round++) {
    for (const [key, [server, spec]] of Object.entries(contenders)) {
      progress(`${name}: ${key}, round ${round + 1} of ${rounds}, ${spec.seconds} s`);
      rates.get(key)?.push(await load(server, spec));
    }
  }
  return rates;
}

function compare(rates: Map<string, Measured[]>, subject: string, baseline: string, perRequest = 1) {
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
    return (
      (server === undefined ? "" : `, server CPU ${server.toFixed(2)} µs ${unit}`) +
      (generator === undefined ? "" : `, load generator CPU ${generator.toFixed(2)} µs ${unit}`)
    );
  };
  const cpuRatio = a.every((run, i) => run.cpuMicros !== undefined && b[i]?.cpuMicros !== undefined)
    ? median(a.map((run, i) => (run.cpuMicros as number) / ((b[i] as Measured).cpuMicros as number)))
    : undefined;
  return {
    figure: median(a.map((run) => run.rate)) * perRequest,
    baseline: median(b.map((run) => run.rate)) * perRequest,
    ratio: median(a.map((x, i) => x.rate / (b[i] as Measured).rate)),
    cpu: micros(a, (run) => run.cpuMicros),
    baselineCpu: micros(b, (run) => run.cpuMicros),
    cpuRatio,
    note: `p99 latency ${p99(a)}${cpu(a)}; baseline ${p99(b)}${cpu(b)}`,
  };
}

const GENERATOR = wrk ? "wrk -t1" : "autocannon";

const GET: Load = { path: "", method: "GET", connections: 50, seconds: getSeconds };
const BULK: Load = {
  path: "/external/product/v1/bulk",
  method: "POST",
  connections: 10,
  seconds: postSeconds,
  bodies: bulkBodies,
};
const CSV: Load = {
  path: "/external/product/v1/bulk/csv",
  method: "POST",
  connections: 10,
  seconds: postSeconds,
  bodies: csvBodies,
};

const rows: Row[] = [];
let redis: RedisServer | undefined;
const servers: Running[] = [];
try {
  const bareFixed = await startServer("servers/bare-fixed.ts");
  const bareParse = await startServer("servers/bare-parse.ts");
  servers.push(bareFixed, bareParse);
  const haveRedis = spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;
  if (haveRedis) {
    redis = await startRedisServer();
    // Redis is loaded once, here; memory servers load their own copy of the same products.
    const loader = createCatalog({ store: createRedisStore({ url: redis.url, keyPrefix: KEY_PREFIX }), sites: [SITE] });
    await loader.importProducts(SITE, products);
    await loader.close();
  } else {
    rows.push({
      scenario: "HTTP scenarios with Redis storage",
      figure: null,
      unit: "",
      note: "not available: redis-server is not installed",
    });
  }

  for (const storage of ["memory", "redis"] as const) {
    if (!wanted(storage, ["memory", "redis"])) continue;
    if (storage === "redis" && redis === undefined) continue;
    const args = ["--storage", storage, "--redis-url", redis?.url ?? "", "--preload", String(stored)];
    const catalog = await startServer("servers/catalog.ts", args);
    const fastify = await startServer("servers/fastify.ts", args);
    servers.push(catalog, fastify);
    // `npm start` serves the memory store its configuration names; Redis rows compare the handler.
    const npmStart = storage === "memory" ? await startNpmStart() : undefined;
    if (npmStart !== undefined) servers.push(npmStart);
    const withNpmStart = <T>(contender: T): Record<string, T> =>
      npmStart === undefined ? {} : { npmStart: contender };
    const judged = !quick && storage === "memory";
    const n = stored.toLocaleString("en-US");

    if (wanted("get", PARTS)) {
      const get = await alternate(`GET by id, ${storage}`, {
        catalog: [catalog, GET],
        ...withNpmStart<[Running, Load]>([npmStart as Running, GET]),
        fastify: [fastify, GET],
        bare: [bareFixed, GET],
      });
      const getScenario = (subject: string) =>
        `HTTP GET by id, ${storage}, ${subject}, ${GENERATOR}, 50 connections, ${getSeconds} s x ${rounds} (${n} products stored)`;
      if (npmStart !== undefined) {
        const started = compare(get, "npmStart", "fastify");
        const scenario = getScenario("standalone server as `npm start` runs it (access log on)");
        rows.push({
          scenario,
          figure: started.figure,
          unit: "req/s",
          baseline: { name: "fastify, same catalog", figure: started.baseline, unit: "req/s" },
          ratio: started.ratio,
          note: started.note,
          ...(judged ? { target: { label: ">= 1.0x", minRatio: 1 } } : {}),
        });
        if (started.cpu !== undefined && started.baselineCpu !== undefined) {
          rows.push({
            scenario: `${scenario}: server CPU per request`,
            figure: started.cpu,
            unit: "µs/request",
            baseline: { name: "fastify, same catalog", figure: started.baselineCpu, unit: "µs/request" },
            ...(started.cpuRatio === undefined ? {} : { ratio: started.cpuRatio }),
            ...(judged ? { target: { label: "<= 1.0x", maxRatio: 1 } } : {}),
          });
        }
      }
      const vsFastify = compare(get, "catalog", "fastify");
      rows.push({
        scenario: getScenario("handler alone (no access log)"),
        figure: vsFastify.figure,
        unit: "req/s",
        baseline: { name: "fastify, same catalog", figure: vsFastify.baseline, unit: "req/s" },
        ratio: vsFastify.ratio,
        note: vsFastify.note,
        ...(judged ? { target: { label: ">= 1.0x", minRatio: 1 } } : {}),
      });
      const vsBare = compare(get, "catalog", "bare");
      rows.push({
        scenario: getScenario("handler alone (no access log)"),
        figure: vsBare.figure,
        unit: "req/s",
        baseline: { name: "bare node:http, fixed JSON", figure: vsBare.baseline, unit: "req/s" },
        ratio: vsBare.ratio,
        note: vsBare.note,
        ...(judged ? { target: { label: ">= 0.85x", minRatio: 0.85 } } : {}),
      });
    }

    if (wanted("bulk", PARTS)) {
      const bulk = await alternate(`POST bulk of 1,000, ${storage}`, {
        catalog: [catalog, BULK],
        ...withNpmStart<[Running, Load]>([npmStart as Running, BULK]),
        fastify: [fastify, BULK],
        bare: [bareParse, BULK],
      });
      const bulkScenario = (subject: string) =>
        `HTTP POST bulk of 1,000 products, ${storage}, ${subject}, 10 connections, every product updated`;
      const bulkRow = (subject: string, contender: string, baseline: string, name: string, target?: number): Row => {
        const figures = compare(bulk, contender, baseline, BATCH);
        return {
          scenario: bulkScenario(subject),
          figure: figures.figure,
          unit: "products/s",
          baseline: { name, figure: figures.baseline, unit: "products/s" },
          ratio: figures.ratio,
          note: figures.note,
          ...(judged && target !== undefined
            ? { target: { label: `>= ${target.toFixed(1)}x`, minRatio: target } }
            : {}),
        };
      };
      const throughCatalog = "fastify, JSON.parse + importProducts on the same catalog";
      if (npmStart !== undefined) {
        rows.push(bulkRow("standalone server as `npm start` runs it", "npmStart", "fastify", throughCatalog, 1));
      }
      rows.push(bulkRow("handler alone", "catalog", "fastify", throughCatalog, 1));
      rows.push(bulkRow("handler alone", "catalog", "bare", "bare node:http, read + JSON.parse only", 0.8));
    }

    if (wanted("csv", PARTS)) {
      const csv = await alternate(`POST CSV of 1,000 rows, ${storage}`, {
        catalog: [catalog, CSV],
        bare: [bareParse, CSV],
      });
      const csvFigures = compare(csv, "catalog", "bare", BATCH);
      rows.push({
        scenario: `HTTP POST CSV of 1,000 rows, ${storage}, handler alone, 10 connections, every product updated`,
        figure: csvFigures.figure,
        unit: "rows/s",
        baseline: { name: "bare node:http, read + JSON.parse only", figure: csvFigures.baseline, unit: "rows/s" },
        ratio: csvFigures.ratio,
        note: csvFigures.note,
      });
    }
    await catalog.stop();
    await fastify.stop();
    await npmStart?.stop();
  }
} finally {
  for (const server of servers) await server.stop().catch(() => {});
  await redis?.stop();
}
for (const row of rows) emit(row);
