// Per-token rate limits over HTTP, on a fake clock: RateLimit-Policy and RateLimit on every answer
// to an authenticated request (draft-ietf-httpapi-ratelimit-headers-11), 429 RATE_LIMITED with
// Retry-After and the quota named, a token's own limits over the default, import bytes, imports
// per site, and nothing at all without limits.
import { createUsageMeter, type RateLimits } from "@catalog-kit/catalog-core";
import { afterEach, describe, expect, it } from "vitest";
import { type AccessToken, createCatalogHandler, type HandlerOptions } from "../src/index.ts";
import {
  BASE_TOKENS,
  product,
  productPath,
  SITE_A,
  SITE_B,
  startTestServer,
  type TestServer,
  TOKENS,
} from "./support/test-server.ts";
import { upload as uploadTo } from "./support/upload.ts";

const BULK = "/external/product/v1/bulk";
const CSV = "/external/product/v1/bulk/csv";
const siteQuery = (site = SITE_A) => `?siteId=${site.siteId}&siteType=${site.siteType}`;
const HEADER = "id,sku,title,available,featured_image,url";
const csvRow = (id: string) => `${id},SKU-${id},Product ${id},true,https://img.example/${id}.jpg,u`;

// 37 s before the end of a minute, so that `t` is 37.
const NOW = 1_000 * 60_000 + 23_000;
const OWN = "token-with-own-limits";

let server: TestServer;
afterEach(async () => {
  await server?.close();
});

function start(rateLimits?: RateLimits, own: RateLimits = { requestsPerMinute: 1 }) {
  const tokens: AccessToken[] = [...BASE_TOKENS, { token: OWN, sites: [SITE_A], rateLimits: own }];
  const usageMeter = createUsageMeter({ now: () => NOW, settleEveryMs: 0 });
  return startTestServer({ tokens, usageMeter, ...(rateLimits === undefined ? {} : { rateLimits }) });
}

const get = (token: string = TOKENS.admin) => server.request("GET", productPath("nope", SITE_A), { token });

describe("rate limit headers", () => {
  it("are absent, and nothing is limited, when no limits are configured", async () => {
    server = await startTestServer();
    for (let i = 0; i < 5; i++) {
      const response = await get();
      expect(response.headers.get("ratelimit")).toBeNull();
      expect(response.headers.get("ratelimit-policy")).toBeNull();
    }
  });

  it("publish the policy and what is left on every answer to an authenticated request, a problem too", async () => {
    server = await start({ requestsPerMinute: 6000, importBytesPerMinute: 2_147_483_648, importsPerSite: 2 });
    const response = await get();
    expect(response.status).toBe(400);
    expect(response.headers.get("ratelimit-policy")).toBe(
      '"requests";q=6000;w=60, "import-bytes";q=2147483648;qu="content-bytes";w=60, "imports";q=2;qu="concurrent-requests"',
    );
    // A GET spends requests only: its RateLimit names no other quota.
    expect(response.headers.get("ratelimit")).toBe('"requests";r=5999;t=37');
    const imported = await server.request("POST", BULK, {
      token: TOKENS.admin,
      json: { ...SITE_A, products: [product("p1")] },
    });
    expect(imported.headers.get("ratelimit")).toMatch(
      /^"requests";r=5998;t=37, "import-bytes";r=\d+;t=37, "imports";r=1$/,
    );
    const found = await server.request("GET", productPath("p1", SITE_A), { token: TOKENS.admin });
    expect(found.status).toBe(200);
    expect(found.headers.get("ratelimit")).toBe('"requests";r=5997;t=37');
    const notModified = await server.request("GET", productPath("p1", SITE_A), {
      token: TOKENS.admin,
      headers: { "if-none-match": found.headers.get("etag") as string },
    });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get("ratelimit")).toMatch(/^"requests";r=5996;t=37/);
    const page = await server.request("GET", `/external/product/v1/products${siteQuery()}`, { token: TOKENS.admin });
    expect(page.headers.get("ratelimit")).toMatch(/^"requests";r=5995;t=37/);
    const exported = await server.request("GET", `/external/product/v1/products${siteQuery()}`, {
      token: TOKENS.admin,
      headers: { accept: "text/csv" },
    });
    expect(exported.headers.get("ratelimit")).toMatch(/^"requests";r=5994;t=37/);
    await exported.text();
  });

  it("are not sent on answers that need no token, nor to a request whose token is refused", async () => {
    server = await start({ requestsPerMinute: 10 });
    expect((await server.request("GET", "/healthz")).headers.get("ratelimit")).toBeNull();
    const refused = await get("not-a-token");
    expect(refused.status).toBe(401);
    expect(refused.headers.get("ratelimit-policy")).toBeNull();
  });
});

