// One rule names the site of every route: the siteId and siteType query parameters, else (imports
// only, deprecated) the JSON body's fields, else the token's default site.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildOpenApi } from "../src/openapi.ts";
import { problemOf } from "./support/problem.ts";
import { product, SITE_A, SITE_B, startTestServer, type TestServer, TOKENS } from "./support/test-server.ts";

const BASE = "/external/product/v1";
const query = (site: { siteId: string; siteType: string }) => `siteId=${site.siteId}&siteType=${site.siteType}`;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

describe("site addressing", () => {
  it("imports one product into the site its query names, as the bulk imports do", async () => {
    const response = await server.request("POST", `${BASE}?${query(SITE_B)}`, {
      token: TOKENS.ab,
      json: { product: product("single-q") },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("deprecation")).toBeNull();
    expect((await server.catalog.getProduct(SITE_B, "single-q")).id).toBe("single-q");
  });

  it("looks up, deletes, lists and exports in the token's default site when the query names none", async () => {
    for (const [token, site] of [
      [TOKENS.a, SITE_A],
      [TOKENS.abDefaultB, SITE_B],
    ] as const) {
      const id = `default-${site.siteId}`;
      await server.catalog.importProduct(site, product(id));
      const got = await server.request("GET", `${BASE}/${id}`, { token });
      expect(got.status).toBe(200);
      expect(await got.json()).toMatchObject({ id });
      const page = await server.request("GET", BASE, { token });
      expect(page.status).toBe(200);
      expect(((await page.json()) as { products: { id: string }[] }).products.map((p) => p.id)).toContain(id);
      const file = await server.request("GET", `${BASE}/bulk/export`, {
        token,
        headers: { accept: "application/x-ndjson" },
      });
      expect(file.status).toBe(200);
      expect(await file.text()).toContain(`"id":"${id}"`);
      expect((await server.request("DELETE", `${BASE}/${id}`, { token })).status).toBe(200);
      await expect(server.catalog.getProduct(site, id)).rejects.toMatchObject({ code: "PRODUCT_NOT_FOUND" });
    }
  });

  it("answers SITE_REQUIRED naming the query parameters, on every route, when the token has no default site", async () => {
    const requests: [string, string, unknown?][] = [
      ["GET", `${BASE}/any`],
      ["DELETE", `${BASE}/any`],
      ["GET", BASE],
      ["GET", `${BASE}/bulk/export`],
      ["POST", BASE, { product: product("nowhere") }],
      ["POST", `${BASE}/bulk`, { products: [product("nowhere")] }],
    ];
    for (const [method, path, json] of requests) {
      const body = await problemOf(
        await server.request(method, path, { token: TOKENS.ab, ...(json === undefined ? {} : { json }) }),
        400,
        "SITE_REQUIRED",
      );
      expect(body.errors, `${method} ${path}`).toEqual([
        { parameter: "siteId", message: expect.any(String) },
        { parameter: "siteType", message: expect.any(String) },
      ]);
    }
    const half = await problemOf(
      await server.request("GET", `${BASE}/any?siteId=shop-a`, { token: TOKENS.a }),
      400,
      "SITE_REQUIRED",
    );
    expect(half.errors).toEqual([{ parameter: "siteType", message: expect.any(String) }]);
  });

  it("publishes the site parameters of every product operation as optional, the single import's included", () => {
    const document = buildOpenApi({ maxBodyBytes: 1_000, maxProductsPerRequest: 10, notFoundStatus: 400 }) as {
      paths: Record<
        string,
        Record<string, { operationId: string; parameters?: { name?: string; required?: boolean }[] }>
      >;
    };
    // The admin API's operations name sites in their bodies and paths, not as the site of the request.
    const operations = Object.entries(document.paths)
      .filter(([path]) => !path.startsWith("/admin/"))
      .flatMap(([, item]) => Object.values(item));
    const product = operations.filter((op) => op.operationId !== "health" && op.operationId !== "openapi");
    expect(product.map((op) => op.operationId)).toContain("importProduct");
    for (const op of product) {
      const site = (op.parameters ?? []).filter((param) => param.name === "siteId" || param.name === "siteType");
      expect(
        site.map((param) => [param.name, param.required]),
        op.operationId,
      ).toEqual([
        ["siteId", false],
        ["siteType", false],
      ]);
    }
  });
});
