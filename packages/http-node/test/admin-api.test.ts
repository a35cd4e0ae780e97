// The admin API (/admin/v1) end to end: every endpoint, its answers as /openapi.json declares them,
// the hostile cases (no scope, a token revoking itself, ill-formed names, races, many tokens), the
// audit trail, and two servers over one store agreeing within a second.
import { hash } from "node:crypto";
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { SiteSchema, siteKey } from "@catalog-kit/catalog-core";
import { fc, test } from "@fast-check/vitest";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildOpenApi } from "../src/openapi.ts";
import { type AdminServer, ROOT, startAdminServer } from "./support/admin-server.ts";
import { answerChecker, type Document } from "./support/openapi-check.ts";
import { product, SITE_A, SITES, TOKENS } from "./support/test-server.ts";

const SHOP = { siteId: "shop-new", siteType: "shopify" };
const doc = buildOpenApi({ maxBodyBytes: 1_000, maxProductsPerRequest: 10, notFoundStatus: 400 }) as Document;
const check = answerChecker(doc);

// Sends an admin request and checks its answer against the document: its status, type and body.
async function admin(server: AdminServer, method: string, path: string, json?: unknown, token: string = ROOT) {
  const res = await server.request(method, path, { token, ...(json === undefined ? {} : { json }) });
  const text = await res.text();
  const template = path
    .split("?")[0]
    ?.replace(/^\/admin\/v1\/sites\/[^/]+\/[^/]+$/, "/admin/v1/sites/{siteType}/{siteId}")
    .replace(/^\/admin\/v1\/tokens\/[^/]+$/, "/admin/v1/tokens/{id}") as string;
  const answer = { status: res.status, contentType: res.headers.get("content-type") ?? undefined, text };
  expect(check(template, method.toLowerCase(), answer), `${method} ${path}: ${text}`).toEqual([]);
  return { status: res.status, body: JSON.parse(text) as Record<string, unknown> & { code?: string } };
}

const within = async (ms: number, test: () => Promise<boolean>) => {
  const until = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
};

