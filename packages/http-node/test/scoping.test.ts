import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { createCatalog } from "@catalog-kit/catalog-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCatalogHandler, startServer } from "../src/index.ts";
import {
  product,
  productPath,
  SITE_A,
  SITE_A_OTHER_TYPE,
  SITE_B,
  startTestServer,
  type TestServer,
  TOKENS,
} from "./support/test-server.ts";

const BASE = "/external/product/v1";
const admin = { token: TOKENS.admin };

let server: TestServer;
// The same tokens, but site B does not exist at all: the answers a token for A must not tell apart.
let withoutB: { url: string; close(): Promise<void> };

beforeAll(async () => {
  server = await startTestServer();
  const products = [product("b-secret", "B-SKU"), product("shared-id", "B-SHARED")];
  const imported = await server.request("POST", `${BASE}/bulk`, { ...admin, json: { ...SITE_B, products } });
  expect(imported.status).toBe(200);
  await server.request("POST", BASE, { ...admin, json: { ...SITE_A, product: product("shared-id", "A-SHARED") } });

  const catalog = createCatalog({ store: createMemoryStore(), sites: [SITE_A] });
  const handler = createCatalogHandler(catalog, { tokens: [{ token: TOKENS.a, sites: [SITE_A] }] });
  const running = await startServer({ handler, port: 0 });
  withoutB = { url: running.url, close: () => running.close() };
});
afterAll(async () => {
  await server.close();
  await withoutB.close();
});

// Without the problem's instance: it names the request, so no two answers share it.
async function answer(response: Response) {
  const body = (await response.text()).replace(/,"instance":"urn:catalog-kit:request:[^"]*"/, "");
  return { status: response.status, type: response.headers.get("content-type"), body };
}

async function unknownSiteAnswer(method: string, path: string, json?: unknown) {
  const init: RequestInit = {
    method,
    headers: { "x-service-access-token": TOKENS.a, "content-type": "application/json" },
  };
  if (json !== undefined) init.body = JSON.stringify(json);
  return answer(await fetch(withoutB.url + path, init));
}

async function expectUnchangedB() {
  for (const [key, id] of [
    ["b-secret", "b-secret"],
    ["B-SKU", "b-secret"],
    ["shared-id", "shared-id"],
  ]) {
    const response = await server.request("GET", productPath(key as string, SITE_B), admin);
    expect(await response.json()).toMatchObject({ id });
  }
}

