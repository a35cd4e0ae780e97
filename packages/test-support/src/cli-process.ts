// The standalone server as a child process, as `npm start` runs it, for tests.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = fileURLToPath(new URL("../../http-node/src/cli.ts", import.meta.url));

/** The standalone server running as a child process, as `npm start` runs it. */
export interface CliProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with stdout once it matches `pattern`; rejects if the process exits first or after `timeoutMs`. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code (or the signal's name). */
  readonly exited: Promise<number | string>;
}

/** Starts `src/cli.ts` with the source condition and the given environment (PORT defaults to 0). */
export function startCli(env: Record<string, string> = {}): CliProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "--conditions=@catalog-kit/source", CLI], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  const listeners = new Set<() => void>();
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
    for (const listener of listeners) listener();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | string>((resolve) => {
    child.once("exit", (code, signal) => {
      resolve(code ?? signal ?? -1);
      for (const listener of listeners) listener();
    });
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForOutput(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(out)) done(() => resolve(out));
          else if (child.exitCode !== null || child.signalCode !== null) {
            done(() =>
              reject(
                new Error(
                  `The server exited (${child.exitCode ?? child.signalCode}) before printing ${pattern}:\n${out}\n${err}`,
                ),
              ),
            );
          }
        };
        const done = (settle: () => void) => {
          listeners.delete(check);
          clearTimeout(timer);
          settle();
        };
        const timer = setTimeout(
          () => done(() => reject(new Error(`Timed out waiting for ${pattern}:\n${out}\n${err}`))),
          timeoutMs,
        );
        listeners.add(check);
        check();
      });
    },
  };
}

/** Stops a child that is still running (tests that fail midway must not leave servers behind). */
export async function stopCli(cli: CliProcess): Promise<void> {
  if (cli.child.exitCode === null && cli.child.signalCode === null) {
    cli.child.kill("SIGKILL");
    await cli.exited;
  }
}
