// The standalone server (`catalog-kit serve`, `npm start`): configuration, store, handler, access
// log, metrics, graceful stop.
import { dirname, resolve } from "node:path";
import {
  type Catalog,
  createCatalog,
  createUsageMeter,
  type ImportRecord,
  isCatalogError,
  openTenantRegistry,
  type TenantRegistry,
  type UsageMeter,
} from "@catalog-kit/catalog-core";
import {
  type AccessLogEntry,
  type CatalogHandler,
  createCatalogHandler,
  fileTokenListings,
  type HandlerOptions,
  startServer,
} from "@catalog-kit/http-node";
import { type AccessLog, createAccessLog } from "./access-log.ts";
import { formatAudit } from "./audit-log.ts";
import { ConfigError, loadConfig, type ServerConfig } from "./config.ts";
import { demoBanner, demoConfig } from "./demo.ts";
import { readEnvironment } from "./environment.ts";
import { createErrorLog, type ErrorLog } from "./error-log.ts";
import { historyOptions } from "./history-config.ts";
import { createMetrics, type ServerMetrics } from "./metrics.ts";
import { metricsListener } from "./metrics-listener.ts";
import { openStore } from "./open-store.ts";
import { catalogSites, siteCurrencies } from "./sites.ts";
import { stopOnSignals } from "./stop-on-signals.ts";
import { webhookDeliveries } from "./webhooks/deliveries.ts";
import { startWebhookSender } from "./webhooks/sender.ts";

// exactOptionalPropertyTypes: a key left out of the file stays out of the handler's options.
function optional<K extends string>(key: K, value: number | undefined): { [P in K]?: number } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: number });
}

// One callback per answered request for all: the handler calls it after the answer is handed over.
function observer(
  accessLog: AccessLog | undefined,
  metrics: ServerMetrics | undefined,
  errorLog: ErrorLog,
): (entry: AccessLogEntry) => void {
  const log = accessLog?.log;
  const observe = metrics?.observe;
  return (entry) => {
    log?.(entry);
    observe?.(entry);
    errorLog.observe(entry);
  };
}

function createHandler(
  catalog: Catalog,
  registry: TenantRegistry,
  config: ServerConfig,
  accessLog: AccessLog | undefined,
  metrics: ServerMetrics | undefined,
  errorLog: ErrorLog,
  usageMeter: UsageMeter,
): CatalogHandler {
  const options: HandlerOptions = {
    tokens: config.tokens,
    registry,
    // Not batched: an admin action is rare, and its line must not wait on a process that dies.
    audit: (entry) => process.stdout.write(`${formatAudit(entry)}\n`),
    ...(config.rateLimits === undefined ? {} : { rateLimits: config.rateLimits }),
    usageMeter,
    maxBodyBytes: config.limits.maxBodyBytes,
    maxStreamBytes: config.limits.maxStreamBytes,
    maxConcurrentImports: config.limits.maxConcurrentImports,
    ...optional("maxUploadsPerToken", config.limits.maxUploadsPerToken),
    ...optional("bodyBytesInFlight", config.limits.bodyBytesInFlight),
    ...optional("bodyIdleTimeoutMs", config.limits.bodyIdleTimeoutMs),
    notFoundStatus: config.notFoundStatus,
    siteCurrency: siteCurrencies(config),
    accessLog: observer(accessLog, metrics, errorLog),
    ...(metrics !== undefined && config.metrics === true ? { metrics: metrics.render } : {}),
    onError: (error, req) => {
      if (isCatalogError(error, "STORAGE_UNAVAILABLE")) metrics?.storageError();
      errorLog.failed(error, req);
    },
  };
  return createCatalogHandler(catalog, options);
}

/**
 * Runs the standalone server from the environment (`PORT`, `HOST`, `CATALOG_CONFIG`,
 * `ACCESS_LOG`) until SIGTERM or SIGINT; without a configuration, a demo site and token. A
 * configuration or start-up failure is printed and sets a failing exit code.
 */
export async function runServer(): Promise<void> {
  try {
    await serve();
  } catch (error) {
    console.error(
      error instanceof ConfigError ? error.message : `Cannot start the server: ${(error as Error).message ?? error}`,
    );
    process.exitCode = 1;
  }
}

