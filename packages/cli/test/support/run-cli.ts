// The catalog-kit command, run two ways with an environment of its own (the caller's CATALOG_URL
// and CATALOG_TOKEN never leak in): in this process through `main` with streams of its own, which
// most tests use (a process of its own loads the TypeScript sources anew, most of a second of CPU a
// call); or as a child process from its source, as a checkout without a build runs it, for what only
// a process shows: its exit, a pipe its reader closes, a server it must not start.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { globalAgent } from "node:http";
import { PassThrough, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { main } from "../../src/main.ts";

const MAIN = fileURLToPath(new URL("../../src/main.ts", import.meta.url));

/** How the command is run. */
export interface CliOptions {
  /** Added to a bare PATH and HOME. */
  readonly env?: Readonly<Record<string, string>>;
  /** Its standard input; none (an empty one) when left out. */
  readonly input?: string | Buffer;
}

/** How a child process of the command is run. */
export interface ProcessOptions extends CliOptions {
  /** Killed after this long; its code is then null. Default 60 s. */
  readonly timeoutMs?: number;
}

/** How the command ended. */
export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const environment = (options: CliOptions) => ({
  PATH: process.env.PATH ?? "",
  HOME: process.env.HOME ?? "",
  ...options.env,
});

// Decoded once at the end, so that a character split between two chunks comes out whole.
function collector(): { stream: Writable; text(): string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString("utf8") };
}

/** Runs the command with `args` to its end, in this process. */
export async function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const stdin = new PassThrough();
  stdin.end(options.input);
  const stdout = collector();
  const stderr = collector();
  const code = await main(args, { stdin, stdout: stdout.stream, stderr: stderr.stream, env: environment(options) });
  // A process's end closes its kept-alive connections; here the next call would otherwise reuse
  // one, and meet a server that closed it meanwhile.
  for (const sockets of Object.values(globalAgent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** Starts the command with `args` as a child process. */
export function spawnCli(args: readonly string[], options: CliOptions = {}): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, ["--conditions=@catalog-kit/source", "--import", "tsx", MAIN, ...args], {
    env: environment(options),
  });
  child.stdin.end(options.input);
  return child;
}

/** Runs the command with `args` as a child process, to its end. */
export function runCliProcess(args: readonly string[], options: ProcessOptions = {}): Promise<CliResult> {
  const child = spawnCli(args, options);
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({
        code,
        stdout: Buffer.concat(stdout).toString("utf8"),
        stderr: Buffer.concat(stderr).toString("utf8"),
      });
    }),
  );
}