describe("the handler's options", () => {
  it("refuse a bad quota, by default or of a token, naming it, when the handler is made", async () => {
    server = await startTestServer();
    const { catalog } = server;
    const make = (options: Partial<HandlerOptions>) => () =>
      createCatalogHandler(catalog, { tokens: BASE_TOKENS, ...options });
    expect(make({ rateLimits: { requestsPerMinute: 0 } })).toThrow(
      new RangeError("rateLimits.requestsPerMinute: Must be at least 1"),
    );
    const tokens = [...BASE_TOKENS, { token: OWN, sites: "*" as const, rateLimits: { importsPerSite: 1.5 } }];
    expect(make({ tokens })).toThrow(new RangeError("tokens[6].rateLimits.importsPerSite: Must be a whole number"));
    expect(make({ rateLimits: { requestsPerMinute: 10 } })).not.toThrow();
  });
});

describe("429 RATE_LIMITED", () => {
  it("refuses a request past the quota with Retry-After, the headers, and the quota named", async () => {
    server = await start({ requestsPerMinute: 3 });
    for (let i = 0; i < 3; i++) expect((await get()).status).toBe(400);
    const refused = await get();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("37");
    expect(refused.headers.get("ratelimit")).toBe('"requests";r=0;t=37');
    expect(refused.headers.get("ratelimit-policy")).toBe('"requests";q=3;w=60');
    expect(await refused.json()).toMatchObject({
      code: "RATE_LIMITED",
      status: 429,
      quota: "requests",
      limit: 3,
      window: 60,
    });
    // Per token: another token's quota is its own.
    expect((await get(TOKENS.a)).status).toBe(400);
  });

  it("applies a token's own limits over the default, kind by kind", async () => {
    server = await start({ requestsPerMinute: 100, importsPerSite: 3 }, { requestsPerMinute: 1 });
    const first = await get(OWN);
    expect(first.headers.get("ratelimit-policy")).toBe('"requests";q=1;w=60, "imports";q=3;qu="concurrent-requests"');
    expect((await get(OWN)).status).toBe(429);
    expect((await get()).status).toBe(400);
    expect((await get()).headers.get("ratelimit")).toBe('"requests";r=98;t=37');
  });

  it("limits a token that has limits of its own when no default is configured, and no other", async () => {
    server = await start(undefined, { requestsPerMinute: 1 });
    expect((await get(OWN)).status).toBe(400);
    expect((await get(OWN)).status).toBe(429);
    const other = await get();
    expect(other.status).toBe(400);
    expect(other.headers.get("ratelimit-policy")).toBeNull();
  });
});

// A request whose body the test writes piece by piece; `answer` resolves with the status, headers and body.
const upload = (path: string, headers: Record<string, string>, token?: string) =>
  uploadTo(server.url + path, headers, token);

