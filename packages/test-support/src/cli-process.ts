// The standalone server as a child process, exactly as `npm start` runs it (`catalog-kit serve`
// from the cli's source), for tests and the bench.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The repository's root: the directory `npm start` runs in, and the one `NPM_START_ARGS` are relative to. */
export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * The arguments of `node` that run what `npm start` runs, read from the root package.json's
 * `start` script (`tsx <arguments>`): `--import tsx` in place of the `tsx` command, so that the
 * child is the server itself (its process id, its CPU, the signals sent to it), not tsx's wrapper.
 */
export const NPM_START_ARGS: readonly string[] = (() => {
  const { scripts } = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
    scripts: { start: string };
  };
  const [command, ...args] = scripts.start.split(" ");
  if (command !== "tsx") throw new Error(`npm start no longer runs tsx: ${scripts.start}`);
  return ["--import", "tsx", ...args];
})();

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

/** Starts the server as `npm start` does, in the repository's root, with the given environment (PORT defaults to 0). */
export function startCli(env: Record<string, string> = {}): CliProcess {
  const child = spawn(process.execPath, NPM_START_ARGS, {
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
