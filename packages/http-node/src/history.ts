// A site's import history over HTTP: a page of its imports (filtered), one import's record, and
// one import's problem report as NDJSON or CSV, as Accept chose (the route table's exports).
import {
  IMPORT_LIST_LIMIT,
  type ImportListOptions,
  type ImportState,
  type Problem,
  reportCell,
} from "@catalog-kit/catalog-core";
import type { RequestContext } from "./context.ts";
import { parseLimit } from "./request-target.ts";
import { requestSite } from "./site-access.ts";
import { answerHeaders, sendJson } from "./success.ts";

/** The header of a problem report's answer that tells how many problems were found in all. */
export const PROBLEM_COUNT_HEADER = "x-problem-count";

/** The columns of a problem report as CSV, in order: where the problem is, then what it is. */
export const PROBLEM_COLUMNS = [
  "row",
  "column",
  "line",
  "pointer",
  "item",
  "element",
  "sku",
  "heldBy",
  "code",
  "message",
] as const satisfies readonly (keyof Problem)[];

// The import id of the path, decoded; one that does not decode is an id no history holds.
function importIdOf(ctx: RequestContext): string {
  const { resource } = ctx;
  const raw = resource.kind === "importRecord" || resource.kind === "importProblems" ? resource.rawId : "";
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

// The list's options from the query, as given: the catalog checks each and names a bad one.
function listOptions(params: Readonly<Record<string, string>>): ImportListOptions {
  const { cursor, state, idempotencyKey, requestId } = params;
  const limit = parseLimit(params.limit, IMPORT_LIST_LIMIT.max);
  return {
    ...(limit === undefined ? {} : { limit }),
    ...(cursor === undefined ? {} : { cursor }),
    ...(state === undefined ? {} : { state: state as ImportState }),
    ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    ...(requestId === undefined ? {} : { requestId }),
  };
}

/** Answers a page of the site's imports, newest first: `{ imports, nextCursor }` (null after the last). */
export async function serveImportList(ctx: RequestContext): Promise<void> {
  const site = requestSite(ctx);
  const page = await ctx.services.catalog.listImports(site, listOptions(ctx.params));
  const body = JSON.stringify({ imports: page.imports, nextCursor: page.nextCursor ?? null });
  sendJson(ctx.res, body, ctx.requestId, ctx.headers);
}

/** Answers one import's record. */
export async function serveImportRecord(ctx: RequestContext): Promise<void> {
  const site = requestSite(ctx);
  const record = await ctx.services.catalog.getImport(site, importIdOf(ctx));
  sendJson(ctx.res, JSON.stringify(record), ctx.requestId, ctx.headers);
}

const csvLine = (problem: Problem) =>
  `${PROBLEM_COLUMNS.map((column) => reportCell(String(problem[column] ?? ""))).join(",")}\n`;

/**
 * Answers an import's problem report: NDJSON (one problem a line) or CSV (a header, then one
 * problem a row), with the count of all the problems found in `X-Problem-Count`.
 */
export async function serveImportProblems(ctx: RequestContext): Promise<void> {
  const site = requestSite(ctx);
  const report = await ctx.services.catalog.importProblems(site, importIdOf(ctx));
  let text = "";
  if (ctx.format === "csv") {
    text = `${PROBLEM_COLUMNS.join(",")}\n`;
    for (const problem of report.problems) text += csvLine(problem);
  } else for (const problem of report.problems) text += `${JSON.stringify(problem)}\n`;
  const type = ctx.format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson";
  ctx.res.writeHead(
    200,
    answerHeaders(ctx.headers, {
      "content-type": type,
      "content-length": String(Buffer.byteLength(text)),
      "x-request-id": ctx.requestId,
      [PROBLEM_COUNT_HEADER]: String(report.total),
    }),
  );
  ctx.res.end(text);
}
