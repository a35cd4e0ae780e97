// The public surface of @catalog-kit/http-node.
export { type AccessToken, fileTokenListings, HEX_SHA256, hasOneSecret, isTokenSite } from "./access-token.ts";
export { DEFAULT_BODY_BUDGET_FACTOR, DEFAULT_MAX_UPLOADS_PER_TOKEN } from "./admission.ts";
export { DEFAULT_MAX_BODY_BYTES } from "./body.ts";
export { DEFAULT_BODY_IDLE_TIMEOUT_MS, DEFAULT_MAX_STREAM_BYTES } from "./body-stream.ts";
export {
  type AccessLogEntry,
  type AuditEntry,
  type CatalogHandler,
  createCatalogHandler,
  DEFAULT_MAX_CONCURRENT_IMPORTS,
  type HandlerOptions,
  type HandlerStats,
  type ImportRecord,
} from "./handler.ts";
export {
  ADMIN_SITES_PATH,
  ADMIN_TOKENS_PATH,
  adminSitePath,
  adminTokenPath,
  BULK_PATH,
  CSV_PATH,
  EXPORT_PATH,
  LIST_PATH,
  productPath,
} from "./paths.ts";
export { type HttpErrorCode, PROBLEM_STATUSES, type ProblemBody, type ProblemCode } from "./problem.ts";
export { type Action, API_PREFIX } from "./routes.ts";
export { type RunningServer, type ServerOptions, startServer } from "./server.ts";
