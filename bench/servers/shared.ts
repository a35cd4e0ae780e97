// What every bench server shares: the site, the token, the catalog it serves, and how it
// tells the bench where it listens.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { createRedisStore } from "@catalog-kit/adapter-redis";
import { type Catalog, createCatalog, type Site } from "@catalog-kit/catalog-core";
import { generateProducts } from "../data.ts";

/** The one site every bench server serves. */
export const SITE: Site = { siteType: "bench", siteId: "shop-1" };
/** The access token the load generator presents. */
export const TOKEN = "bench-token";
/** The key prefix of the bench's catalog in Redis. */
export const KEY_PREFIX = "bench-http";

/** How a server was asked to run: `--storage memory|redis`, `--redis-url`, `--preload N`, `--log-file PATH`, `--rate-limits`. */
export interface ServerArgs {
  readonly storage: "memory" | "redis";
  readonly redisUrl: string | undefined;
  readonly preload: number;
  /** Where a server with a logger of its own (fastify) logs; no logger when absent. */
  readonly logFile: string | undefined;
  /** Whether its token has rate limits (the handler's: `servers/catalog.ts`). */
  readonly rateLimits: boolean;
}

/** Reads the server's command line. */
export function serverArgs(): ServerArgs {
  const { values } = parseArgs({
    options: {
      storage: { type: "string", default: "memory" },
      "redis-url": { type: "string" },
      preload: { type: "string", default: "0" },
      "log-file": { type: "string" },
      "rate-limits": { type: "boolean", default: false },
    },
  });
  const storage = values.storage === "redis" ? "redis" : "memory";
  return {
    storage,
    redisUrl: values["redis-url"],
    preload: Number(values.preload),
    logFile: values["log-file"],
    rateLimits: values["rate-limits"] === true,
  };
}

/** The catalog a server serves: memory preloaded with the bench products, or the bench's Redis (loaded by the bench). */
export async function benchCatalog(args: ServerArgs): Promise<Catalog> {
  if (args.storage === "redis") {
    if (args.redisUrl === undefined) throw new Error("--redis-url is required with --storage redis");
    return createCatalog({ store: createRedisStore({ url: args.redisUrl, keyPrefix: KEY_PREFIX }), sites: [SITE] });
  }
  const catalog = createCatalog({ store: createMemoryStore(), sites: [SITE] });
  if (args.preload > 0) await catalog.importProducts(SITE, generateProducts(args.preload));
  return catalog;
}

/** Tells the bench the server's URL (one JSON line), and stops the process on SIGTERM. */
export function announce(server: Server, close: () => Promise<unknown> = async () => {}): void {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
  process.once("SIGTERM", () => {
    server.closeAllConnections();
    server.close();
    void close().finally(() => process.exit(0));
  });
}
