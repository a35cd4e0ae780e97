// The standalone server (`npm start`, `catalog-kit serve`): configuration, store, handler, access
// log, metrics, graceful stop.
import { randomBytes } from "node:crypto";
import { createCatalog, isCatalogError } from "@catalog-kit/catalog-core";
import { createAccessLog } from "./access-log.ts";
import { ConfigError, loadConfig, parseConfig, type ServerConfig } from "./config.ts";
import { type AccessLogEntry, createCatalogHandler } from "./handler.ts";
import { createMetrics, metricsListener } from "./metrics.ts";
import { openStore } from "./open-store.ts";
import { API_PREFIX } from "./routes.ts";
import { startServer } from "./server.ts";

export { ConfigError, loadConfig, type ServerConfig } from "./config.ts";

const DEMO_SITE = { siteId: "demo", siteType: "demo" } as const;

function readPort(value: string | undefined): number {
  if (value === undefined || value === "") return 3000;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535)
    throw new ConfigError("the environment", [`PORT: Must be a port number (0-65535), got "${value}"`]);
  return port;
}

// exactOptionalPropertyTypes: a key left out of the file stays out of the handler's options.
function optional<K extends string>(key: K, value: number | undefined): { [P in K]?: number } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: number });
}

const SWITCH: Readonly<Record<string, boolean>> = {
  on: true,
  true: true,
  "1": true,
  off: false,
  false: false,
  "0": false,
};

// ACCESS_LOG in the environment overrides the file's "accessLog", so one run can turn it off.
function readAccessLogSwitch(value: string | undefined, configured: boolean): boolean {
  if (value === undefined || value === "") return configured;
  const on = SWITCH[value.toLowerCase()];
  if (on === undefined) {
    throw new ConfigError("the environment", [`ACCESS_LOG: Must be on or off (or true/false, 1/0), got "${value}"`]);
  }
  return on;
}

function demoBanner(url: string, token: string): string {
  const auth = `-H 'X-Service-Access-Token: ${token}'`;
  const product = {
    id: "demo-1",
    sku: "DEMO-SKU-1",
    title: "Demo product",
    price: 19.99,
    available: true,
    featured_image: "https://example.com/demo-1.jpg",
    url: "https://example.com/products/demo-1",
  };
  return [
    `Demo mode (no CATALOG_CONFIG): memory storage, one site (siteId "demo", siteType "demo").`,
    `Access token: ${token}`,
    "",
    "Import a product:",
    `curl -sS -X POST '${url}${API_PREFIX}' ${auth} -H 'Content-Type: application/json' -d '${JSON.stringify({ product })}'`,
    "Read it back:",
    `curl -sS '${url}${API_PREFIX}/demo-1?siteId=demo&siteType=demo' ${auth}`,
    "",
  ].join("\n");
}

/**
 * Runs the standalone server from the environment (`PORT`, `HOST`, `CATALOG_CONFIG`,
 * `ACCESS_LOG`) until SIGTERM or SIGINT; without a configuration, a demo site and token. A
 * configuration or start-up failure is printed and sets a failing exit code.
 */
export async function runStandalone(): Promise<void> {
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
  const port = readPort(process.env.PORT);
  const host = process.env.HOST || "127.0.0.1";
  const configFile = process.env.CATALOG_CONFIG;
  const demoToken = configFile ? undefined : randomBytes(24).toString("base64url");
  const config: ServerConfig = configFile
    ? await loadConfig(configFile)
    : parseConfig({ sites: [DEMO_SITE], tokens: [{ token: demoToken, sites: [DEMO_SITE] }] }, "the demo configuration");

  const logOn = readAccessLogSwitch(process.env.ACCESS_LOG, config.accessLog);
  const store = await openStore(config.storage);
  const catalog = createCatalog({ store, sites: config.sites, limits: config.limits });
  // Batched: one write per interval instead of one system call per request. Whatever is still
  // queued is written on the way out, so a clean shutdown loses no line.
  const accessLog = logOn ? createAccessLog((text) => process.stdout.write(text)) : undefined;
  if (accessLog !== undefined) process.on("exit", accessLog.flush);
  const metrics = config.metrics === false ? undefined : createMetrics(() => handler.stats());
  const observe =
    metrics === undefined
      ? accessLog?.log
      : (entry: AccessLogEntry) => {
          accessLog?.log(entry);
          metrics.observe(entry);
        };
  const handler = createCatalogHandler(catalog, {
    tokens: config.tokens,
    maxBodyBytes: config.limits.maxBodyBytes,
    maxStreamBytes: config.limits.maxStreamBytes,
    maxConcurrentImports: config.limits.maxConcurrentImports,
    ...optional("maxUploadsPerToken", config.limits.maxUploadsPerToken),
    ...optional("bodyBytesInFlight", config.limits.bodyBytesInFlight),
    ...optional("bodyIdleTimeoutMs", config.limits.bodyIdleTimeoutMs),
    notFoundStatus: config.notFoundStatus,
    ...(observe === undefined ? {} : { accessLog: observe }),
    ...(metrics !== undefined && config.metrics === true ? { metrics: metrics.render } : {}),
    onError: (error) => {
      if (isCatalogError(error, "STORAGE_UNAVAILABLE")) metrics?.storageError();
      console.error("Request failed:", error);
    },
  });
  const server = await startServer({ handler, port, host, requestTimeout: config.limits.requestTimeoutMs }).catch(
    async (error: unknown) => {
      await catalog.close(); // an open store connection would keep the failed process alive
      throw error;
    },
  );
  const metricsServer =
    metrics !== undefined && typeof config.metrics === "object"
      ? await startServer({ handler: metricsListener(metrics), port: config.metrics.port, host: config.metrics.host })
      : undefined;
  // Handlers first: a signal that arrives right after the banner must already stop gracefully.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      console.error(`${signal} again: exiting at once`);
      process.exit(1);
    }
    stopping = true;
    process.stdout.write(`${signal}: finishing in-flight requests, then stopping\n`);
    Promise.all([server.close(), metricsServer?.close()])
      .then(() => catalog.close())
      .then(() => {
        accessLog?.flush();
        process.stdout.write("Stopped\n");
      })
      .catch((error: unknown) => {
        console.error("Error while stopping:", error);
        process.exitCode = 1;
      });
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  process.stdout.write(`catalog-kit server listening on ${server.url}\n`);
  if (metricsServer !== undefined) process.stdout.write(`Metrics on ${metricsServer.url}/metrics\n`);
  if (demoToken !== undefined) process.stdout.write(demoBanner(server.url, demoToken));
  else {
    const { sites, tokens, storage } = config;
    process.stdout.write(
      `Configuration ${configFile}: ${sites.length} site(s), ${tokens.length} token(s), ${storage.adapter} storage\n`,
    );
  }
  catalog.checkHealth().catch((error: unknown) => console.error("Warning: the storage does not answer yet:", error));
}
