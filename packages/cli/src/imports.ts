// `catalog-kit imports [list] | show ID | problems ID`: a site's import history, one import's
// record, and an import's whole problem report saved to a file (a token with the read scope).
import { createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { parseArgs } from "node:util";
import { adminRequest, printRefusal, table } from "./admin-request.ts";
import { printHelp } from "./help.ts";
import { formatCount } from "./human-numbers.ts";
import type { Io } from "./io.ts";
import { CONNECTION_OPTIONS, type Connection, connection, endpoint, HELP_OPTION, UsageError } from "./options.ts";
import { errorText } from "./retry.ts";

const IMPORTS_PATH = "/external/product/v1/imports";

interface Listed {
  readonly importId: string;
  readonly startedAt: string;
  readonly state: string;
  readonly channel: string;
  readonly format: string;
  readonly mode: string;
  readonly dryRun: boolean;
  readonly productsRead: number;
  readonly problemCount: number;
  readonly counts?: { readonly created: number; readonly updated: number; readonly unchanged: number };
  readonly error?: { readonly code: string };
}

// What a listed import did, in a few words: its counts, or why it failed.
function outcomeOf(record: Listed): string {
  if (record.counts !== undefined) {
    const { created, updated, unchanged } = record.counts;
    return `${formatCount(created)} created, ${formatCount(updated)} updated, ${formatCount(unchanged)} unchanged`;
  }
  if (record.error !== undefined) {
    const problems = record.problemCount > 0 ? ` (${formatCount(record.problemCount)} problems)` : "";
    return `${record.error.code}${problems}`;
  }
  return `${formatCount(record.productsRead)} read so far`;
}

// The path of one import, or of its report, the id encoded as a path segment.
const importPath = (id: string, tail = "") => `${IMPORTS_PATH}/${encodeURIComponent(id)}${tail}`;

// The query of the site, which `endpoint` adds, as a path the admin request resolves.
const withSite = (to: Connection, path: string, query: Record<string, string> = {}) => {
  const url = endpoint(to, path, query);
  return `${url.pathname}${url.search}`;
};

/** Runs `catalog-kit imports`; returns the exit code. */
export async function imports(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      ...HELP_OPTION,
      ...CONNECTION_OPTIONS,
      state: { type: "string" },
      "idempotency-key": { type: "string" },
      limit: { type: "string", default: "20" },
      output: { type: "string", short: "o" },
      format: { type: "string", default: "csv" },
      json: { type: "boolean", default: false },
    },
  });
  if (values.help) return printHelp(io, "imports");
  const [action = "list", id, ...extra] = positionals;
  if (action !== "list" && action !== "show" && action !== "problems") {
    throw new UsageError(`Give imports list, imports show ID or imports problems ID; not ${action}`);
  }
  if (extra.length > 0 || (action === "list") !== (id === undefined)) {
    throw new UsageError(action === "list" ? "imports list takes no id" : `Give the one import id to ${action}`);
  }
  if (values.format !== "csv" && values.format !== "ndjson") throw new UsageError("--format takes csv or ndjson");
  const to = await connection(values, io.env);

  if (action === "problems") return saveReport(io, to, id as string, values.format, values.output);
  if (action === "show") {
    const answer = await adminRequest(io, to, "GET", withSite(to, importPath(id as string)));
    if (!answer.ok) return answer.code;
    io.stdout.write(`${JSON.stringify(answer.body, null, values.json ? undefined : 2)}\n`);
    return 0;
  }
  const query: Record<string, string> = { limit: values.limit };
  if (values.state !== undefined) query.state = values.state;
  if (values["idempotency-key"] !== undefined) query.idempotencyKey = values["idempotency-key"];
  const answer = await adminRequest(io, to, "GET", withSite(to, IMPORTS_PATH, query));
  if (!answer.ok) return answer.code;
  const listed = answer.body as { imports: Listed[]; nextCursor?: string };
  if (values.json) {
    io.stdout.write(`${JSON.stringify(listed.imports)}\n`);
    return 0;
  }
  const rows = listed.imports.map((r) => [
    r.importId,
    r.startedAt,
    r.dryRun ? `${r.state} (dry run)` : r.state,
    `${r.channel}/${r.format}`,
    r.mode,
    outcomeOf(r),
  ]);
  io.stdout.write(table(["id", "started", "state", "body", "mode", "outcome"], rows));
  if (listed.nextCursor !== undefined) io.stderr.write(`Newest ${rows.length} shown; --limit shows more\n`);
  return 0;
}

// Downloads an import's problem report to `output` (or standard output), streamed.
async function saveReport(io: Io, to: Connection, id: string, format: string, output: string | undefined) {
  const type = format === "csv" ? "text/csv" : "application/x-ndjson";
  let res: Response;
  try {
    res = await fetch(endpoint(to, importPath(id, "/problems")), {
      headers: { "x-service-access-token": to.token, accept: type },
    });
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    io.stderr.write(`No answer from the server: ${errorText(cause instanceof Error ? cause : (error as Error))}\n`);
    return 3;
  }
  if (!res.ok || res.body === null) return printRefusal(io, res.status, await res.text());
  const body = Readable.fromWeb(res.body as import("node:stream/web").ReadableStream);
  if (output === undefined || output === "-") await pipeline(body, io.stdout, { end: false });
  else await pipeline(body, createWriteStream(output));
  const total = res.headers.get("x-problem-count");
  if (output !== undefined && output !== "-") {
    const of = total === null ? "" : ` (${formatCount(Number(total))} problems)`;
    io.stderr.write(`Saved the problem report of ${id}${of} to ${output}\n`);
  }
  return 0;
}
