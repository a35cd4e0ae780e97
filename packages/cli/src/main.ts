#!/usr/bin/env node
// `catalog-kit`: the command line of catalog-kit, one command per file. Exit codes: 0 done, 1
// refused by the server or failed, 2 called wrong, 3 no answer from the server.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { ignoreBrokenPipe, isBrokenPipe } from "./broken-pipe.ts";
import { checkConfig } from "./config-check.ts";
import { exportSite } from "./export-site.ts";
import { type CommandName, HELP, printHelp, USAGE } from "./help.ts";
import { importFile } from "./import-file.ts";
import { imports } from "./imports.ts";
import { type Io, processIo } from "./io.ts";
import { UsageError } from "./options.ts";
import { serve } from "./serve.ts";
import { sites } from "./sites.ts";
import { tokens } from "./tokens.ts";

// The package's own manifest: one directory up from src/ and from dist/ alike.
function version(): string {
  return (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
}

// The command a call names, for the help printed after its mistake.
function commandOf(words: readonly string[]): CommandName | undefined {
  const [first, second] = words;
  if (first === "config") return second === undefined || second === "check" ? "config check" : undefined;
  const named = ["serve", "import", "imports", "export", "sites", "tokens"] as const;
  return named.find((name) => name === first);
}

// `help [COMMAND]`.
function help(words: readonly string[], io: Io): number {
  if (words.length === 0) return printHelp(io);
  const command = commandOf(words);
  if (command === undefined || words.length > command.split(" ").length) {
    throw new UsageError(`No help for: ${words.join(" ")}`);
  }
  return printHelp(io, command);
}

async function run(command: string | undefined, args: readonly string[], io: Io): Promise<number> {
  switch (command) {
    case "serve":
      return await serve(args, io);
    case "import":
      return await importFile(args, io);
    case "export":
      return await exportSite(args, io);
    case "imports":
      return await imports(args, io);
    case "sites":
      return await sites(args, io);
    case "tokens":
      return await tokens(args, io);
    case "config":
      if (args[0] === "check") return await checkConfig(args.slice(1), io);
      if (args[0] === "--help" || args[0] === "-h") return printHelp(io, "config check");
      throw new UsageError(`Unknown config command: ${args[0] ?? "(none)"}; there is: config check FILE`);
    case "help":
    case "--help":
    case "-h":
      return help(args, io);
    case "--version":
      io.stdout.write(`${version()}\n`);
      return 0;
    default:
      throw new UsageError(command === undefined ? "Give a command" : `Unknown command: ${command}`);
  }
}

/**
 * Runs one command line (without `node` and the script); resolves to the exit code. `io` is the
 * process's own streams and environment unless a caller gives its own.
 */
export async function main(argv: readonly string[], io: Io = processIo()): Promise<number> {
  ignoreBrokenPipe(io.stdout);
  const [command, ...args] = argv;
  try {
    return await run(command, args, io);
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      const named = command === "help" ? undefined : commandOf(argv);
      // A command's usage line and where its options are; the overview when no command was named.
      const usage =
        named === undefined
          ? USAGE
          : `${HELP[named].slice(0, HELP[named].indexOf("\n"))}\nRun "catalog-kit ${named} --help" for its options.\n`;
      io.stderr.write(`catalog-kit: ${(error as Error).message}\n\n${usage}`);
      return 2;
    }
    if (isBrokenPipe(error)) return 0;
    io.stderr.write(`catalog-kit ${command}: ${(error as Error).message}\n`);
    return 1;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
