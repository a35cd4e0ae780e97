// What every command that talks to a server takes: its URL, the access token (from a file or the
// environment, never the command line, where other users of the machine can read it) and a site.
import { readFile } from "node:fs/promises";
import type { Io } from "./io.ts";

/** A mistake in how a command was called: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** `-h`/`--help`, an option of every command: its help on standard output, nothing else done. */
export const HELP_OPTION = { help: { type: "boolean", short: "h", default: false } } as const;

/** The server and token options of every command that talks to a server, as `parseArgs` declares them. */
export const SERVER_OPTIONS = {
  url: { type: "string" },
  "token-file": { type: "string" },
} as const;

/** The connection options of `import` and `export`: the server's, and the site. */
export const CONNECTION_OPTIONS = { ...SERVER_OPTIONS, site: { type: "string" } } as const;

/** `--retries N`: how often a request is tried again after no answer or a 503. */
export const RETRIES_OPTION = { retries: { type: "string", default: "5" } } as const;

/** Where to send requests, with which token, for which site (none: the token's default site). */
export interface Connection {
  readonly url: URL;
  readonly token: string;
  readonly site: { readonly siteType: string; readonly siteId: string } | undefined;
}

/** The site of `--site TYPE/ID` (or of `what`), or a usage error that says what is wrong with it. */
export function siteOf(given: string, what = "--site"): { siteType: string; siteId: string } {
  const slash = given.indexOf("/");
  const wrong =
    slash === -1
      ? "has no slash"
      : slash === 0
        ? "has no type before its slash"
        : slash === given.length - 1
          ? "has no id after its slash"
          : undefined;
  if (wrong !== undefined) {
    throw new UsageError(
      `${what} takes TYPE/ID, the site's type and id (for example shopify/shop-1): ${JSON.stringify(given)} ${wrong}`,
    );
  }
  return { siteType: given.slice(0, slash), siteId: given.slice(slash + 1) };
}

/**
 * Reads `--url` (else `CATALOG_URL`), `--token-file` (else `CATALOG_TOKEN`) and `--site TYPE/ID`
 * (else the token's default site, which the server picks).
 */
export async function connection(
  values: {
    readonly url?: string | undefined;
    readonly "token-file"?: string | undefined;
    readonly site?: string | undefined;
  },
  env: Io["env"],
): Promise<Connection> {
  const given = values.url ?? (env.CATALOG_URL || undefined);
  if (given === undefined) {
    throw new UsageError("Give the server's URL: --url URL or CATALOG_URL (for example http://127.0.0.1:3000)");
  }
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new UsageError(`${values.url === undefined ? "CATALOG_URL" : "--url"} is not a URL: ${given}`);
  }
  const file = values["token-file"];
  const token = (file === undefined ? env.CATALOG_TOKEN : await readFile(file, "utf8"))?.trim();
  if (!token) throw new UsageError("Give the access token in a file (--token-file F) or in CATALOG_TOKEN");
  return { url, token, site: values.site === undefined ? undefined : siteOf(values.site) };
}

/** `path` on the server, with the site, when one was given, and any other parameters in the query. */
export function endpoint(to: Connection, path: string, query: Record<string, string> = {}): URL {
  const url = new URL(path, to.url);
  if (to.site !== undefined) {
    url.searchParams.set("siteId", to.site.siteId);
    url.searchParams.set("siteType", to.site.siteType);
  }
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return url;
}

/** The value of `--retries`: a whole number, zero or more. */
export function retriesOf(value: string): number {
  const retries = Number(value);
  if (value.trim() === "" || !Number.isSafeInteger(retries) || retries < 0) {
    throw new UsageError("--retries must be a whole number");
  }
  return retries;
}
