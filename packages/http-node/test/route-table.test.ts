// The route table is the one description of the API: the paths a request may take, the query
// parameters and media types it may send, and what /openapi.json publishes all come from its rows.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildOpenApi } from "../src/openapi.ts";
import { matchRoute, ROUTES } from "../src/routes.ts";
import { product, SITE_A, startTestServer, type TestServer, TOKENS } from "./support/test-server.ts";

type Parameter = { name?: string; $ref?: string };
type Doc = {
  paths: Record<string, Record<string, { operationId: string; parameters?: Parameter[] }>>;
  components: { parameters: Record<string, { name: string }> };
};

const rows = Object.entries(ROUTES).flatMap(([kind, route]) =>
  Object.entries(route.methods).map(([method, operation]) => ({ kind, path: route.path, method, operation })),
);

describe("the route table", () => {
  it("routes every row's path to its resource, with its path parameters still encoded", () => {
    for (const { kind, path } of rows) {
      const expected = path.includes("{siteType}")
        ? { kind, rawType: "t%2F1", rawId: "p%2F1" }
        : path.includes("{")
          ? { kind, rawId: "p%2F1" }
          : { kind };
      const filled = path.replace("{siteType}", "t%2F1").replace(/\{(productId|siteId|id|importId)\}/, "p%2F1");
      expect(matchRoute(filled), path).toEqual(expected);
    }
    for (const path of ["/admin/v1/sites/a", "/admin/v1/sites/a/", "/admin/v1/sites//b", "/admin/v1/sites/a/b/c"]) {
      expect(matchRoute(path), path).toBeUndefined();
    }
    expect(matchRoute("/admin/v1/tokens/a/b")).toBeUndefined();
    expect(matchRoute("/admin/v1/tokens/")).toBeUndefined();
  });

  it("names the scope of every operation that takes a token, and of no other", () => {
    const expected: Record<string, string> = {
      get: "read",
      list: "read",
      export: "read",
      single: "import",
      bulk: "import",
      csv: "import",
      patch: "import",
      delete: "delete",
      listImports: "read",
      getImport: "read",
      importProblems: "read",
    };
    for (const { method, path, operation } of rows) {
      const scope = operation.token ? (expected[operation.action] ?? "admin") : undefined;
      expect(operation.scope, `${method} ${path}`).toBe(scope);
      if (scope === "admin") expect(path.startsWith("/admin/v1/"), path).toBe(true);
    }
  });

  it("publishes exactly its documented operations, each with its query parameters and raw body types", () => {
    const doc = buildOpenApi({ maxBodyBytes: 10, maxProductsPerRequest: 10, notFoundStatus: 400 }) as Doc;
    const published = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const documented = rows.filter((row) => row.operation.doc !== undefined);
    expect(published.sort()).toEqual(documented.map((row) => `${row.method} ${row.path}`).sort());
    expect(rows.some((row) => row.operation.doc === undefined && row.kind === "metrics")).toBe(true);
    for (const { path, method, operation } of documented) {
      const published = doc.paths[path]?.[method.toLowerCase()];
      expect(published?.operationId).toBe(operation.doc?.operationId);
      const names = (published?.parameters ?? []).map(
        (p) => p.name ?? doc.components.parameters[(p.$ref ?? "").split("/").pop() ?? ""]?.name,
      );
      const taken = (operation.query ?? []).map((p) => p.name);
      expect(names, `${method} ${path}`).toEqual(expect.arrayContaining(taken));
    }
  });
});

describe("the forms a request may take", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());
  const BASE = "/external/product/v1";
  const query = `?siteId=${SITE_A.siteId}&siteType=${SITE_A.siteType}`;

  it("are chosen by media types only: a name of Object.prototype is no export and no raw body", async () => {
    for (const accept of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      const page = await server.request("GET", BASE + query, { token: TOKENS.admin, headers: { accept } });
      expect(page.status, accept).toBe(200);
      expect(await page.json()).toEqual({ products: [], nextCursor: null });
    }
    const line = `${JSON.stringify(product("proto-type"))}\n`;
    for (const type of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      const body = { token: TOKENS.admin, headers: { "content-type": type }, body: line };
      const imported = await server.request("POST", `${BASE}/bulk${query}`, body);
      expect(imported.status, type).toBe(415);
    }
    expect(server.errors).toEqual([]);
    expect((await server.request("GET", `${BASE}/proto-type${query}`, { token: TOKENS.admin })).status).toBe(400);
  });

  it("take the query parameters of their operation, whatever the body's media type", async () => {
    const ndjson = { "content-type": "application/x-ndjson" };
    const raw = await server.request("POST", `${BASE}/bulk${query}&dryRun=true`, {
      token: TOKENS.admin,
      headers: ndjson,
      body: `${JSON.stringify(product("form-1"))}\n`,
    });
    expect(await raw.json()).toMatchObject({ total: 1, dryRun: true });
    // A generic client sends the documented site parameters with a JSON envelope too.
    const inQuery = await server.request("POST", `${BASE}/bulk${query}`, {
      token: TOKENS.admin,
      json: { products: [product("form-2")] },
    });
    expect(inQuery.status).toBe(200);
    expect(inQuery.headers.get("deprecation")).toBeNull();
    const both = await server.request("POST", `${BASE}/bulk/csv${query}`, {
      token: TOKENS.admin,
      json: {
        ...SITE_A,
        csvContent: "id,sku,title,available,featured_image,url\nform-3,F-3,T,true,https://i,https://u\n",
      },
    });
    expect(both.status).toBe(200);
    expect(both.headers.get("deprecation")).toBe("true");
    const found = await server.request("GET", `${BASE}/form-2${query}`, { token: TOKENS.admin });
    expect(found.status).toBe(200);
    // One name from each place makes a site, as both from one would.
    const split = await server.request("POST", `${BASE}/bulk?siteId=${SITE_A.siteId}`, {
      token: TOKENS.admin,
      json: { siteType: SITE_A.siteType, products: [product("form-4")] },
    });
    expect(split.status).toBe(200);
    const differ = await server.request("POST", `${BASE}/bulk${query}`, {
      token: TOKENS.admin,
      json: { siteId: "shop-b", siteType: SITE_A.siteType, products: [product("form-5")] },
    });
    expect(differ.status).toBe(400);
    expect(await differ.json()).toMatchObject({
      code: "VALIDATION_FAILED",
      errors: [{ parameter: "siteId", pointer: "/siteId" }],
    });
    const empty = await server.request("POST", `${BASE}/bulk?siteId=&siteType=shopify`, {
      token: TOKENS.admin,
      json: { products: [product("form-6")] },
    });
    expect(await empty.json()).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ parameter: "siteId" }] });
    expect((await server.request("GET", `${BASE}/form-5${query}`, { token: TOKENS.admin })).status).toBe(400);
    // An export takes the site only: a page's parameters are unknown to it.
    const exported = await server.request("GET", `${BASE}/bulk/export${query}&limit=1`, { token: TOKENS.admin });
    expect(await exported.json()).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ parameter: "limit" }] });
  });
});
