// A server process under valgrind's callgrind: counting starts over at `zero`, `dump` writes what
// was counted since, one file per thread, and the counts are read back per function, with the
// names of JIT-compiled JavaScript taken from the perf map node writes (`--perf-basic-prof`).
import { execFile, spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Launcher } from "./http/servers.ts";

const run = promisify(execFile);

/** Whether valgrind, with callgrind's control and report commands, is installed. */
export function haveCallgrind(): boolean {
  return ["valgrind", "callgrind_control", "callgrind_annotate"].every(
    (command) => spawnSync(command, ["--version"], { stdio: "ignore" }).error === undefined,
  );
}

/**
 * Runs node under callgrind, its counts written under `file` (`file.N-TT`: dump N, thread TT).
 * Threads apart: the main thread runs the requests; the others compile and collect garbage when
 * the engine decides, and would blur a count per request.
 */
export function callgrindLauncher(file: string): Launcher {
  return {
    command: [
      "valgrind",
      "--tool=callgrind",
      "--separate-threads=yes",
      // JIT-compiled code is written over code that ran before: valgrind must notice.
      "--smc-check=all-non-file",
      `--callgrind-out-file=${file}`,
    ],
    nodeArgs: ["--perf-basic-prof"],
  };
}

/** Starts counting anew in process `pid`. */
export async function zero(pid: number): Promise<void> {
  await run("callgrind_control", ["--zero", String(pid)]);
}

/** Writes what process `pid` counted since the last zero: the first dump is `file.1-TT`. */
export async function dump(pid: number): Promise<void> {
  await run("callgrind_control", ["--dump", String(pid)]);
}

/** What one thread counted: all its instructions, and each function's own (not its callees'). */
export interface Counted {
  readonly total: number;
  readonly functions: ReadonlyMap<string, number>;
}

interface Symbol {
  readonly start: number;
  readonly size: number;
  readonly name: string;
}

// node's perf map, read and removed: one line per compiled function, `start size name` (hex).
function perfMap(pid: number): Symbol[] {
  const file = join("/tmp", `perf-${pid}.map`);
  if (!existsSync(file)) return [];
  const text = readFileSync(file, "utf8");
  rmSync(file, { force: true });
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [start = "", size = "", ...name] = line.split(" ");
      return { start: Number.parseInt(start, 16), size: Number.parseInt(size, 16), name: name.join(" ") };
    })
    .sort((a, b) => a.start - b.start);
}

// A file of the workspace or its dependencies, named from its package folder on.
const WORKSPACE_PATH = /(?:file:\/\/)?\/\S*?\/(packages|node_modules|bench)\//;

function nameAt(symbols: readonly Symbol[], address: number): string {
  let low = 0;
  let high = symbols.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((symbols[middle] as Symbol).start <= address) low = middle + 1;
    else high = middle;
  }
  const symbol = symbols[low - 1];
  if (symbol === undefined || address >= symbol.start + symbol.size) return "JIT code (unnamed)";
  // `*name` is optimized code, `^name` baseline code: one function either way.
  return symbol.name.replace(/^(JS|RegExp):[*^~+]?/, "$1: ").replace(WORKSPACE_PATH, "$1/");
}

/** Thread `thread` of dump `index` of `file`, JIT code named from process `pid`'s perf map (then removed). */
export async function readCounts(file: string, pid: number, index = 1, thread = 1): Promise<Counted> {
  const path = `${file}.${index}-${String(thread).padStart(2, "0")}`;
  const { stdout } = await run("callgrind_annotate", ["--inclusive=no", "--threshold=100", "--auto=no", path], {
    maxBuffer: 64 * 1024 * 1024,
  });
  const symbols = perfMap(pid);
  const functions = new Map<string, number>();
  let total = 0;
  for (const line of stdout.split("\n")) {
    const match = /^\s*([\d,]+)\s+\([^)]*\)\s+(.*)$/.exec(line);
    if (match === null) continue;
    const count = Number((match[1] as string).replaceAll(",", ""));
    const where = (match[2] as string).trim();
    if (where.startsWith("PROGRAM TOTALS")) {
      total = count;
      continue;
    }
    // A frame that was on the stack the whole time (main, the event loop) shows the total: skip it.
    if (count >= total) continue;
    const address = /^\?\?\?:0x([0-9a-f]+)/.exec(where);
    const name = address
      ? nameAt(symbols, Number.parseInt(address[1] as string, 16))
      : where.replace(/^\?\?\?:/, "").replace(/ \[.*\]$/, "");
    functions.set(name, (functions.get(name) ?? 0) + count);
  }
  return { total, functions };
}
