// The request listener of the catalog's HTTP API: it only dispatches (path, route, method, token,
// form, query, serving function: all read from the route table), maps what fails to a problem
// body, and logs. What each operation does is in the file named for it.
import type { IncomingMessage, ServerResponse } from "node:http";
import { type Catalog, isCatalogError } from "@catalog-kit/catalog-core";
import { createAuthenticator, type Grant, NO_GRANT } from "./auth.ts";
import { ClientGoneError } from "./body-stream.ts";
import { createServices, type RequestContext } from "./context.ts";
import type { CatalogHandler, HandlerOptions, HandlerStats } from "./handler-options.ts";
import { formOf } from "./operation.ts";
import { forbidden, HttpError, isInternal, sendProblem, toProblem } from "./problem.ts";
import { acceptRequestId, createRequestIds } from "./request-id.ts";
import { parseQuery, pathOf } from "./request-target.ts";
import { type Action, ALLOW, matchRoute, operationOf } from "./routes.ts";

// The handler's public types have files of their own; they stay importable from here.
export {
  type CatalogHandler,
  DEFAULT_MAX_CONCURRENT_IMPORTS,
  type HandlerOptions,
  type HandlerStats,
} from "./handler-options.ts";
export type { AccessLogEntry, AuditEntry, ImportRecord } from "./log-entry.ts";

const TOKEN_HEADER = "x-service-access-token";
const REQUEST_ID_HEADER = "x-request-id";
const CLOSE: Readonly<Record<string, string>> = { connection: "close" };
const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

// A body the handler did not read would otherwise be drained after the answer: close instead.
function bodyPending(req: IncomingMessage): boolean {
  if (req.complete) return false;
  const length = req.headers["content-length"];
  return (length !== undefined && length !== "0") || req.headers["transfer-encoding"] !== undefined;
}

/**
 * Creates the request listener of the catalog's HTTP API: routing, token check, body limits and
 * problem+json errors. It makes no catalog decisions and never reads product fields.
 */
export function createCatalogHandler(catalog: Catalog, options: HandlerOptions): CatalogHandler {
  const authenticate = createAuthenticator(options.tokens, options.registry);
  const services = createServices(catalog, options);
  const { accessLog, audit } = options;
  const nextRequestId = createRequestIds();

  // Every failure ends here: a problem body, unless the client is gone or the answer has begun.
  function fail(req: IncomingMessage, res: ServerResponse, requestId: string, error: unknown, ctx?: RequestContext) {
    if (error instanceof ClientGoneError) {
      res.statusCode = 499; // nothing is sent; the access log shows that the client left
      return;
    }
    if (isInternal(error) || isCatalogError(error, "STORAGE_UNAVAILABLE")) services.onError(error, req);
    if (res.headersSent || res.destroyed) return;
    const extra = ctx?.headers;
    sendProblem(
      res,
      toProblem(error, ctx?.operation.notFoundStatus ?? services.notFoundStatus),
      requestId,
      bodyPending(req) ? { ...extra, ...CLOSE } : extra,
    );
  }

  async function handleCatalogRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = accessLog === undefined ? 0 : performance.now();
    const requestId = acceptRequestId(req.headers[REQUEST_ID_HEADER]) ?? nextRequestId();
    const target = req.url ?? "/";
    const queryAt = target.indexOf("?");
    const path = pathOf(target, queryAt);
    let route: Action | "unknown" = "unknown";
    let ctx: RequestContext | undefined;
    // The token of an admin action, refused ones (403 included) too: the audit trail names it.
    let admin: Grant | undefined;
    try {
      const resource = matchRoute(path);
      if (resource === undefined) throw new HttpError("NOT_FOUND", `No resource at ${path}`);
      const operation = operationOf(resource.kind, req.method);
      if (operation === undefined) {
        throw new HttpError("METHOD_NOT_ALLOWED", `${req.method} is not allowed on ${path}`, {
          headers: { allow: ALLOW[resource.kind] },
        });
      }
      route = operation.action;
      const grant = operation.token ? authenticate(req.headers[TOKEN_HEADER]) : NO_GRANT;
      const { scope } = operation;
      if (scope === "admin") admin = grant;
      if (scope !== undefined && !grant.scopes.has(scope)) throw forbidden(scope);
      const form = formOf(operation, req);
      const query = queryAt === -1 ? "" : target.slice(queryAt + 1);
      const params = form.query === undefined ? NO_PARAMS : parseQuery(query, form.query);
      ctx = {
        services,
        req,
        res,
        requestId,
        path,
        resource,
        operation,
        grant,
        format: form.format,
        params,
        import: undefined,
        headers: undefined,
        audit: undefined,
      };
      if (operation.token) services.rates.admit(ctx);
      await operation.serve(ctx);
    } catch (error) {
      try {
        fail(req, res, requestId, error, ctx);
      } catch (sendError) {
        services.onError(sendError, req);
        res.destroy();
      }
    }
    if (audit !== undefined && admin !== undefined) {
      try {
        const entry = { time: new Date().toISOString(), action: route as Action, status: res.statusCode, requestId };
        audit({ ...entry, tokenId: admin.tokenId, tokenName: admin.name, ...ctx?.audit });
      } catch (auditError) {
        services.onError(auditError, req);
      }
    }
    if (accessLog !== undefined) {
      try {
        const entry = {
          method: req.method ?? "",
          path,
          status: res.statusCode,
          durationMs: performance.now() - started,
          requestId,
          route,
        };
        accessLog(ctx?.import === undefined ? entry : { ...entry, import: ctx.import });
      } catch (logError) {
        services.onError(logError, req);
      }
    }
  }

  // An import holds its admission from the first byte it reads to its answer; admitted ones that
  // wait for the limiter's turn to be applied are waiting, not in flight.
  return Object.assign(handleCatalogRequest, {
    stats: (): HandlerStats => ({
      importsInFlight: services.admission.admitted - services.imports.waiting,
      importsWaiting: services.admission.waiting + services.imports.waiting,
    }),
  });
}
