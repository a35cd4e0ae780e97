// The admin API (`/admin/v1`): sites and tokens made, listed and removed at run time, through the
// tenants registry, which holds every rule; here only bodies, path parameters and answers.
import type { ServerResponse } from "node:http";
import { CatalogError, type Site } from "@catalog-kit/catalog-core";
import { isGzip, parseJson, requireJson } from "./body.ts";
import { readBody } from "./body-stream.ts";
import type { RequestContext } from "./context.ts";
import { HttpError } from "./problem.ts";
import { parseFlag } from "./request-target.ts";
import { sendJson } from "./success.ts";

// An admin body is a site or a token's description: a few kilobytes at most.
const MAX_ADMIN_BODY = 65_536;

function registryOf(ctx: RequestContext) {
  const { registry } = ctx.services;
  if (registry === undefined)
    throw new HttpError("NOT_FOUND", `No resource at ${ctx.path}: this server keeps no tenants registry`);
  return registry;
}

// A path segment, percent-decoded once; text that is not well-formed UTF-8 is a 400 naming it.
function segment(raw: string, parameter: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    const message = `Path parameter ${parameter} is not valid percent-encoded UTF-8`;
    throw new CatalogError("VALIDATION_FAILED", message, { problems: [{ parameter, message }] });
  }
}

async function bodyOf(ctx: RequestContext): Promise<unknown> {
  const { req, res, services } = ctx;
  requireJson(req.headers["content-type"]);
  const gzip = isGzip(req);
  return parseJson(await readBody(req, res, { limit: MAX_ADMIN_BODY, idleMs: services.idleMs, gzip }));
}

function sendCreated(res: ServerResponse, text: string, requestId: string): void {
  res.writeHead(201, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "x-request-id": requestId,
  });
  res.end(text);
}

/** `POST /admin/v1/sites`: makes a site; 201 with it, 409 `CONFLICT` when it exists. */
export async function serveCreateSite(ctx: RequestContext): Promise<void> {
  const registry = registryOf(ctx);
  const body = await bodyOf(ctx);
  const site = await registry.createSite(body);
  ctx.audit = { site: { siteId: site.siteId, siteType: site.siteType } };
  sendCreated(ctx.res, JSON.stringify(site), ctx.requestId);
}

/** `GET /admin/v1/sites`: every site, the file's and the API's, each with its `source`. */
export async function serveListSites(ctx: RequestContext): Promise<void> {
  sendJson(ctx.res, JSON.stringify({ sites: registryOf(ctx).listSites() }), ctx.requestId);
}

/** `DELETE /admin/v1/sites/{siteType}/{siteId}`: deletes a site made through the API, its products with `deleteProducts=true`. */
export async function serveDeleteSite(ctx: RequestContext): Promise<void> {
  const registry = registryOf(ctx);
  if (ctx.resource.kind !== "adminSite") throw new TypeError("serveDeleteSite serves adminSite only");
  const site: Site = {
    siteType: segment(ctx.resource.rawType, "siteType"),
    siteId: segment(ctx.resource.rawId, "siteId"),
  };
  const deleteProducts = parseFlag("deleteProducts", ctx.params.deleteProducts);
  ctx.audit = { site };
  const { deleted } = await registry.deleteSite(site, { deleteProducts });
  ctx.audit = { site, deleted };
  const message = `Site ${site.siteType}/${site.siteId} deleted${deleteProducts ? `, with its ${deleted} products` : ""}`;
  sendJson(ctx.res, JSON.stringify({ message, deleted }), ctx.requestId);
}

/** `POST /admin/v1/tokens`: makes a token; 201 with it and, this once, its secret as `token`. */
export async function serveCreateToken(ctx: RequestContext): Promise<void> {
  const registry = registryOf(ctx);
  const body = await bodyOf(ctx);
  const { token, secret } = await registry.createToken(body);
  ctx.audit = { target: token.id };
  sendCreated(ctx.res, JSON.stringify({ ...token, token: secret }), ctx.requestId);
}

/** `GET /admin/v1/tokens`: every token, the file's and the API's; never a secret. */
export async function serveListTokens(ctx: RequestContext): Promise<void> {
  sendJson(ctx.res, JSON.stringify({ tokens: registryOf(ctx).listTokens() }), ctx.requestId);
}

/** `DELETE /admin/v1/tokens/{id}`: revokes a token made through the API (never the one asking). */
export async function serveRevokeToken(ctx: RequestContext): Promise<void> {
  const registry = registryOf(ctx);
  if (ctx.resource.kind !== "adminToken") throw new TypeError("serveRevokeToken serves adminToken only");
  const id = segment(ctx.resource.rawId, "id");
  ctx.audit = { target: id };
  const token = await registry.revokeToken(id, ctx.grant.tokenId);
  const message = `Token ${token.id} ("${token.name}") revoked: it is refused everywhere within a second`;
  sendJson(ctx.res, JSON.stringify({ message, token }), ctx.requestId);
}
