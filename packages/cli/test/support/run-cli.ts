// The catalog-kit command as a child process, from its source (as a checkout without a build
// runs it), with an environment of its own: the caller's CATALOG_URL and CATALOG_TOKEN never leak in.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../../src/main.ts", import.meta.url));

/** How the command is run. */
export interface CliOptions {
  /** Added to a bare PATH and HOME. */
  readonly env?: Readonly<Record<string, string>>;
  /** Its standard input; none (an empty one) when left out. */
  readonly input?: string | Buffer;
  /** Killed after this long; its code is then null. Default 60 s. */
  readonly timeoutMs?: number;
}

/** How the command ended. */
export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Starts the command with `args`. */
export function spawnCli(args: readonly string[], options: CliOptions = {}): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, ["--conditions=@catalog-kit/source", "--import", "tsx", MAIN, ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...options.env },
  });
  child.stdin.end(options.input);
  return child;
}

/** Runs the command with `args` to its end. */
export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const child = spawnCli(args, options);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}
