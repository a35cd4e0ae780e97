#!/usr/bin/env node
// `catalog-kit`: the command line of catalog-kit, one command per file.
import { pathToFileURL } from "node:url";
import { checkConfig } from "./config-check.ts";
import { exportSite } from "./export-site.ts";
import { importFile } from "./import-file.ts";
import { UsageError } from "./options.ts";

const USAGE = `Usage:
  catalog-kit serve                                    run the server (as npm start does; PORT, HOST, CATALOG_CONFIG)
  catalog-kit import FILE --url URL --site TYPE/ID [--token-file F] [--dry-run] [--replace] [--allow-empty]
                   [--retries N] [--progress-every SECONDS]
                                                       send a .csv, .ndjson, .jsonl or .json file (maybe .gz);
                                                       a progress bar on a terminal, else a line every 2 s
  catalog-kit export --url URL --site TYPE/ID [--token-file F] [--format csv|ndjson] > FILE
  catalog-kit config check FILE                        validate a configuration; print its settings, secrets redacted
The access token is read from --token-file, else from CATALOG_TOKEN.
`;

/** Runs one command line (without `node` and the script); resolves to the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case "serve": {
        // Loaded here: the other commands never need the server, its metrics or the Redis client.
        const { runServer } = await import("@catalog-kit/server");
        await runServer();
        return typeof process.exitCode === "number" ? process.exitCode : 0;
      }
      case "import":
        return await importFile(args);
      case "export":
        return await exportSite(args);
      case "config":
        if (args[0] === "check") return await checkConfig(args.slice(1));
        throw new UsageError(`Unknown config command: ${args[0] ?? "(none)"}`);
      case "help":
      case "--help":
      case "-h":
        process.stdout.write(USAGE);
        return 0;
      default:
        throw new UsageError(command === undefined ? "Give a command" : `Unknown command: ${command}`);
    }
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
      return 2;
    }
    process.stderr.write(`catalog-kit ${command}: ${(error as Error).message}\n`);
    return 1;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
