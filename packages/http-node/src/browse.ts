// Seeing what a site holds over HTTP: a page of products as JSON, or the whole site streamed as
// an import file (CSV or NDJSON), chosen by the Accept header.
import type { ServerResponse } from "node:http";
import { setImmediate } from "node:timers/promises";
import { type Catalog, LIST_LIMIT, type Site, type StreamFormat, toProductView } from "@catalog-kit/catalog-core";
import { invalidQuery } from "./routes.ts";
import { sendJson } from "./success.ts";

/** What a list request asks for: a JSON page, or an export in an import format. */
export type ListFormat = "json" | StreamFormat;

const TYPES: Readonly<Record<string, ListFormat>> = {
  "application/json": "json",
  "text/csv": "csv",
  "application/x-ndjson": "ndjson",
  "application/jsonl": "ndjson",
};

const CONTENT_TYPE: Readonly<Record<StreamFormat, string>> = {
  csv: "text/csv; charset=utf-8",
  ndjson: "application/x-ndjson",
};

/**
 * The format an Accept header asks for: the first of its media types that the list offers, in
 * the order given (quality values are not weighed); JSON when none is named, or only `*\/*`.
 */
export function listFormat(accept: string | undefined): ListFormat {
  for (const part of (accept ?? "").split(",")) {
    const type = part.split(";", 1)[0]?.trim().toLowerCase() ?? "";
    const format = TYPES[type];
    if (format !== undefined) return format;
  }
  return "json";
}

/** Reads the `limit` query parameter: absent, or an integer the catalog then checks (`LIST_LIMIT`). */
export function parseLimit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,7}$/.test(value)) {
    throw invalidQuery("limit", `Query parameter limit must be an integer from 1 to ${LIST_LIMIT.max}`);
  }
  return Number(value);
}

/** Answers a page: `{ products: [retrieval shape...], nextCursor: string | null }`. */
export async function sendPage(
  catalog: Catalog,
  res: ServerResponse,
  site: Site,
  options: { readonly limit?: number; readonly cursor?: string },
  requestId: string,
): Promise<void> {
  const page = await catalog.listProducts(site, options);
  const body = { products: page.products.map(toProductView), nextCursor: page.nextCursor ?? null };
  sendJson(res, JSON.stringify(body), requestId);
}

// Resolves when the response takes more, or is gone; leaves no listener behind.
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/**
 * Streams every product of the site as an import file, a page at a time, waiting for the
 * client to take each before reading the next: the server's memory does not grow with the site.
 * A failure once the answer has begun can no longer be a problem body: the connection is cut,
 * so that the client sees an incomplete answer rather than a short file.
 */
export async function sendExport(
  catalog: Catalog,
  res: ServerResponse,
  site: Site,
  format: StreamFormat,
  requestId: string,
): Promise<void> {
  const pieces = catalog.exportProducts(site, format);
  // The first piece is read before answering, so that a store down from the start is a 503.
  let next = await pieces.next();
  res.writeHead(200, { "content-type": CONTENT_TYPE[format], "x-request-id": requestId });
  try {
    for (; !next.done; next = await pieces.next()) {
      if (res.destroyed) return;
      if (!res.write(next.value)) await drained(res);
      // A store that answers at once (memory) and a client that keeps up would otherwise keep
      // the event loop to this export until its end: every other request waits a turn per page.
      await setImmediate();
    }
    res.end();
  } catch (error) {
    res.destroy();
    throw error;
  } finally {
    await pieces.return(undefined);
  }
}
