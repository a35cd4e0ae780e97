// What every command that talks to a server takes: its URL, the access token (from a file or the
// environment, never the command line, where other users of the machine can read it) and a site.
import { readFile } from "node:fs/promises";

/** A mistake in how a command was called: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The connection options of `import` and `export`, as `parseArgs` declares them. */
export const CONNECTION_OPTIONS = {
  url: { type: "string" },
  "token-file": { type: "string" },
  site: { type: "string" },
} as const;

/** Where to send requests, with which token, for which site. */
export interface Connection {
  readonly url: URL;
  readonly token: string;
  readonly siteType: string;
  readonly siteId: string;
}

/** Reads `--url`, `--token-file` (else `CATALOG_TOKEN`) and `--site TYPE/ID`. */
export async function connection(values: {
  readonly url?: string | undefined;
  readonly "token-file"?: string | undefined;
  readonly site?: string | undefined;
}): Promise<Connection> {
  if (values.url === undefined) throw new UsageError("--url is required (for example --url http://127.0.0.1:3000)");
  let url: URL;
  try {
    url = new URL(values.url);
  } catch {
    throw new UsageError(`--url is not a URL: ${values.url}`);
  }
  const file = values["token-file"];
  const token = (file === undefined ? process.env.CATALOG_TOKEN : await readFile(file, "utf8"))?.trim();
  if (!token) throw new UsageError("Give the access token in a file (--token-file F) or in CATALOG_TOKEN");
  const slash = values.site?.indexOf("/") ?? -1;
  if (values.site === undefined || slash < 1 || slash === values.site.length - 1) {
    throw new UsageError("--site TYPE/ID is required (for example --site shopify/shop-1)");
  }
  return { url, token, siteType: values.site.slice(0, slash), siteId: values.site.slice(slash + 1) };
}

/** `path` on the server, with the site and any other parameters in the query. */
export function endpoint(to: Connection, path: string, query: Record<string, string> = {}): URL {
  const url = new URL(path, to.url);
  url.searchParams.set("siteId", to.siteId);
  url.searchParams.set("siteType", to.siteType);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return url;
}

/** Bytes for people: 1.5 MB, 980 kB. */
export function formatBytes(bytes: number): string {
  const units = ["B", "kB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}