describe("the admin API", () => {
  let server: AdminServer;
  beforeAll(async () => {
    server = await startAdminServer(createMemoryStore(), 50);
  });
  afterAll(() => server.close());

  it("makes a site, a token for it that works at once, lists both, revokes the token and deletes the site", async () => {
    const made = await admin(server, "POST", "/admin/v1/sites", SHOP);
    expect(made).toMatchObject({ status: 201, body: { ...SHOP, source: "api" } });
    const sites = await admin(server, "GET", "/admin/v1/sites");
    expect(sites.body.sites).toEqual(
      expect.arrayContaining([{ ...SITE_A, source: "file" }, expect.objectContaining({ ...SHOP, source: "api" })]),
    );
    const request = { name: "feed", sites: [SHOP], scopes: ["read", "import"] };
    const token = await admin(server, "POST", "/admin/v1/tokens", request);
    expect(token).toMatchObject({ status: 201, body: { ...request, source: "api" } });
    const secret = token.body.token as string;
    const id = token.body.id as string;
    const imported = await server.request("POST", "/external/product/v1/bulk", {
      token: secret,
      json: { products: [product("n-1")] },
    });
    expect(imported.status).toBe(200);
    const listed = await admin(server, "GET", "/admin/v1/tokens");
    const text = JSON.stringify(listed.body);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(hash("sha256", secret, "hex"));
    expect(listed.body.tokens).toEqual(
      expect.arrayContaining([
        { id: "file:0", name: "tokens[0]", source: "file", sites: "*", scopes: ["read", "import", "delete"] },
        expect.objectContaining({ id, name: "feed", source: "api" }),
      ]),
    );
    expect(await admin(server, "DELETE", `/admin/v1/sites/shopify/${SHOP.siteId}`)).toMatchObject({
      status: 409,
      body: { code: "CONFLICT" },
    });
    expect(await admin(server, "DELETE", `/admin/v1/tokens/${id}`)).toMatchObject({
      status: 200,
      body: { token: { id } },
    });
    const refused = await server.request("GET", "/external/product/v1/n-1", { token: secret });
    expect(refused.status).toBe(401);
    expect(await admin(server, "DELETE", `/admin/v1/tokens/${id}`)).toMatchObject({
      status: 404,
      body: { code: "TOKEN_NOT_FOUND" },
    });
    const deleted = await admin(server, "DELETE", `/admin/v1/sites/shopify/${SHOP.siteId}?deleteProducts=true`);
    expect(deleted).toMatchObject({ status: 200, body: { deleted: 1 } });
    const gone = await server.request("GET", `/external/product/v1/n-1?siteId=${SHOP.siteId}&siteType=shopify`, {
      token: ROOT,
    });
    expect(await gone.json()).toMatchObject({ code: "SITE_NOT_FOUND" });
    expect(server.errors).toEqual([]);
  });

  it("writes one audit line per admin action, with the acting token's name", async () => {
    const before = server.audit.length;
    await admin(server, "POST", "/admin/v1/sites", { siteId: "audited", siteType: "shopify" });
    await admin(server, "GET", "/admin/v1/tokens");
    expect(server.audit.slice(before)).toEqual([
      expect.objectContaining({
        action: "createSite",
        status: 201,
        tokenName: "root",
        tokenId: "file:6",
        site: { siteId: "audited", siteType: "shopify" },
      }),
      expect.objectContaining({ action: "listTokens", status: 200, tokenName: "root" }),
    ]);
    // The product routes write none.
    await server.request("GET", "/external/product/v1?siteId=shop-a&siteType=shopify", { token: ROOT });
    expect(server.audit.length).toBe(before + 2);
  });

  it("answers 403 FORBIDDEN naming the admin scope to a token without it, on every admin route, and audits it", async () => {
    const before = server.audit.length;
    const routes = [
      ["GET", "/admin/v1/sites"],
      ["POST", "/admin/v1/sites"],
      ["DELETE", "/admin/v1/sites/shopify/shop-a"],
      ["GET", "/admin/v1/tokens"],
      ["POST", "/admin/v1/tokens"],
      ["DELETE", "/admin/v1/tokens/file:0"],
    ] as const;
    for (const [method, path] of routes) {
      const answer = await admin(server, method, path, method === "POST" ? SHOP : undefined, TOKENS.admin);
      expect(answer, `${method} ${path}`).toMatchObject({
        status: 403,
        body: { code: "FORBIDDEN", errors: [{ scope: "admin" }] },
      });
      expect(JSON.stringify(answer.body)).toContain("admin scope");
    }
    expect(server.audit.slice(before).map((entry) => [entry.status, entry.tokenName])).toEqual(
      routes.map(() => [403, "tokens[0]"]),
    );
    expect((await server.request("GET", "/admin/v1/sites")).status).toBe(401);
    expect(server.registry.listSites().some((site) => site.siteId === SHOP.siteId)).toBe(false);
  });

  it("refuses with 409: a site that exists, the file's sites and tokens, a token revoking itself", async () => {
    expect(await admin(server, "POST", "/admin/v1/sites", SITE_A)).toMatchObject({ status: 409 });
    expect(await admin(server, "DELETE", "/admin/v1/sites/shopify/shop-a?deleteProducts=true")).toMatchObject({
      status: 409,
      body: { code: "CONFLICT" },
    });
    expect(await admin(server, "DELETE", "/admin/v1/tokens/file:0")).toMatchObject({ status: 409 });
    const made = await admin(server, "POST", "/admin/v1/tokens", { name: "ops", sites: "*", scopes: ["admin"] });
    const self = await admin(
      server,
      "DELETE",
      `/admin/v1/tokens/${made.body.id}`,
      undefined,
      made.body.token as string,
    );
    expect(self).toMatchObject({ status: 409, body: { code: "CONFLICT" } });
    expect(String(self.body.detail)).toContain("cannot revoke itself");
    // Rotation: another admin token revokes it.
    expect(await admin(server, "DELETE", `/admin/v1/tokens/${made.body.id}`)).toMatchObject({ status: 200 });
  });

  it("refuses site names that are not well-formed Unicode, in a body or a path, and bad bodies", async () => {
    const lone = await server.request("POST", "/admin/v1/sites", {
      token: ROOT,
      headers: { "content-type": "application/json" },
      body: '{"siteId":"\\ud800","siteType":"shopify"}',
    });
    expect(lone.status).toBe(400);
    expect(await lone.json()).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ pointer: "/siteId" }] });
    const path = await admin(server, "DELETE", "/admin/v1/sites/shopify/%ED%A0%80");
    expect(path).toMatchObject({ status: 400, body: { code: "VALIDATION_FAILED", errors: [{ parameter: "siteId" }] } });
    // The admin API's resources are 404 when not there, whatever notFoundStatus keeps for the spec's endpoints.
    expect(await admin(server, "DELETE", "/admin/v1/sites/shopify/none")).toMatchObject({
      status: 404,
      body: { code: "SITE_NOT_FOUND" },
    });
    expect(await admin(server, "POST", "/admin/v1/tokens", { name: "x", sites: "*" })).toMatchObject({
      status: 400,
      body: { errors: [{ pointer: "/scopes" }] },
    });
    expect(await admin(server, "DELETE", "/admin/v1/sites/shopify/x?deleteProducts=yes")).toMatchObject({
      status: 400,
      body: { errors: [{ parameter: "deleteProducts" }] },
    });
    const text = await server.request("POST", "/admin/v1/sites", { token: ROOT, body: "siteId=a" });
    expect(text.status).toBe(415);
  });

  it("refuses an expired token with 401", async () => {
    // Long enough for the token's first request on a loaded machine.
    const expiresAt = new Date(Date.now() + 1_500).toISOString();
    const made = await admin(server, "POST", "/admin/v1/tokens", {
      name: "brief",
      sites: "*",
      scopes: ["read"],
      expiresAt,
    });
    const token = made.body.token as string;
    const list = "/external/product/v1?siteId=shop-a&siteType=shopify";
    expect((await server.request("GET", list, { token })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(expiresAt) - Date.now()) + 50));
    expect((await server.request("GET", list, { token })).status).toBe(401);
  });

  it("finds one of ten thousand tokens as fast as one of the file's", async () => {
    for (let i = 0; i < 10_000; i++) {
      const record = {
        id: `bulk${i}`,
        name: `t${i}`,
        sites: "*",
        scopes: ["read"],
        createdAt: new Date(0).toISOString(),
      };
      const value = JSON.stringify({ ...record, sha256: hash("sha256", `bulk-secret-${i}`, "hex") });
      // Written to the store directly, as another server would.
      await server.store.writeTenant({ key: `token:bulk${i}`, value, when: "absent" });
    }
    await server.registry.refresh();
    const list = "/external/product/v1?siteId=shop-a&siteType=shopify";
    const timed = async (token: string) => {
      const started = performance.now();
      for (let i = 0; i < 50; i++) expect((await server.request("GET", list, { token })).status).toBe(200);
      return performance.now() - started;
    };
    await timed(ROOT);
    const [file, api] = [await timed(ROOT), await timed("bulk-secret-7777")];
    expect(api).toBeLessThan(file * 3 + 50);
    expect((await admin(server, "GET", "/admin/v1/tokens")).body.tokens).toHaveLength(10_000 + 10 + 1); // the file's, and the expired one;
  });
});

