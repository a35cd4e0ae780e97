// Successful answers: JSON with its exact length and the request id, and the import summary.
import type { ServerResponse } from "node:http";
import type { ImportSummary } from "@catalog-kit/catalog-core";
import { appendLines, CAN_APPEND, RateLimitFields } from "./rate-limit-fields.ts";

const JSON_TYPE = "application/json";

/**
 * Sends a 200 JSON answer with its exact Content-Length and the request's `X-Request-Id`; `extra`
 * headers (such as `ETag`) and the request's `shared` ones (`ctx.headers`) are added.
 */
export function sendJson(
  res: ServerResponse,
  text: string,
  requestId: string,
  extra?: Readonly<Record<string, string>>,
  shared?: Readonly<Record<string, string>>,
): void {
  // Every header in the one writeHead call: a header set earlier with setHeader would send Node
  // down its slower path, which validates every header again, on every answer. As a flat list of
  // names and values: Node walks an object's keys testing each for an own property, and merging
  // the request's headers into one object first would cost a copy of them on every answer.
  const fields: (string | number)[] = [];
  // The limiter's fields, ours alone and checked where they were made, are added to the head
  // Node wrote: its checks of each field cost more than all the limiter's own work.
  const lines = CAN_APPEND && shared instanceof RateLimitFields ? RateLimitFields.linesOf(shared) : undefined;
  if (shared !== undefined && lines === undefined) {
    for (const name in shared) {
      if (extra === undefined || !Object.hasOwn(extra, name)) fields.push(name, shared[name] as string);
    }
  }
  if (extra !== undefined) for (const name in extra) fields.push(name, extra[name] as string);
  fields.push("content-type", JSON_TYPE, "content-length", Buffer.byteLength(text), "x-request-id", requestId);
  res.writeHead(200, fields);
  if (lines !== undefined) appendLines(res, lines);
  res.end(text);
}

/** The headers every answer to the request carries (`ctx.headers`: rate limits, `Deprecation`) and `own`. */
export function answerHeaders(
  shared: Readonly<Record<string, string>> | undefined,
  own: Readonly<Record<string, string>>,
): Readonly<Record<string, string>> {
  return shared === undefined ? own : { ...shared, ...own };
}

function plural(count: number): string {
  return count === 1 ? "product" : "products";
}

/**
 * The body of a successful import: `{ message, total, created, updated, unchanged }`, plus
 * `deleted` for a replace, `skipped` and `skippedKeys` for a merge, `dryRun: true` for a dry run,
 * the document's `profile` and `ignoredColumns` when the summary has them, and its `importId`.
 */
export function summaryText(summary: ImportSummary): string {
  const {
    total,
    created,
    updated,
    unchanged,
    deleted,
    skipped,
    skippedKeys,
    dryRun,
    profile,
    ignoredColumns,
    importId,
  } = summary;
  const more = `${deleted === undefined ? "" : `, ${deleted} deleted`}${skipped === undefined ? "" : `, ${skipped} skipped`}`;
  const message = dryRun
    ? `Dry run: ${total} ${plural(total)} checked (${created} would be created, ${updated} updated, ${unchanged} unchanged${more}); nothing was written`
    : `Imported ${total} ${plural(total)}: ${created} created, ${updated} updated, ${unchanged} unchanged${more}`;
  const body = {
    message,
    total,
    created,
    updated,
    unchanged,
    ...(deleted === undefined ? {} : { deleted }),
    ...(skipped === undefined ? {} : { skipped, skippedKeys: skippedKeys ?? [] }),
    ...(dryRun ? { dryRun: true } : {}),
    ...(profile === undefined ? {} : { profile }),
    ...(ignoredColumns === undefined ? {} : { ignoredColumns }),
    ...(importId === undefined ? {} : { importId }),
  };
  return JSON.stringify(body);
}
