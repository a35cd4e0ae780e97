import { createMemoryStore } from "@catalog-kit/adapter-memory";
import {
  type Catalog,
  type CatalogStore,
  createCatalog,
  type HistoryOptions,
  type Site,
} from "@catalog-kit/catalog-core";
import { type AccessLogEntry, createCatalogHandler, type HandlerOptions, startServer } from "../../src/index.ts";

export const SITE_A: Site = { siteId: "shop-a", siteType: "shopify" };
export const SITE_B: Site = { siteId: "shop-b", siteType: "shopify" };
/** Differs from SITE_A only in its type. */
export const SITE_A_OTHER_TYPE: Site = { siteId: "shop-a", siteType: "woocommerce" };
export const SITES = [SITE_A, SITE_B, SITE_A_OTHER_TYPE];

export const TOKENS = {
  admin: "admin-secret-token",
  a: "token-for-a",
  b: "token-for-b",
  ab: "token-for-a-and-b",
  abDefaultB: "token-for-a-and-b-default-b",
  hashed: "hashed-token-for-a",
} as const;

// sha256("hashed-token-for-a"), so the configuration never holds that secret.
export const HASHED_SHA256 = "9ee6f074b3a8eabe8642b86c660ee8595c275860200f7af02b9a44d747877a2c";

export const BASE_TOKENS: HandlerOptions["tokens"] = [
  { token: TOKENS.admin, sites: "*" },
  { token: TOKENS.a, sites: [SITE_A] },
  { token: TOKENS.b, sites: [SITE_B] },
  { token: TOKENS.ab, sites: [SITE_A, SITE_B] },
  { token: TOKENS.abDefaultB, sites: [SITE_A, SITE_B], defaultSite: SITE_B },
  { tokenSha256: HASHED_SHA256, sites: [SITE_A] },
];

/** A valid product with every required field; `extra` overrides or adds fields. */
export function product(id: string, sku = `SKU-${id}`, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    sku,
    title: `Product ${id}`,
    available: true,
    featured_image: `https://img.example/${encodeURIComponent(id)}.jpg`,
    url: `https://shop.example/p/${encodeURIComponent(id)}`,
    ...extra,
  };
}

export interface TestServer {
  readonly url: string;
  readonly catalog: Catalog;
  readonly log: AccessLogEntry[];
  readonly errors: unknown[];
  /** fetch against the server; `token` becomes X-Service-Access-Token, `json` a JSON body. */
  request(method: string, path: string, init?: RequestOptions): Promise<Response>;
  close(): Promise<void>;
}

export interface RequestOptions {
  readonly token?: string;
  readonly json?: unknown;
  readonly body?: string | Uint8Array;
  readonly headers?: Record<string, string>;
}

export interface TestServerOptions extends Partial<HandlerOptions> {
  readonly store?: CatalogStore;
  readonly maxProducts?: number;
  /** The catalog's import history options (default: the catalog's defaults). */
  readonly history?: HistoryOptions;
}

/** A real listening server on a free port, over a memory catalog with SITES configured. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const { store = createMemoryStore(), maxProducts, history, ...handlerOptions } = options;
  const catalog = createCatalog({
    store,
    sites: SITES,
    ...(history === undefined ? {} : { history }),
    ...(handlerOptions.registry === undefined ? {} : { directory: handlerOptions.registry }),
    ...(maxProducts === undefined ? {} : { limits: { maxProductsPerRequest: maxProducts } }),
  });
  const log: AccessLogEntry[] = [];
  const errors: unknown[] = [];
  const handler = createCatalogHandler(catalog, {
    tokens: BASE_TOKENS,
    accessLog: (entry) => log.push(entry),
    onError: (error) => errors.push(error),
    ...handlerOptions,
  });
  const server = await startServer({ handler, port: 0, host: "127.0.0.1" });
  return {
    url: server.url,
    catalog,
    log,
    errors,
    request(method, path, init = {}) {
      const headers: Record<string, string> = { ...init.headers };
      if (init.token !== undefined) headers["x-service-access-token"] = init.token;
      let body = init.body;
      if (init.json !== undefined) {
        body = JSON.stringify(init.json);
        headers["content-type"] ??= "application/json";
      }
      return fetch(server.url + path, { method, headers, ...(body === undefined ? {} : { body }) });
    },
    async close() {
      await server.close();
      await catalog.close();
    },
  };
}

/** The path of a product, with its id percent-encoded and the site in the query. */
export function productPath(key: string, site: Site, extra = ""): string {
  const query = new URLSearchParams({ siteId: site.siteId, siteType: site.siteType });
  return `/external/product/v1/${encodeURIComponent(key)}?${query}${extra}`;
}