describe("the document's admin examples", () => {
  it("are answered as the document declares: the site made, then a token for it", async () => {
    const server = await startAdminServer(createMemoryStore(), 50);
    try {
      type Op = { requestBody: { content: Record<string, { example: unknown }> } };
      const example = (path: string) =>
        (doc.paths[path]?.post as unknown as Op | undefined)?.requestBody.content["application/json"]?.example;
      expect((await admin(server, "POST", "/admin/v1/sites", example("/admin/v1/sites"))).status).toBe(201);
      const token = await admin(server, "POST", "/admin/v1/tokens", example("/admin/v1/tokens"));
      expect(token.status).toBe(201);
      expect((await admin(server, "DELETE", `/admin/v1/tokens/${token.body.id}`)).status).toBe(200);
      expect((await admin(server, "DELETE", "/admin/v1/sites/shopify/shop-2")).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe("two servers over one store", () => {
  let one: AdminServer;
  let two: AdminServer;
  beforeAll(async () => {
    const store = createMemoryStore();
    [one, two] = [await startAdminServer(store), await startAdminServer(store)];
  });
  afterAll(async () => {
    await one.close();
    await two.close();
  });

  it("a site made through one is usable through the other within a second", async () => {
    const site = { siteId: "shared", siteType: "shopify" };
    expect((await admin(one, "POST", "/admin/v1/sites", site)).status).toBe(201);
    const path = `/external/product/v1/bulk?siteId=shared&siteType=shopify`;
    const started = Date.now();
    const usable = await within(1_000, async () => {
      const res = await two.request("POST", path, { token: ROOT, json: { products: [product("s-1")] } });
      await res.arrayBuffer();
      return res.status === 200;
    });
    expect(usable, `after ${Date.now() - started} ms`).toBe(true);
  });

  it("a token revoked through one is refused by the other within a second", async () => {
    const made = await admin(one, "POST", "/admin/v1/tokens", { name: "moving", sites: "*", scopes: ["read"] });
    const token = made.body.token as string;
    const list = "/external/product/v1?siteId=shop-a&siteType=shopify";
    expect(await within(1_000, async () => (await two.request("GET", list, { token })).status === 200)).toBe(true);
    await admin(one, "DELETE", `/admin/v1/tokens/${made.body.id}`);
    expect((await one.request("GET", list, { token })).status).toBe(401);
    expect(await within(1_000, async () => (await two.request("GET", list, { token })).status === 401)).toBe(true);
  });

  it("the same site made through both at once: one 201, one 409, one site", async () => {
    const site = { siteId: "raced", siteType: "shopify" };
    const answers = await Promise.all([
      admin(one, "POST", "/admin/v1/sites", site),
      admin(two, "POST", "/admin/v1/sites", site),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
    await one.registry.refresh();
    expect(one.registry.listSites().filter((listed) => listed.siteId === "raced")).toHaveLength(1);
  });
});

describe("site names from anywhere", () => {
  let server: AdminServer;
  beforeAll(async () => {
    server = await startAdminServer(createMemoryStore(), 50);
  });
  afterAll(() => server.close());
  const made = new Set<string>(SITES.map(siteKey));
  const name = fc.oneof(
    fc.string({ unit: "binary", maxLength: 8 }),
    fc.constantFrom("shop-a", "shopify", " ", "", "\u0000", "\ud800", "x".repeat(257)),
  );
  const body = fc.oneof(
    fc.record({ siteId: name, siteType: name }),
    fc.record({ siteId: name, siteType: name, extra: fc.jsonValue() }),
    fc.jsonValue(),
  );

  test.prop([body], { numRuns: 60 })(
    "POST /admin/v1/sites: 201 for a new valid site, 409 for a known one, 400 otherwise; never a 5xx",
    async (given) => {
      const res = await server.request("POST", "/admin/v1/sites", { token: ROOT, json: given });
      const answer = (await res.json()) as { code?: string };
      const valid = v.is(SiteSchema, given);
      const key = valid ? siteKey(given) : "";
      const expected = !valid ? 400 : made.has(key) ? 409 : 201;
      expect([res.status, answer.code], JSON.stringify(given)).toEqual([
        expected,
        expected === 201 ? undefined : expected === 409 ? "CONFLICT" : "VALIDATION_FAILED",
      ]);
      if (expected === 201) made.add(key);
      expect(server.registry.listSites()).toHaveLength(made.size);
    },
  );
});