describe("a token for site A and the products of site B", () => {
  it("cannot read them, by id or by sku, and gets exactly the unknown-site answer", async () => {
    for (const [key, by] of [
      ["b-secret", ""],
      ["B-SKU", ""],
      ["b-secret", "&by=id"],
      ["B-SKU", "&by=sku"],
      ["no-such-product", ""],
    ] as const) {
      const path = productPath(key, SITE_B, by);
      const got = await answer(await server.request("GET", path, { token: TOKENS.a }));
      expect(got.status).toBe(400);
      expect(JSON.parse(got.body)).toMatchObject({ code: "SITE_NOT_FOUND" });
      expect(got).toEqual(await unknownSiteAnswer("GET", path));
    }
  });

  it("cannot delete them, by id or by sku", async () => {
    for (const key of ["b-secret", "B-SKU"]) {
      for (const by of ["", "&by=id", "&by=sku"]) {
        const path = productPath(key, SITE_B, by);
        const got = await answer(await server.request("DELETE", path, { token: TOKENS.a }));
        expect(got).toEqual(await unknownSiteAnswer("DELETE", path));
      }
    }
    await expectUnchangedB();
  });

  it("cannot write them through any import, dry run or not", async () => {
    const csvContent =
      "id,sku,title,available,featured_image,url\nb-secret,B-SKU,Overwritten,false,https://i,https://u";
    const attempts: [string, unknown][] = [
      [BASE, { ...SITE_B, product: product("b-secret", "B-SKU", { title: "Overwritten" }) }],
      [`${BASE}/bulk`, { ...SITE_B, products: [product("b-secret", "B-SKU", { title: "Overwritten" })] }],
      [`${BASE}/bulk/csv`, { ...SITE_B, csvContent }],
      [`${BASE}/bulk?dryRun=true`, { ...SITE_B, products: [product("probe", "B-SKU")] }],
    ];
    for (const [path, json] of attempts) {
      const got = await answer(await server.request("POST", path, { token: TOKENS.a, json }));
      expect(JSON.parse(got.body)).toMatchObject({ code: "SITE_NOT_FOUND" });
      expect(got).toEqual(await unknownSiteAnswer("POST", path, json));
    }
    const view = await (await server.request("GET", productPath("b-secret", SITE_B), admin)).json();
    expect(view).toMatchObject({ title: "Product b-secret" });
  });

  it("cannot learn of them through its own site: B's ids and skus are unknown there", async () => {
    for (const key of ["b-secret", "B-SKU", "B-SHARED"]) {
      const response = await server.request("GET", productPath(key, SITE_A), { token: TOKENS.a });
      expect(await response.json()).toMatchObject({ code: "PRODUCT_NOT_FOUND" });
    }
    // Reusing B's sku in A is no conflict: skus are unique per site only.
    const reuse = await server.request("POST", BASE, { token: TOKENS.a, json: { product: product("a-own", "B-SKU") } });
    expect(reuse.status).toBe(200);
    const shared = await server.request("GET", productPath("shared-id", SITE_A), { token: TOKENS.a });
    expect(await shared.json()).toMatchObject({ sku: "A-SHARED" });
    await expectUnchangedB();
  });

  it("cannot reach a site that differs from A only in its type", async () => {
    const got = await answer(await server.request("GET", productPath("x", SITE_A_OTHER_TYPE), { token: TOKENS.a }));
    expect(JSON.parse(got.body)).toMatchObject({ code: "SITE_NOT_FOUND" });
    const write = await server.request("POST", BASE, {
      token: TOKENS.a,
      json: { ...SITE_A_OTHER_TYPE, product: product("x") },
    });
    expect(await write.json()).toMatchObject({ code: "SITE_NOT_FOUND" });
  });

  it("while the token for B and the admin token do reach B", async () => {
    expect((await server.request("GET", productPath("B-SKU", SITE_B), { token: TOKENS.b })).status).toBe(200);
    expect((await server.request("GET", productPath("b-secret", SITE_B), { token: TOKENS.ab })).status).toBe(200);
    const other = await server.request("GET", productPath("x", SITE_A), { token: TOKENS.b });
    expect(await other.json()).toMatchObject({ code: "SITE_NOT_FOUND" });
  });
});

describe("notFoundStatus: 404", () => {
  it("switches SITE_NOT_FOUND and PRODUCT_NOT_FOUND to 404, including uncovered sites", async () => {
    const strict = await startTestServer({ notFoundStatus: 404 });
    try {
      const unknownSite = await strict.request("GET", productPath("x", { siteId: "nope", siteType: "shopify" }), admin);
      expect(unknownSite.status).toBe(404);
      expect(await unknownSite.json()).toMatchObject({ status: 404, code: "SITE_NOT_FOUND" });
      const uncovered = await strict.request("GET", productPath("x", SITE_B), { token: TOKENS.a });
      expect(uncovered.status).toBe(404);
      const missing = await strict.request("DELETE", productPath("x", SITE_A), admin);
      expect(await missing.json()).toMatchObject({ status: 404, code: "PRODUCT_NOT_FOUND" });
      const importUnknown = await strict.request("POST", BASE, {
        ...admin,
        json: { siteId: "no", siteType: "no", product: product("p") },
      });
      expect(importUnknown.status).toBe(404);
      // Other 400s stay 400.
      expect((await strict.request("GET", `${BASE}/x`, admin)).status).toBe(400);
      const openapi = (await (await strict.request("GET", "/openapi.json")).json()) as {
        paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      };
      expect(openapi.paths[`${BASE}/{productId}`]?.get?.responses).toHaveProperty("404");
    } finally {
      await strict.close();
    }
  });
});
