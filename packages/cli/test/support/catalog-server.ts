// A catalog server for the command's tests: the real handler on the memory store, every POST's
// headers recorded, and a hook that may answer the next POSTs itself (a 503, a lost connection).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { type Catalog, createCatalog } from "@catalog-kit/catalog-core";
import { createCatalogHandler, type HandlerOptions, type RunningServer, startServer } from "@catalog-kit/http-node";

/** The site every test imports into. */
export const SITE = { siteId: "shop-1", siteType: "shopify" } as const;
/** The token the server takes. */
export const TOKEN = "cli-test-token";

/** Answers a POST instead of the handler when it returns true. */
export type Hook = (req: IncomingMessage, res: ServerResponse) => boolean;

/** A running test server. */
export interface CatalogServer {
  readonly url: string;
  readonly catalog: Catalog;
  /** A directory of the test's own, removed by `close`, holding `token` (the token file). */
  readonly dir: string;
  /** `--url URL --site TYPE/ID --token-file FILE`. */
  readonly connect: readonly string[];
  /** The headers of every POST so far. */
  readonly posts: IncomingHttpHeaders[];
  /** Hooks for the next POSTs, one each, in order. */
  readonly hooks: Hook[];
  close(): Promise<void>;
}

/** Starts a test server; `options` override the handler's (limits). */
export async function startCatalogServer(
  options: Partial<HandlerOptions> = {},
  port = 0,
  catalog: Catalog = createCatalog({ store: createMemoryStore(), sites: [SITE] }),
): Promise<CatalogServer> {
  const dir = await mkdtemp(join(tmpdir(), "catalog-cli-"));
  await writeFile(join(dir, "token"), `${TOKEN}\n`);
  const handler = createCatalogHandler(catalog, { tokens: [{ token: TOKEN, sites: "*" }], ...options });
  const posts: IncomingHttpHeaders[] = [];
  const hooks: Hook[] = [];
  const server: RunningServer = await startServer({
    port,
    handler: (req: IncomingMessage, res: ServerResponse) => {
      if (req.method === "POST") {
        posts.push(req.headers);
        if (hooks.shift()?.(req, res)) return;
      }
      return handler(req, res);
    },
  });
  return {
    url: server.url,
    catalog,
    dir,
    connect: ["--url", server.url, "--site", `${SITE.siteType}/${SITE.siteId}`, "--token-file", join(dir, "token")],
    posts,
    hooks,
    async close() {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** One product as an NDJSON line. */
export function productLine(id: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id,
    sku: `S-${id}`,
    title: `T ${id}`,
    available: true,
    featured_image: "f",
    url: "u",
    ...extra,
  });
}