describe("import bytes a minute", () => {
  it("takes a declared length whole before reading, refusing what does not fit and what never could", async () => {
    server = await start({ importBytesPerMinute: 1_000 });
    const body = JSON.stringify({ ...SITE_A, products: [product("b1"), product("b2")] });
    expect(body.length).toBeGreaterThan(200);
    expect(body.length).toBeLessThan(500);
    const send = () =>
      server.request("POST", BULK, { token: TOKENS.admin, body, headers: { "content-type": "application/json" } });
    const first = await send();
    expect(first.status).toBe(200);
    expect(first.headers.get("ratelimit")).toBe(`"import-bytes";r=${1_000 - body.length};t=37`);
    const second = await send();
    expect(second.status).toBe(200);
    const third = await send();
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).toBe("37");
    expect(await third.json()).toMatchObject({ code: "RATE_LIMITED", quota: "import-bytes", limit: 1_000, window: 60 });
    const huge = `${HEADER}\n${csvRow("h").repeat(30)}\n`;
    const over = await server.request("POST", CSV + siteQuery(), {
      token: TOKENS.a,
      body: huge,
      headers: { "content-type": "text/csv" },
    });
    expect(over.status).toBe(413);
    expect(await over.json()).toMatchObject({ code: "PAYLOAD_TOO_LARGE", limit: 1_000, received: huge.length });
  });

  it("counts a chunked body as it arrives and cuts it off once it passes the quota", async () => {
    server = await start({ importBytesPerMinute: 1_000 });
    const { req, answer } = upload(CSV + siteQuery(), { "content-type": "text/csv", "transfer-encoding": "chunked" });
    req.write(`${HEADER}\n`);
    for (let i = 0; i < 40; i++) req.write(`${csvRow(`c${i}`)}\n`);
    const cut = await answer;
    req.destroy();
    expect(cut.status).toBe(429);
    expect(cut.body).toMatchObject({ code: "RATE_LIMITED", quota: "import-bytes", limit: 1_000 });
    expect(cut.headers["retry-after"]).toBe("37");
    expect((await get()).status).toBe(400);
  });
});

describe("imports per site", () => {
  it("refuses an import of a site while its quota of imports runs, not one of another site", async () => {
    server = await start({ importsPerSite: 1 });
    const { req, answer } = upload(CSV + siteQuery(), { "content-type": "text/csv", "transfer-encoding": "chunked" });
    req.write(`${HEADER}\n${csvRow("r1")}\n`);
    // The running import holds its place from before its body is read.
    let refused: Response | undefined;
    for (let i = 0; i < 50; i++) {
      refused = await server.request("POST", CSV + siteQuery(), {
        token: TOKENS.admin,
        body: `${HEADER}\n${csvRow("r2")}\n`,
        headers: { "content-type": "text/csv" },
      });
      if (refused.status === 429) break;
    }
    expect(refused?.status).toBe(429);
    expect(refused?.headers.get("retry-after")).toBe("5");
    expect(refused?.headers.get("ratelimit")).toBe('"imports";r=0');
    const problem = await refused?.json();
    expect(problem).toMatchObject({ code: "RATE_LIMITED", quota: "imports", limit: 1 });
    expect(problem).not.toHaveProperty("window");
    const other = await server.request("POST", CSV + siteQuery(SITE_B), {
      token: TOKENS.admin,
      body: `${HEADER}\n${csvRow("r3")}\n`,
      headers: { "content-type": "text/csv" },
    });
    expect(other.status).toBe(200);
    req.end();
    expect((await answer).status).toBe(200);
    const after = await server.request("POST", BULK, {
      token: TOKENS.admin,
      json: { ...SITE_A, products: [product("r4")] },
    });
    expect(after.status).toBe(200);
    expect(after.headers.get("ratelimit")).toBe('"imports";r=0');
  });
});

describe("/openapi.json", () => {
  it("describes the rate limit headers on every answer to a token and the 429 with its problem body", async () => {
    server = await startTestServer();
    const doc = (await (await server.request("GET", "/openapi.json")).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>;
      components: { headers: Record<string, unknown> };
    };
    const get = doc.paths["/external/product/v1/{productId}"]?.get;
    expect(Object.keys(get?.responses["200"]?.headers ?? {})).toEqual(
      expect.arrayContaining(["RateLimit-Policy", "RateLimit"]),
    );
    expect(get?.responses["401"]?.headers).not.toHaveProperty("RateLimit");
    expect(get?.responses["429"]).toMatchObject({
      headers: { "Retry-After": {}, RateLimit: {} },
      content: { "application/problem+json": { example: { code: "RATE_LIMITED", quota: "requests" } } },
    });
    expect(doc.components.headers).toHaveProperty("RateLimitPolicy");
    expect(doc.paths["/healthz"]?.get?.responses["200"]?.headers).not.toHaveProperty("RateLimit");
  });
});
