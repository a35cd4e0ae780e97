// Seeing what a site holds over HTTP: a page of products as JSON, or the whole site streamed as
// an import file (CSV or NDJSON), as the Accept header chose (the route table's exports), or as a
// platform's feed (TSV), as the export's profile parameter chose.
import type { ServerResponse } from "node:http";
import { setImmediate } from "node:timers/promises";
import { type ExportFormat, LIST_LIMIT, type Site, toProductView } from "@catalog-kit/catalog-core";
import type { RequestContext } from "./context.ts";
import { invalidQuery, parseLimit } from "./request-target.ts";
import { requestSite } from "./site-access.ts";
import { answerHeaders, sendJson } from "./success.ts";

const CONTENT_TYPE: Readonly<Record<ExportFormat, string>> = {
  csv: "text/csv; charset=utf-8",
  ndjson: "application/x-ndjson",
  google: "text/tab-separated-values; charset=utf-8",
  meta: "text/tab-separated-values; charset=utf-8",
};

// Answers a page: `{ products: [retrieval shape...], nextCursor: string | null }`.
async function sendPage(
  ctx: RequestContext,
  site: Site,
  options: { readonly limit?: number; readonly cursor?: string },
): Promise<void> {
  const page = await ctx.services.catalog.listProducts(site, options);
  const body = { products: page.products.map(toProductView), nextCursor: page.nextCursor ?? null };
  sendJson(ctx.res, JSON.stringify(body), ctx.requestId, ctx.headers);
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

// Streams every product of the site as an import file, a page at a time, waiting for the client
// to take each before reading the next: the server's memory does not grow with the site. A
// failure once the answer has begun can no longer be a problem body: the connection is cut, so
// that the client sees an incomplete answer rather than a short file.
async function sendExport(ctx: RequestContext, site: Site, format: ExportFormat, currency?: string): Promise<void> {
  const { res } = ctx;
  const pieces = ctx.services.catalog.exportProducts(site, format, currency === undefined ? {} : { currency });
  // The first piece is read before answering, so that a store down from the start is a 503.
  let next = await pieces.next();
  res.writeHead(
    200,
    answerHeaders(ctx.headers, { "content-type": CONTENT_TYPE[format], "x-request-id": ctx.requestId }),
  );
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

// The feeds an export writes by its profile; `native` is the import file Accept chose.
const FEEDS: readonly string[] = ["google", "meta"] satisfies ExportFormat[];

// The export's format: the profile's feed (in the request's currency, else the site's; the
// catalog refuses a feed without one, naming it), or the import file Accept chose (a currency
// given is handed on all the same: the catalog checks it, so that a typo is never silently unused).
function exportOf(ctx: RequestContext, site: Site): { format: ExportFormat; currency?: string } {
  const { profile = "native" } = ctx.params;
  const currency = ctx.params.currency ?? (FEEDS.includes(profile) ? ctx.services.siteCurrency(site) : undefined);
  const priced = currency === undefined ? {} : { currency };
  if (FEEDS.includes(profile)) return { format: profile as ExportFormat, ...priced };
  if (profile !== "native") {
    throw invalidQuery("profile", `Query parameter profile of an export must be "native", "google" or "meta"`);
  }
  if (ctx.format === "tsv") {
    throw invalidQuery("profile", 'A TSV export is a product feed: give profile "google" or "meta"');
  }
  return { format: ctx.format as ExportFormat, ...priced };
}

/**
 * Answers a page of the site's products, or, when Accept chose an export, the whole site as a
 * file, or as the feed its profile names.
 */
export async function serveList(ctx: RequestContext): Promise<void> {
  const { limit, cursor } = ctx.params;
  const site = requestSite(ctx);
  if (ctx.format === "csv" || ctx.format === "ndjson" || ctx.format === "tsv") {
    const { format, currency } = exportOf(ctx, site);
    return sendExport(ctx, site, format, currency);
  }
  const pageSize = parseLimit(limit, LIST_LIMIT.max);
  const options = {
    ...(pageSize === undefined ? {} : { limit: pageSize }),
    ...(cursor === undefined ? {} : { cursor }),
  };
  return sendPage(ctx, site, options);
}
