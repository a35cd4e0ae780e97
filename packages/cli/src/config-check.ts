// `catalog-kit config check FILE`: validates a server configuration and prints the settings in
// effect, defaults included, with every secret redacted.
import { parseArgs } from "node:util";
import { printHelp } from "./help.ts";
import type { Io } from "./io.ts";
import { HELP_OPTION, UsageError } from "./options.ts";

/** Runs `catalog-kit config check`; returns the exit code. */
export async function checkConfig(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...args], allowPositionals: true, options: HELP_OPTION });
  if (values.help) return printHelp(io, "config check");
  const [file, ...extra] = positionals;
  if (file === undefined || extra.length > 0) throw new UsageError("Give one configuration file to check");
  // The server's own loader, so that a file passes here exactly when the server would start with it.
  const { ConfigError, loadConfig } = await import("@catalog-kit/server");
  try {
    const config = await loadConfig(file);
    const tokens = config.tokens.map(({ token, tokenSha256, ...rest }) => ({
      ...(token === undefined ? {} : { token: "<redacted>" }),
      ...(tokenSha256 === undefined ? {} : { tokenSha256: "<redacted>" }),
      ...rest,
    }));
    const storage =
      "url" in config.storage && config.storage.url !== undefined
        ? { ...config.storage, url: redactUrl(config.storage.url) }
        : config.storage;
    io.stdout.write(`${JSON.stringify({ ...config, tokens, storage }, null, 2)}\n`);
    io.stderr.write(`${file}: valid\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.stderr.write(`${error.message}\n`);
    return 1;
  }
}

// A Redis or PostgreSQL URL may carry a password; PostgreSQL's also as a `password` parameter.
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "redacted";
    if (parsed.searchParams.has("password")) parsed.searchParams.set("password", "redacted");
    return parsed.toString();
  } catch {
    return url;
  }
}
