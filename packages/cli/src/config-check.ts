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
    const storage = Object.fromEntries(Object.entries(config.storage).map(([key, value]) => [key, redact(key, value)]));
    // A webhook's secrets sign its messages: printed as many, never as written.
    const webhooks = config.webhooks.map(({ secrets, ...rest }) => ({
      ...rest,
      secrets: secrets.map(() => "<redacted>"),
    }));
    io.stdout.write(`${JSON.stringify({ ...config, tokens, storage, webhooks }, null, 2)}\n`);
    io.stderr.write(`${file}: valid\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.stderr.write(`${error.message}\n`);
    return 1;
  }
}

// The options are the adapter's, an outside one's too: whatever is named like a secret, and the
// password of every URL (a cluster's nodes, say) wherever it is.
function redact(key: string, value: unknown): unknown {
  if (/password|secret|token/i.test(key)) return "<redacted>";
  if (typeof value === "string") return redactUrl(value);
  if (Array.isArray(value)) return value.map((item) => redact("", item));
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, redact(name, item)]));
  return value;
}

// A Redis or PostgreSQL URL may carry a password; PostgreSQL's also as a `password` parameter.
// Any other string is printed as written.
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === "" && !parsed.searchParams.has("password")) return url; // as written, not normalized
    if (parsed.password !== "") parsed.password = "redacted";
    if (parsed.searchParams.has("password")) parsed.searchParams.set("password", "redacted");
    return parsed.toString();
  } catch {
    return url;
  }
}
