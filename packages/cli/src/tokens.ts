// `catalog-kit tokens list|create|revoke`: the tokens of a server, through its admin API (a token
// with the admin scope). A created token's secret goes to standard output, alone, this once.
import { parseArgs } from "node:util";
import { ADMIN_TOKENS_PATH, adminTokenPath } from "@catalog-kit/http-node";
import { adminRequest, table } from "./admin-request.ts";
import { printHelp } from "./help.ts";
import type { Io } from "./io.ts";
import { connection, HELP_OPTION, SERVER_OPTIONS, siteOf, UsageError } from "./options.ts";

interface Listed {
  readonly id: string;
  readonly name: string;
  readonly source: string;
  readonly sites: "*" | readonly { readonly siteId: string; readonly siteType: string }[];
  readonly scopes: readonly string[];
  readonly expiresAt?: string;
}

const LIMITS = {
  "requests-per-minute": "requestsPerMinute",
  "import-bytes-per-minute": "importBytesPerMinute",
  "imports-per-site": "importsPerSite",
} as const;

// The body of `tokens create` from its options; the server checks every value.
function tokenRequest(values: Record<string, string | boolean | undefined>): Record<string, unknown> {
  const name = values.name;
  if (typeof name !== "string") throw new UsageError("Give the token's name: --name NAME");
  const scopes = values.scopes;
  if (typeof scopes !== "string") throw new UsageError("Give its scopes: --scopes read,import,delete,admin");
  const given = values.sites;
  if (typeof given !== "string") throw new UsageError('Give its sites: --sites TYPE/ID[,TYPE/ID...] or --sites "*"');
  const sites = given === "*" ? "*" : given.split(",").map((site) => siteOf(site, "--sites"));
  const limits: Record<string, number> = {};
  for (const [option, key] of Object.entries(LIMITS)) {
    const value = values[option];
    if (typeof value === "string") limits[key] = Number(value);
  }
  return {
    name,
    sites,
    scopes: scopes.split(","),
    ...(typeof values["expires-at"] === "string" ? { expiresAt: values["expires-at"] } : {}),
    ...(Object.keys(limits).length > 0 ? { rateLimits: limits } : {}),
  };
}

/** Runs `catalog-kit tokens`; returns the exit code. */
export async function tokens(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      ...HELP_OPTION,
      ...SERVER_OPTIONS,
      name: { type: "string" },
      sites: { type: "string" },
      scopes: { type: "string" },
      "expires-at": { type: "string" },
      "requests-per-minute": { type: "string" },
      "import-bytes-per-minute": { type: "string" },
      "imports-per-site": { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  if (values.help) return printHelp(io, "tokens");
  const [action, id, ...extra] = positionals;
  if (action !== "list" && action !== "create" && action !== "revoke") {
    throw new UsageError(`Give tokens list, tokens create or tokens revoke ID; not ${action ?? "nothing"}`);
  }
  if (extra.length > 0 || (action === "revoke") !== (id !== undefined)) {
    throw new UsageError(action === "revoke" ? "Give the id of the token to revoke" : `tokens ${action} takes no id`);
  }
  const body = action === "create" ? tokenRequest(values) : undefined;
  const to = await connection(values, io.env);
  if (action === "list") {
    const answer = await adminRequest(io, to, "GET", ADMIN_TOKENS_PATH);
    if (!answer.ok) return answer.code;
    const listed = (answer.body as { tokens: Listed[] }).tokens;
    if (values.json) io.stdout.write(`${JSON.stringify(listed)}\n`);
    else {
      const sitesOf = (t: Listed) =>
        t.sites === "*" ? "*" : t.sites.map((site) => `${site.siteType}/${site.siteId}`).join(",");
      const rows = listed.map((t) => [t.id, t.name, t.source, t.scopes.join(","), sitesOf(t), t.expiresAt ?? ""]);
      io.stdout.write(table(["id", "name", "source", "scopes", "sites", "expires"], rows));
    }
    return 0;
  }
  if (action === "create") {
    const answer = await adminRequest(io, to, "POST", ADMIN_TOKENS_PATH, body);
    if (!answer.ok) return answer.code;
    const made = answer.body as Listed & { token: string };
    io.stderr.write(
      `Made token ${made.id} ("${made.name}"). Its secret, on standard output, is shown this once: only its SHA-256 is kept.\n`,
    );
    io.stdout.write(values.json ? `${JSON.stringify(made)}\n` : `${made.token}\n`);
    return 0;
  }
  const answer = await adminRequest(io, to, "DELETE", adminTokenPath(id as string));
  if (!answer.ok) return answer.code;
  io.stderr.write(`${(answer.body as { message: string }).message}\n`);
  return 0;
}
