// Where a command reads and writes and what environment it sees: the process's own when run as
// the command, a caller's when `main` is called in-process (the tests, most of which would
// otherwise start a process, and load TypeScript anew, for each call).
import type { Readable, Writable } from "node:stream";

/** A writable that may be a terminal (the progress bar needs one). */
export type Output = Writable & { readonly isTTY?: boolean };

/** A command's standard streams and environment. */
export interface Io {
  readonly stdin: Readable;
  readonly stdout: Output;
  readonly stderr: Output;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The process's own streams and environment; standard input only once a command reads it. */
export function processIo(): Io {
  return {
    get stdin() {
      return process.stdin;
    },
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
  };
}
