// The standalone server exactly as `npm start` runs it (`catalog-kit serve` from the cli's source,
// configured by CATALOG_CONFIG), in a child process of its own, and the bookkeeping that makes sure no child
// process outlives a load or fault script, whether it passes, fails or is interrupted.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { Redis } from "ioredis";

/** The repository's root, where `npm start` runs. */
export const ROOT = new URL("..", import.meta.url);

/**
 * The arguments of `node` that run what `npm start` runs, read from the root package.json's
 * `start` script (`tsx <arguments>`), with `--import tsx` in place of the `tsx` command so that
 * the child is the server itself (its process id, its CPU), not tsx's wrapper. Read here rather
 * than taken from test-support: an A/B runs this bench against older trees, whose `npm start`
 * it must start as they do.
 */
export function npmStartArgs(): string[] {
  const { scripts } = JSON.parse(readFileSync(new URL("package.json", ROOT), "utf8")) as { scripts: { start: string } };
  const [command, ...args] = scripts.start.split(" ");
  if (command !== "tsx") throw new Error(`npm start no longer runs tsx: ${scripts.start}`);
  return ["--import", "tsx", ...args];
}

// Process ids and directories to remove when this process exits for any reason. Killing is done
// with SIGKILL from the synchronous exit hook: nothing asynchronous runs after `exit`.
const pids = new Set<number>();
const dirs = new Set<string>();
let hooked = false;

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.once("exit", () => {
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  // Ctrl-C and a plain kill would otherwise end the process without running the exit hook.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      process.stderr.write(`\n${signal}: stopping every child process\n`);
      process.exit(130);
    });
  }
}

/** Kills `pid` (SIGKILL) when this process exits, unless `forget` is called first. */
export function killOnExit(pid: number): void {
  hookExit();
  pids.add(pid);
}

/** The process is gone or was stopped by its owner: never signal its id again (it may be reused). */
export function forget(pid: number): void {
  pids.delete(pid);
}

/** Removes `dir` when this process exits, unless it was removed before. */
export function removeOnExit(dir: string): void {
  hookExit();
  dirs.add(dir);
}

/** A temporary directory, removed on exit at the latest. */
export async function tempDir(prefix: string): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  removeOnExit(path);
  return {
    path,
    async remove() {
      dirs.delete(path);
      await rm(path, { recursive: true, force: true });
    },
  };
}

const run = promisify(execFile);

/** Resident set size of a process in bytes. */
export async function rssOf(pid: number): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    if (kb !== undefined) return Number(kb) * 1024;
  } catch {
    // No procfs (macOS): ask ps.
  }
  const { stdout } = await run("ps", ["-o", "rss=", "-p", String(pid)]);
  return Number(stdout.trim()) * 1024;
}

/**
 * Peak resident set size of a process so far (Linux's VmHWM), in bytes; undefined without
 * procfs (macOS), where no other process's peak can be read.
 */
export async function peakRssOf(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const kb = /^VmHWM:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/**
 * Brings a process's VmHWM down to its current RSS (Linux 4.0 and later: `5` into
 * `/proc/<pid>/clear_refs`), so that `peakRssOf` afterwards is the peak of what follows, on a
 * process that already did other work; false where that is not possible.
 */
export async function resetPeakRss(pid: number): Promise<boolean> {
  try {
    await writeFile(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/**
 * CPU seconds (user + system) a process has used so far, to tell whether the server or the load
 * generator was the bound of a run. Linux's /proc counts in ticks of 1/100 s (USER_HZ); elsewhere
 * ps answers to the second.
 */
export async function cpuSecondsOf(pid: number): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces; fields after its closing parenthesis do not.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    const { stdout } = await run("ps", ["-o", "cputime=", "-p", String(pid)]);
    const [seconds = 0, minutes = 0, hours = 0] = stdout.trim().replace("-", ":").split(":").map(Number).reverse();
    return hours * 3_600 + minutes * 60 + seconds;
  }
}

/** A running standalone server. */
export interface Standalone {
  readonly name: string;
  readonly url: string;
  readonly pid: number;
  /** Access-log lines (one per answered request) seen so far. */
  readonly accessLogLines: number;
  /** Access-log lines of requests that took the server longer than `SLOW_MS`, first ones only. */
  readonly slow: readonly string[];
  /** What the server wrote to stderr (failed requests are reported there), first lines only. */
  readonly stderr: readonly string[];
  /** How many stderr lines it wrote in all. */
  readonly stderrLines: number;
  /** Resolves with the exit code (null when killed by a signal) once the process is gone. */
  readonly exited: Promise<number | null>;
  signal(signal: NodeJS.Signals): void;
  /** Stops it gracefully (SIGTERM), with SIGKILL after `graceMs`; resolves when it is gone. */
  stop(graceMs?: number): Promise<void>;
}

const KEPT_STDERR_LINES = 20;
/** A request the server took this long over is listed in `slow`: the trace of a hang. */
export const SLOW_MS = 10_000;

/** Writes `config` to a file of its own and starts `npm start`'s server on it, on a free loopback port. */
export async function startStandalone(name: string, config: object): Promise<Standalone> {
  const dir = await tempDir("catalog-standalone-");
  const configFile = join(dir.path, "config.json");
  await writeFile(configFile, JSON.stringify(config, null, 2));
  const child: ChildProcess = spawn(process.execPath, npmStartArgs(), {
    cwd: ROOT,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", CATALOG_CONFIG: configFile },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${name}: the server process did not start`);
  killOnExit(pid);
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      forget(pid);
      void dir.remove();
      resolve(code);
    }),
  );
  const stderr: string[] = [];
  let stderrLines = 0;
  let accessLogLines = 0;
  const slow: string[] = [];
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on("line", (line) => {
    stderrLines++;
    if (stderr.length < KEPT_STDERR_LINES) stderr.push(line);
  });
  const stdout = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const url = await new Promise<string>((resolve, reject) => {
    stdout.on("line", (line) => {
      const listening = /listening on (http:\/\/\S+)/.exec(line)?.[1];
      if (listening !== undefined) resolve(listening);
      else if (line.startsWith('{"time":')) {
        accessLogLines++;
        const ms = Number(/"durationMs":([\d.e+-]+)/.exec(line)?.[1]);
        if (ms > SLOW_MS && slow.length < KEPT_STDERR_LINES) slow.push(line);
      }
    });
    void exited.then((code) =>
      reject(new Error(`${name}: the server exited with ${code} before listening: ${stderr.join("\n")}`)),
    );
  });
  return {
    name,
    url,
    pid,
    get accessLogLines() {
      return accessLogLines;
    },
    stderr,
    slow,
    get stderrLines() {
      return stderrLines;
    },
    exited,
    signal: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Makes sure the redis-server at `url` is killed when this process exits; returns its process id. */
export async function killRedisOnExit(url: string): Promise<number> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
    const pid = Number(/process_id:(\d+)/.exec(await client.info("server"))?.[1]);
    if (!Number.isInteger(pid) || pid <= 0) throw new Error(`redis-server at ${url} did not tell its process id`);
    killOnExit(pid);
    // Its temporary directory (append-only file, snapshots) goes too; nothing else is touched.
    const [, dir] = (await client.config("GET", "dir")) as [string, string];
    if (dirname(dir) === tmpdir() && basename(dir).startsWith("catalog-")) removeOnExit(dir);
    return pid;
  } finally {
    client.disconnect();
  }
}
