// Scopes on every route of the table: a token lacking the one its operation needs gets 403
// FORBIDDEN naming it, before anything is read or written; a token with only that scope passes
// the check; the file's tokens that list no scopes keep every scope but admin.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuthenticator } from "../src/auth.ts";
import { ROUTES } from "../src/routes.ts";
import { type AdminServer, DELETER, IMPORTER, READER, ROOT, startAdminServer } from "./support/admin-server.ts";
import { product, SITE_A, TOKENS } from "./support/test-server.ts";

const ONLY: Record<string, string> = { read: READER, import: IMPORTER, delete: DELETER, admin: ROOT };
// A token lacking each scope: one of the others'.
const LACKING: Record<string, string> = { read: IMPORTER, import: READER, delete: READER, admin: DELETER };

const rows = Object.values(ROUTES).flatMap((route) =>
  Object.entries(route.methods).map(([method, operation]) => ({ path: route.path, method, operation })),
);
const query = `?siteId=${SITE_A.siteId}&siteType=${SITE_A.siteType}`;
const target = (path: string) =>
  path
    .replace("{productId}", "p-1")
    .replace("{siteType}", "shopify")
    .replace("{siteId}", "shop-a")
    .replace("{id}", "x")
    .replace("{importId}", "0123abc") + (path.startsWith("/admin/") ? "" : query);

describe("scopes", () => {
  let server: AdminServer;
  beforeAll(async () => {
    server = await startAdminServer(undefined, 50);
    const seeded = await server.request("POST", `/external/product/v1/bulk${query}`, {
      token: TOKENS.admin,
      json: { products: [product("p-1")] },
    });
    expect(seeded.status).toBe(200);
  });
  afterAll(() => server.close());

  it("answer 403 naming the scope on every route kind to a token without it, and change nothing", async () => {
    const checked: string[] = [];
    for (const { path, method, operation } of rows.filter((row) => row.operation.token)) {
      const scope = operation.scope as string;
      const body = method === "POST" || method === "PATCH" ? { json: { products: [product("p-2")], title: "x" } } : {};
      const res = await server.request(method, target(path), { token: LACKING[scope] as string, ...body });
      const problem = (await res.json()) as { code: string; errors: unknown[] };
      expect([res.status, problem.code, problem.errors], `${method} ${path}`).toEqual([
        403,
        "FORBIDDEN",
        [{ scope, message: `This token lacks the ${scope} scope this operation needs` }],
      ]);
      checked.push(operation.action);
    }
    expect(new Set(checked)).toEqual(
      new Set(
        ["list", "single", "bulk", "csv", "export", "get", "patch", "delete", "createSite", "listSites"].concat([
          "deleteSite",
          "createToken",
          "listTokens",
          "revokeToken",
          "listImports",
          "getImport",
          "importProblems",
        ]),
      ),
    );
    const stored = await server.request("GET", `/external/product/v1/p-1${query}&view=full`, { token: READER });
    expect(await stored.json()).toEqual(product("p-1"));
    expect((await server.request("GET", `/external/product/v1/p-2${query}`, { token: READER })).status).toBe(400);
  });

  it("let a token with only the scope through the check", async () => {
    for (const { path, method, operation } of rows.filter((row) => row.operation.token)) {
      const scope = operation.scope as string;
      const res = await server.request(method, target(path), { token: ONLY[scope] as string });
      await res.arrayBuffer();
      expect(res.status, `${method} ${path}`).not.toBe(403);
      expect(res.status, `${method} ${path}`).not.toBe(401);
    }
  });

  it("of the file's tokens without scopes: every one but admin", async () => {
    const imported = await server.request("POST", `/external/product/v1/bulk${query}`, {
      token: TOKENS.ab,
      json: { products: [product("p-1")] },
    });
    expect(imported.status).toBe(200);
    const read = await server.request("GET", `/external/product/v1/p-1${query}`, { token: TOKENS.a });
    expect(read.status).toBe(200);
    const patched = await server.request("PATCH", `/external/product/v1/p-1${query}`, {
      token: TOKENS.hashed,
      json: { title: "changed" },
    });
    expect(patched.status).toBe(200);
    const sites = await server.request("GET", "/admin/v1/sites", { token: TOKENS.admin });
    expect(sites.status).toBe(403);
  });
});

describe("a grant", () => {
  it("carries its token's stable id, its name (tokens[<index>] by default) and its scopes", () => {
    const authenticate = createAuthenticator([
      { token: "first", sites: "*" },
      { token: "second", sites: [SITE_A], name: "ops", scopes: ["admin", "read"] },
    ]);
    const first = authenticate("first");
    expect([first.tokenId, first.name, [...first.scopes], first.rateLimits]).toEqual([
      "file:0",
      "tokens[0]",
      ["read", "import", "delete"],
      undefined,
    ]);
    const second = authenticate("second");
    expect([second.tokenId, second.name, [...second.scopes]]).toEqual(["file:1", "ops", ["admin", "read"]]);
    expect(authenticate("second")).toBe(second);
  });
});
