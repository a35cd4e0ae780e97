import type { Writable } from "node:stream";

// A reader that stops early (`catalog-kit export | head`) closes the pipe: the output had a
// reader and it had enough. That ends the command quietly, as it does for cat or grep.

/** True for the error of a write to a pipe whose reader has gone. */
export function isBrokenPipe(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === "EPIPE";
}

/**
 * Keeps a broken pipe on standard output from crashing the command (an `error` event nobody
 * listens to is thrown); the writes that meet it fail and the command goes on to its end.
 */
export function ignoreBrokenPipe(out: Writable): void {
  out.on("error", (error) => {
    if (!isBrokenPipe(error)) throw error;
  });
}
