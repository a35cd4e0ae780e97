// Debian's wrk as the load generator for GETs: a C program on one thread, so that the server, not
// the generator, is the bound. Its CPU time is read from /proc like the server's (child.ts).
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMeasured } from "./child.ts";

/** Whether `wrk` is on PATH (its `--version` exits with 1, so only a failure to start counts). */
export function haveWrk(): boolean {
  return spawnSync("wrk", ["--version"], { stdio: "ignore" }).error === undefined;
}

/** What one wrk run measured. */
export interface WrkResult {
  readonly requests: number;
  readonly seconds: number;
  /** 99th percentile latency in milliseconds. */
  readonly p99: number;
  /** CPU seconds (user + system) wrk used. */
  readonly cpuSeconds: number;
  /** Answers other than 2xx/3xx, and socket errors. */
  readonly failures: number;
}

/** Writes a Lua script that sends GETs to `paths` in turn, with `headers`; returns its file. */
export function writeGetScript(dir: string, paths: readonly string[], headers: Record<string, string>): string {
  const lua = [
    ...Object.entries(headers).map(
      ([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`,
    ),
    `local paths = { ${paths.map((path) => JSON.stringify(path)).join(", ")} }`,
    "local n = #paths",
    "local i = 0",
    "request = function()",
    "  i = i % n + 1",
    '  return wrk.format("GET", paths[i])',
    "end",
    "",
  ].join("\n");
  const file = join(dir, "get.lua");
  writeFileSync(file, lua);
  return file;
}

const UNIT_MS: Readonly<Record<string, number>> = { us: 0.001, ms: 1, s: 1_000, m: 60_000 };

function millis(text: string | undefined): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text ?? "");
  return match ? Number(match[1]) * (UNIT_MS[match[2] as string] as number) : Number.NaN;
}

/** Runs `wrk -t1 -c<connections> -d<seconds>s --latency -s <script> <url>`. */
export async function runWrk(url: string, script: string, connections: number, seconds: number): Promise<WrkResult> {
  const args = ["-t1", `-c${connections}`, `-d${seconds}s`, "--latency", "-s", script, url];
  const { code, stdout: out, stderr, cpuSeconds } = await runMeasured("wrk", args);
  if (code !== 0) throw new Error(`wrk exited with ${code}:\n${out}${stderr}`);
  const done = /(\d+) requests in ([\d.]+)(\w+),/.exec(out);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socketErrors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  if (done === null) throw new Error(`unexpected wrk output:\n${out}`);
  return {
    requests: Number(done[1]),
    seconds: millis(`${done[2]}${done[3]}`) / 1_000,
    p99: millis(/\s99%\s+(\S+)/.exec(out)?.[1]),
    cpuSeconds,
    failures: non2xx + socketErrors,
  };
}
