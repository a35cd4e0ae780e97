// Mounting the catalog's HTTP API inside an existing node:http application.
// Run it with: npm run embed-handler -w examples
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { createCatalog } from "@catalog-kit/catalog-core";
import { createCatalogHandler } from "@catalog-kit/http-node";

const shop = { siteId: "shop-1", siteType: "shopify" };
const catalog = createCatalog({ store: createMemoryStore(), sites: [shop] });
const catalogApi = createCatalogHandler(catalog, {
  tokens: [{ token: "example-token", sites: [shop] }],
  accessLog: (entry) => console.log(`access: ${entry.method} ${entry.path} ${entry.status}`),
});

// The application answers its own routes and hands everything else to the catalog.
const server = createServer((req, res) => {
  if (req.url === "/") {
    res.writeHead(200, { "content-type": "text/plain" }).end("my shop backend\n");
    return;
  }
  void catalogApi(req, res);
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const headers = { "x-service-access-token": "example-token", "content-type": "application/json" };
const product = {
  id: "sock-1",
  sku: "SOCK-1",
  title: "Socks",
  available: true,
  featured_image: "https://cdn.example.com/sock-1.jpg",
  url: "https://shop.example.com/products/sock-1",
};
// A one-site token needs no siteId/siteType in import bodies.
const imported = await fetch(`${base}/external/product/v1`, {
  method: "POST",
  headers,
  body: JSON.stringify({ product }),
});
console.log("Import:", imported.status, await imported.text());
const found = await fetch(`${base}/external/product/v1/SOCK-1?siteId=shop-1&siteType=shopify`, { headers });
console.log("Get:", found.status, await found.text());
console.log("Own route:", (await (await fetch(base)).text()).trim());

server.close();
await catalog.close();
