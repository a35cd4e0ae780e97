// Demo mode (no CATALOG_CONFIG): one site, a fresh token, and curl lines that work as printed.
import { randomBytes } from "node:crypto";
import { API_PREFIX } from "@catalog-kit/http-node";
import { parseConfig, type ServerConfig } from "./config.ts";

const DEMO_SITE = { siteId: "demo", siteType: "demo" } as const;

/** The demo configuration: memory storage, the site demo/demo, and a random token that covers it. */
export function demoConfig(): { readonly config: ServerConfig; readonly token: string } {
  const token = randomBytes(24).toString("base64url");
  // Memory, not the SQLite file a configuration gets: a demo's token is new at every start, and
  // `npm start` in a checkout should leave no file behind.
  const config = parseConfig(
    { sites: [DEMO_SITE], tokens: [{ token, sites: [DEMO_SITE] }], storage: { adapter: "memory" } },
    "the demo configuration",
  );
  return { config, token };
}

/** What demo mode prints once it listens: the token, and an import and a lookup to paste. */
export function demoBanner(url: string, token: string): string {
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
    `Demo mode (no CATALOG_CONFIG): memory storage, so the products are gone when it stops; one site (siteId "demo", siteType "demo").`,
    `Access token: ${token}`,
    "",
    "Import a product:",
    `curl -sS -X POST '${url}${API_PREFIX}' ${auth} -H 'Content-Type: application/json' -d '${JSON.stringify({ product })}'`,
    "Read it back:",
    `curl -sS '${url}${API_PREFIX}/demo-1?siteId=demo&siteType=demo' ${auth}`,
    "",
  ].join("\n");
}
