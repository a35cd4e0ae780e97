// The servers the HTTP scenario loads, each in a child process of its own: the bench's servers
// (servers/*.ts) and the standalone server exactly as `npm start` runs it.
import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { toBulkBody } from "../data.ts";
import { SITE, TOKEN } from "../servers/shared.ts";
import { npmStartArgs, ROOT } from "../standalone.ts";
import { BATCH, products, stored, work } from "./setup.ts";

const here = new URL("..", import.meta.url);
// BENCH_SERVER_PROFILES=DIR: every server writes a CPU profile of its run into DIR when it stops,
// so that the servers are profiled under the very load the bench measures.
const profiling = process.env.BENCH_SERVER_PROFILES;
const profileArgs = profiling ? ["--cpu-prof", `--cpu-prof-dir=${profiling}`] : [];

/** A server in a child process: where it listens, its CPU so far, and a graceful stop. */
export interface Running {
  readonly url: string;
  /** The server's process id (under a launcher, valgrind runs node in that same process). */
  readonly pid: number | undefined;
  /** CPU seconds the server process has used so far, where the system tells (Linux); else undefined. */
  cpuSeconds(): number | undefined;
  /** CPU seconds its store (redis-server, or every PostgreSQL process) has used so far, when it has one the bench watches. */
  storeCpuSeconds?(): Promise<number>;
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
    pid: child.pid,
    cpuSeconds: () => cpuSecondsOf(child.pid),
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** How a server's node runs under another program, such as valgrind: none by default. */
export interface Launcher {
  /** The program and its arguments; node's path and arguments follow them. */
  readonly command: readonly string[];
  /** Node's own flags, such as `--perf-basic-prof`. */
  readonly nodeArgs?: readonly string[];
}

const DIRECT: Launcher = { command: [] };

// Node with `args`, through the launcher's program when it names one.
function spawnNode({ command, nodeArgs = [] }: Launcher, args: readonly string[], options: SpawnOptions): ChildProcess {
  const [program, ...prefix] = command;
  const node = [...profileArgs, ...nodeArgs, ...args];
  return program === undefined
    ? spawn(process.execPath, node, options)
    : spawn(program, [...prefix, process.execPath, ...node], options);
}

/** Starts a bench server (servers/*.ts) under tsx, through `launcher` if given, and waits for the URL it announces. */
export async function startServer(file: string, args: readonly string[] = [], launcher = DIRECT): Promise<Running> {
  const child = spawnNode(launcher, ["--import", "tsx", "--conditions=@catalog-kit/source", file, ...args], {
    cwd: here,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const url = await new Promise<string>((resolve, reject) => {
    lines.once("line", (line) => resolve((JSON.parse(line) as { url: string }).url));
    child.once("exit", (code) => reject(new Error(`${file} exited with ${code} before listening`)));
  });
  return running(url, child, exited);
}

/** Where a standalone server keeps its products, and how the bench reads its store's CPU. */
export interface NpmStartStorage {
  /** A name of its own for its configuration file and access log. */
  readonly name: string;
  /** The configuration's `storage` section. */
  readonly section: object;
  /** Its store's CPU so far, when the store is a process of its own (redis-server, PostgreSQL). */
  readonly cpuSeconds?: () => Promise<number>;
}

/** The configuration's storage section of the memory store, named: a configuration without one is on SQLite. */
const MEMORY = { adapter: "memory" };

/** Settings of the configuration file that differ from the defaults, to tell what a feature costs. */
export interface NpmStartVariant {
  /** A name of its own for its configuration file and access log. */
  readonly name: string;
  /** Top-level sections of the configuration file, such as `{ accessLog: false }`. */
  readonly settings: object;
}

/** The access log and metrics off: what they cost a request is the difference. */
export const QUIET: NpmStartVariant = { name: "quiet", settings: { accessLog: false, metrics: false } };

/**
 * The standalone server as `npm start` runs it (`catalog-kit serve` from source, under tsx), configured
 * by a file with the bench's site and token and its storage section (memory, or the storage
 * given) and nothing else, so every limit and the access log are at their defaults (a `variant` changes
 * the settings it names). Its stdout (the access log) goes to a file, as
 * `npm start > access.log` would; the products are loaded over HTTP. A `launcher` runs it under
 * another program.
 */
export async function startNpmStart(
  storage?: NpmStartStorage,
  variant?: NpmStartVariant,
  launcher = DIRECT,
): Promise<Running> {
  const name = `${storage?.name ?? "memory"}${variant === undefined ? "" : `-${variant.name}`}`;
  const config = join(work, `config-${name}.json`);
  const sections = { storage: storage?.section ?? MEMORY, ...variant?.settings };
  writeFileSync(config, JSON.stringify({ sites: [SITE], tokens: [{ token: TOKEN, sites: [SITE] }], ...sections }));
  const log = join(work, `access-${name}.log`);
  const out = openSync(log, "w");
  const { ACCESS_LOG: _, ...env } = process.env;
  const child = spawnNode(launcher, npmStartArgs(), {
    cwd: ROOT,
    env: { ...env, PORT: "0", CATALOG_CONFIG: config },
    stdio: ["ignore", out, "inherit"],
  });
  closeSync(out);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let url: string | undefined;
  for (let waited = 0; url === undefined; waited += 50) {
    // Under a launcher (valgrind), node starts some fifty times slower.
    if (child.exitCode !== null || waited > (launcher === DIRECT ? 30_000 : 600_000))
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
  const started = running(url, child, exited);
  return storage?.cpuSeconds === undefined ? started : { ...started, storeCpuSeconds: storage.cpuSeconds };
}
