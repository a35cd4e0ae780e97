// Another program run to completion with its CPU time read from /proc: it runs under a shell that
// prints its own stat line once the program has exited, and the shell's cutime + cstime (the
// children it waited for) is the program's CPU. A load generator or a command-line client is
// measured like the server it talks to, not guessed.
import { spawn } from "node:child_process";

/** How a program run by `runMeasured` ended. */
export interface Finished {
  /** Its exit code (null when a signal ended it). */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** CPU seconds (user + system) it used, in ticks of 1/100 s (USER_HZ). */
  readonly cpuSeconds: number;
  readonly seconds: number;
}

const STAT = "@@stat ";

/** Runs `command args` to its end (Linux: /proc), collecting its output and its CPU time. */
export function runMeasured(
  command: string,
  args: readonly string[],
  options: { cwd?: string | URL; env?: NodeJS.ProcessEnv; onStderrLine?: (line: string) => void } = {},
): Promise<Finished> {
  const shell = `"$@"; status=$?; echo "${STAT}$(cat /proc/$$/stat)"; exit $status`;
  const started = performance.now();
  const child = spawn("sh", ["-c", shell, "sh", command, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  let stdout = "";
  let stderr = "";
  let partial = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    const text = chunk.toString();
    stderr += text;
    if (options.onStderrLine === undefined) return;
    const lines = (partial + text).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) options.onStderrLine(line);
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      const at = stdout.lastIndexOf(STAT);
      const stat = at < 0 ? "" : stdout.slice(at + STAT.length);
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      resolve({
        code,
        stdout: at < 0 ? stdout : stdout.slice(0, at),
        stderr,
        cpuSeconds: (Number(fields[13]) + Number(fields[14])) / 100,
        seconds: (performance.now() - started) / 1_000,
      });
    });
  });
}
