// The service's own resources, which need no token: its health, its OpenAPI document, its metrics.
import { CatalogError, isCatalogError } from "@catalog-kit/catalog-core";
import type { RequestContext } from "./context.ts";
import { HttpError, sendProblem, toProblem } from "./problem.ts";
import { sendJson } from "./success.ts";

const HEALTHY = JSON.stringify({ status: "ok" });

/**
 * Answers `{ status: "ok" }` while the storage answers, else 503. A failed check is the answer
 * asked for, not a failure of the request: it is reported to `onError` with its own cause.
 */
export async function serveHealth(ctx: RequestContext): Promise<void> {
  const { services } = ctx;
  try {
    await services.catalog.checkHealth();
  } catch (error) {
    services.onError(error, ctx.req);
    const unavailable = isCatalogError(error, "STORAGE_UNAVAILABLE")
      ? error
      : new CatalogError("STORAGE_UNAVAILABLE", "The storage does not answer", { cause: error });
    sendProblem(ctx.res, toProblem(unavailable, services.notFoundStatus), ctx.requestId);
    return;
  }
  sendJson(ctx.res, HEALTHY, ctx.requestId);
}

/** Answers the OpenAPI document, built from the route table once. */
export async function serveOpenApi(ctx: RequestContext): Promise<void> {
  sendJson(ctx.res, ctx.services.openapi(), ctx.requestId);
}

/** Answers the metrics the handler was given, or 404 when it was given none. */
export async function serveMetrics(ctx: RequestContext): Promise<void> {
  if (ctx.services.metrics === undefined) throw new HttpError("NOT_FOUND", `No resource at ${ctx.path}`);
  const { contentType, body } = await ctx.services.metrics();
  ctx.res.writeHead(200, {
    "content-type": contentType,
    "content-length": Buffer.byteLength(body),
    "x-request-id": ctx.requestId,
  });
  ctx.res.end(body);
}
