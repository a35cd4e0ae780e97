// `catalog-kit serve`: the standalone server, configured by its environment only.
import { parseArgs } from "node:util";
import { printHelp } from "./help.ts";
import type { Io } from "./io.ts";
import { HELP_OPTION, UsageError } from "./options.ts";

/** Runs `catalog-kit serve` until a signal stops the server; returns the exit code. */
export async function serve(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...args], allowPositionals: true, options: HELP_OPTION });
  if (values.help) return printHelp(io, "serve");
  if (positionals.length > 0) throw new UsageError(`serve takes no arguments: ${positionals.join(" ")}`);
  // Loaded here: the other commands never need the server, its metrics or the storage clients.
  // The server is the process's: its environment, signals and output are the process's own, not `io`'s.
  const { runServer } = await import("@catalog-kit/server");
  await runServer();
  return typeof process.exitCode === "number" ? process.exitCode : 0;
}
