// The public surface of @catalog-kit/server.
export { type AccessLog, type AccessLogOptions, createAccessLog, formatAccessLog } from "./access-log.ts";
export {
  ConfigError,
  ConfigSchema,
  DEFAULT_REQUEST_TIMEOUT_MS,
  loadConfig,
  parseConfig,
  type ServerConfig,
  type StorageConfig,
} from "./config.ts";
export { createErrorLog, type ErrorLog, type LoggedError, loggedError } from "./error-log.ts";
export { createMetrics, type ServerMetrics } from "./metrics.ts";
export { metricsListener } from "./metrics-listener.ts";
export { openStore } from "./open-store.ts";
export { runServer } from "./run-server.ts";
export { catalogSites, siteCurrencies } from "./sites.ts";
export type { StandardSchemaV1, StorageAdapterModule, StorageContext } from "./storage/contract.ts";