async function serve(): Promise<void> {
  const { port, host, configFile, accessLog: logSwitch } = readEnvironment();
  const demo = configFile === undefined ? demoConfig() : undefined;
  const config = demo?.config ?? (await loadConfig(configFile as string));

  // Relative paths of the storage are the file's, as loadConfig read them; demo mode names none.
  const configDir = configFile === undefined ? process.cwd() : dirname(resolve(configFile));
  const store = await openStore(config.storage, { configDir });
  const errorLog = createErrorLog((line) => process.stderr.write(line));
  // The failures of work the server does on its own (the registry's refresh, the meter's settles).
  // An outage is told by the requests and health checks that meet it (and counted in theirs): a
  // timer that meets it would add a failed request every second.
  const backgroundError = (error: unknown) => {
    if (!isCatalogError(error, "STORAGE_UNAVAILABLE")) errorLog.failed(error);
  };
  // A key's claim lapses with the longest request that could hold it, should its process die.
  const idempotency = { retentionMs: config.idempotency.retentionMs, leaseMs: config.limits.requestTimeoutMs };
  // Sites and tokens made at run time, read from the store every second; the file's stay in force.
  const sites = catalogSites(config);
  const registry = await openTenantRegistry({
    store,
    file: { sites, tokens: fileTokenListings(config.tokens) },
    onError: backgroundError,
  }).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  // Each import's end enqueues its webhooks' deliveries with its final record, in one store call.
  // None at all with `"history": false`, which the configuration refuses beside webhooks.
  const history = historyOptions(config.history, (record: ImportRecord) => webhookDeliveries(config.webhooks, record));
  const catalog = createCatalog({ store, sites, directory: registry, limits: config.limits, idempotency, history });
  // Batched: one write per interval instead of one system call per request. Whatever is still
  // queued is written on the way out, so a clean shutdown loses no line.
  const accessLog = (logSwitch ?? config.accessLog) ? createAccessLog((text) => process.stdout.write(text)) : undefined;
  if (accessLog !== undefined) process.on("exit", accessLog.flush);
  const metrics = config.metrics === false ? undefined : createMetrics(() => handler.stats(), store);
  // Rate limits are counted over the store, so that they hold for every server on it; a meter
  // nobody counts with (no limits) never settles.
  const usageMeter = createUsageMeter({ store, onError: backgroundError });
  const handler = createHandler(catalog, registry, config, accessLog, metrics, errorLog, usageMeter);
  // Deliveries queued in the store by any server on it, this one's imports' and a stopped one's.
  // None without webhooks: no poll of the store, and no drop of what a server that has them queued.
  const webhookSender =
    config.webhooks.length === 0
      ? undefined
      : startWebhookSender({
          store,
          settings: config,
          log: (fields) => process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), ...fields })}\n`),
          ...(metrics === undefined ? {} : { count: metrics.webhookDelivery }),
          onError: backgroundError,
        });
  const server = await startServer({ handler, port, host, requestTimeout: config.limits.requestTimeoutMs }).catch(
    async (error: unknown) => {
      await webhookSender?.close();
      registry.close();
      await usageMeter.close();
      await catalog.close(); // an open store connection would keep the failed process alive
      throw error;
    },
  );
  const metricsServer =
    metrics !== undefined && typeof config.metrics === "object"
      ? await startServer({ handler: metricsListener(metrics), port: config.metrics.port, host: config.metrics.host })
      : undefined;
  // Handlers first: a signal that arrives right after the banner must already stop gracefully.
  stopOnSignals(async () => {
    await Promise.all([server.close(), metricsServer?.close(), webhookSender?.close()]);
    registry.close();
    await usageMeter.close();
    await catalog.close();
    accessLog?.flush();
  });
  process.stdout.write(`catalog-kit server listening on ${server.url}\n`);
  if (metricsServer !== undefined) process.stdout.write(`Metrics on ${metricsServer.url}/metrics\n`);
  if (demo !== undefined) process.stdout.write(demoBanner(server.url, demo.token));
  else {
    const { sites, tokens, storage } = config;
    process.stdout.write(
      `Configuration ${configFile}: ${sites.length} site(s), ${tokens.length} token(s), ${storage.adapter} storage\n`,
    );
  }
  // Not a request: an outage that starts here counts no failed request, and the first answer ends it.
  catalog.checkHealth().catch((error: unknown) => errorLog.failed(error));
}
