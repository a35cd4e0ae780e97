// `catalog-kit sites list|create|delete`: the sites of a server, through its admin API (a token
// with the admin scope).
import { parseArgs } from "node:util";
import { ADMIN_SITES_PATH, adminSitePath } from "@catalog-kit/http-node";
import { adminRequest, table } from "./admin-request.ts";
import { printHelp } from "./help.ts";
import type { Io } from "./io.ts";
import { connection, HELP_OPTION, SERVER_OPTIONS, siteOf, UsageError } from "./options.ts";

interface Listed {
  readonly siteId: string;
  readonly siteType: string;
  readonly source: string;
  readonly createdAt?: string;
  readonly deleting?: boolean;
}

/** Runs `catalog-kit sites`; returns the exit code. */
export async function sites(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      ...HELP_OPTION,
      ...SERVER_OPTIONS,
      "delete-products": { type: "boolean", default: false },
      json: { type: "boolean", default: false },
    },
  });
  if (values.help) return printHelp(io, "sites");
  const [action, name, ...extra] = positionals;
  if (action !== "list" && action !== "create" && action !== "delete") {
    throw new UsageError(`Give sites list, sites create TYPE/ID or sites delete TYPE/ID; not ${action ?? "nothing"}`);
  }
  if (extra.length > 0 || (action === "list") !== (name === undefined)) {
    throw new UsageError(action === "list" ? "sites list takes no site" : `Give the one site to ${action}: TYPE/ID`);
  }
  if (values["delete-products"] && action !== "delete") throw new UsageError("--delete-products is for sites delete");
  const to = await connection(values, io.env);
  if (action === "list") {
    const answer = await adminRequest(io, to, "GET", ADMIN_SITES_PATH);
    if (!answer.ok) return answer.code;
    const listed = (answer.body as { sites: Listed[] }).sites;
    if (values.json) io.stdout.write(`${JSON.stringify(listed)}\n`);
    else {
      const rows = listed.map((s) => [s.siteType, s.siteId, s.source, s.createdAt ?? "", s.deleting ? "deleting" : ""]);
      io.stdout.write(table(["type", "id", "source", "created", "state"], rows));
    }
    return 0;
  }
  const site = siteOf(name as string, "the site");
  if (action === "create") {
    const answer = await adminRequest(io, to, "POST", ADMIN_SITES_PATH, site);
    if (!answer.ok) return answer.code;
    io.stderr.write(`Made site ${site.siteType}/${site.siteId}\n`);
    if (values.json) io.stdout.write(`${JSON.stringify(answer.body)}\n`);
    return 0;
  }
  const path = adminSitePath(site) + (values["delete-products"] ? "?deleteProducts=true" : "");
  const answer = await adminRequest(io, to, "DELETE", path);
  if (!answer.ok) return answer.code;
  io.stderr.write(`${(answer.body as { message: string }).message}\n`);
  if (values.json) io.stdout.write(`${JSON.stringify(answer.body)}\n`);
  return 0;
}
