import { isCatalogError, type Site } from "@catalog-kit/catalog-core";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasCompleteResponse, openRaw, parseRawResponse } from "./support/raw-http.ts";
import {
  product,
  SITE_A,
  SITE_A_OTHER_TYPE,
  SITE_B,
  SITES,
  startTestServer,
  type TestServer,
  TOKENS,
} from "./support/test-server.ts";

const BASE = "/external/product/v1";
// Every id and sku a request can name comes from these pools, so a snapshot of them sees every write.
const IDS = ["p1", "p2", "p3", "bulk", "seed-1", "seed-2", "a/b"];
const SKUS = ["S1", "S2", "S3", "SEED-1", "SEED-2", "bulk"];
const FIELDS = [
  "id",
  "sku",
  "title",
  "description",
  "price",
  "price_min",
  "price_max",
  "available",
  "images",
  "featured_image",
  "url",
];
const UNKNOWN_SITE: Site = { siteId: "nope", siteType: "shopify" };

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ maxBodyBytes: 64 * 1024, maxProducts: 50 });
  for (const site of [SITE_A, SITE_B]) {
    const products = [product("seed-1", "SEED-1"), product("seed-2", "SEED-2", { price: 1 })];
    const response = await server.request("POST", `${BASE}/bulk`, { token: TOKENS.admin, json: { ...site, products } });
    expect(response.status).toBe(200);
  }
});
afterAll(() => server.close());

async function snapshot(): Promise<string> {
  const entries: unknown[] = [];
  for (const site of SITES) {
    for (const id of IDS) {
      try {
        entries.push(await server.catalog.getProduct(site, id, { by: "id" }));
      } catch (error) {
        if (!isCatalogError(error, "PRODUCT_NOT_FOUND")) throw error;
        entries.push(null);
      }
    }
  }
  return JSON.stringify(entries);
}

const anyJson = fc.jsonValue({ maxDepth: 2 });
const text = fc.oneof(fc.constantFrom("T", "", " ", "https://x", "x".repeat(300)), fc.string({ maxLength: 12 }));
const validProduct = fc.record({
  id: fc.constantFrom(...IDS),
  sku: fc.constantFrom(...SKUS),
  title: fc.constantFrom("Title", "Other title"),
  available: fc.boolean(),
  featured_image: fc.constant("https://img/1.jpg"),
  url: fc.constant("https://shop/1"),
});
const looseProduct = fc.oneof(
  validProduct,
  fc.record(
    {
      id: fc.oneof(fc.constantFrom(...IDS), anyJson),
      sku: fc.oneof(fc.constantFrom(...SKUS), anyJson),
      title: fc.oneof(text, anyJson),
      price: fc.oneof(fc.double(), anyJson),
      price_min: fc.double(),
      price_max: fc.double(),
      available: fc.oneof(fc.boolean(), anyJson),
      images: fc.oneof(fc.array(text, { maxLength: 3 }), anyJson),
      featured_image: text,
      url: text,
      colour: text,
    },
    { requiredKeys: [] },
  ),
  anyJson,
);

const cell = fc.oneof(
  fc.constantFrom(...IDS, ...SKUS, "true", "FALSE", "1.5", "-2", "", '["https://a","https://b"]', "https://u"),
  fc.string({ maxLength: 6 }),
);
const quote = (value: string) =>
  /[",\n\r]/.test(value) || value.startsWith(" ") ? `"${value.replaceAll('"', '""')}"` : value;
const csvText = fc.oneof(
  fc
    .tuple(
      fc.shuffledSubarray([...FIELDS, "colour"], { minLength: 0 }),
      fc.array(fc.array(cell, { maxLength: 12 }), { maxLength: 5 }),
      fc.constantFrom("\n", "\r\n"),
      fc.boolean(),
    )
    .map(
      ([header, rows, newline, bom]) =>
        (bom ? "\uFEFF" : "") + [header, ...rows].map((row) => row.map(quote).join(",")).join(newline),
    ),
  fc
    .tuple(fc.array(validProduct, { maxLength: 4 }), fc.constantFrom("\n", "\r\n"))
    .map(([products, newline]) =>
      [
        "id,sku,title,available,featured_image,url",
        ...products.map((p) =>
          [p.id, p.sku, p.title, String(p.available), p.featured_image, p.url].map(quote).join(","),
        ),
      ].join(newline),
    ),
  fc.string({ maxLength: 80 }),
);

const siteFields = fc.oneof(
  fc.constant({}),
  fc.constantFrom(SITE_A, SITE_B, SITE_A_OTHER_TYPE, UNKNOWN_SITE),
  fc.record({ siteId: fc.oneof(text, anyJson), siteType: fc.oneof(text, anyJson) }, { requiredKeys: [] }),
);
const envelope = fc
  .tuple(
    siteFields,
    fc.oneof(
      fc.record({
        products: fc.oneof(
          fc.array(looseProduct, { maxLength: 6 }),
          fc.array(validProduct, { maxLength: 60 }),
          anyJson,
        ),
      }),
      fc.record({ product: looseProduct }),
      fc.record({ csvContent: fc.oneof(csvText, anyJson) }),
      fc.dictionary(fc.string({ maxLength: 8 }), anyJson, { maxKeys: 3 }),
    ),
  )
  .map(([site, rest]) => ({ ...site, ...rest }));
const validEnvelope = fc
  .tuple(
    fc.constantFrom({}, SITE_A, SITE_B),
    fc.oneof(
      fc.array(validProduct, { maxLength: 5 }).map((products) => ({ products })),
      validProduct.map((p) => ({ product: p })),
      csvText.map((csvContent) => ({ csvContent })),
    ),
  )
  .map(([where, rest]) => ({ ...where, ...rest }));
const body = fc.oneof(
  { weight: 4, arbitrary: validEnvelope.map((value) => JSON.stringify(value)) },
  envelope.map((value) => JSON.stringify(value)),
  fc.array(validProduct, { minLength: 51, maxLength: 55 }).map((products) => JSON.stringify({ ...SITE_A, products })),
  fc.constant(JSON.stringify({ ...SITE_A, csvContent: "x".repeat(70_000) })),
  fc.tuple(envelope, fc.nat()).map(([value, cut]) => JSON.stringify(value).slice(0, cut)),
  anyJson.map((value) => JSON.stringify(value)),
  fc.string({ maxLength: 40 }),
  fc.uint8Array({ maxLength: 40 }),
);

const path = fc.oneof(
  fc.constantFrom(BASE, `${BASE}/bulk`, `${BASE}/bulk/csv`, "/healthz", "/openapi.json", "/", `${BASE}/`),
  fc.constantFrom(...IDS, ...SKUS).map((id) => `${BASE}/${encodeURIComponent(id)}`),
  fc.string({ maxLength: 10 }).map((segment) => `${BASE}/${segment}`),
  fc.webPath(),
);
const queryValue = fc.oneof(
  fc.constantFrom("shop-a", "shop-b", "shopify", "woocommerce", "id", "sku", "true", "false", "", "%", "%zz", "a+b"),
  fc.string({ maxLength: 6 }).map(encodeURIComponent),
);
const query = fc
  .array(fc.tuple(fc.constantFrom("siteId", "siteType", "by", "dryRun", "x", "site%49d", ""), queryValue), {
    maxLength: 4,
  })
  .map((pairs) => (pairs.length === 0 ? "" : `?${pairs.map(([name, value]) => `${name}=${value}`).join("&")}`));
const headerText = fc.stringMatching(/^[\x21-\x7e]{0,24}$/);
const anyToken = fc.oneof(fc.constantFrom(...Object.values(TOKENS)), headerText, fc.constant(undefined));
const goodToken = fc.oneof(
  { weight: 9, arbitrary: fc.constantFrom(...Object.values(TOKENS)) },
  { weight: 1, arbitrary: anyToken },
);
const anyContentType = fc.oneof(
  fc.constantFrom(
    "application/json",
    "text/plain",
    "application/x-www-form-urlencoded",
    "application/json; charset=utf-16",
  ),
  headerText,
  fc.constant(undefined),
);
const jsonType = fc.oneof(
  { weight: 9, arbitrary: fc.constantFrom("application/json", "application/json; charset=utf-8") },
  { weight: 1, arbitrary: anyContentType },
);
const anyMethod = fc.constantFrom("GET", "POST", "DELETE", "PUT", "PATCH", "HEAD", "OPTIONS");

interface Exchange {
  readonly method: string;
  readonly target: string;
  readonly token: string | undefined;
  readonly contentType: string | undefined;
  readonly body: string | Uint8Array;
}

const importExchange = fc.record({
  method: fc.constant("POST"),
  target: fc
    .tuple(
      fc.constantFrom(BASE, `${BASE}/bulk`, `${BASE}/bulk/csv`),
      fc.constantFrom("", "", "", "", "", "?dryRun=true", "?dryRun=false", "?dryRun=1", "?x=1"),
    )
    .map(([p, q]) => p + q),
  token: goodToken,
  contentType: jsonType,
  body,
});
const site = fc.constantFrom(SITE_A, SITE_B, SITE_A, SITE_B, SITE_A_OTHER_TYPE, UNKNOWN_SITE);
const lookupExchange = fc.record({
  method: fc.constantFrom("GET", "DELETE", "HEAD"),
  target: fc
    .tuple(
      fc.constantFrom(...IDS, ...SKUS, "missing"),
      fc.option(site, { freq: 8 }),
      fc.constantFrom("", "", "&by=id", "&by=sku", "&by=x"),
    )
    .map(([key, where, by]) => {
      const q =
        where === null
          ? ""
          : `siteId=${encodeURIComponent(where.siteId)}&siteType=${encodeURIComponent(where.siteType)}`;
      return `${BASE}/${encodeURIComponent(key)}?${q}${by}`;
    }),
  token: goodToken,
  contentType: fc.constant(undefined),
  body: fc.constant(""),
});
const chaosExchange = fc.record({
  method: anyMethod,
  target: fc.tuple(path, query).map(([p, q]) => p + q),
  token: anyToken,
  contentType: anyContentType,
  body,
});
const exchange: fc.Arbitrary<Exchange> = fc.oneof(
  { weight: 6, arbitrary: importExchange },
  { weight: 3, arbitrary: lookupExchange },
  { weight: 2, arbitrary: chaosExchange },
);

describe("any request", () => {
  it("never gets a 5xx, always gets a well-formed answer, and a 4xx never changes the catalog", async () => {
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(exchange, async ({ method: verb, target, token, contentType, body: payload }) => {
        const before = await snapshot();
        const headers: Record<string, string> = {};
        if (token !== undefined) headers["x-service-access-token"] = token;
        if (contentType !== undefined) headers["content-type"] = contentType;
        const hasBody = verb !== "GET" && verb !== "HEAD";
        const response = await fetch(server.url + target, {
          method: verb,
          headers,
          ...(hasBody ? { body: payload } : {}),
        });
        const answer = await response.text();
        expect(response.status, answer).toBeLessThan(500);
        if (verb !== "HEAD") expect(Number(response.headers.get("content-length"))).toBe(Buffer.byteLength(answer));
        let outcome = String(response.status);
        if (response.status >= 400) {
          expect(response.headers.get("content-type")).toBe("application/problem+json");
          if (verb !== "HEAD") {
            const problem = JSON.parse(answer) as { status: number; code: string };
            expect(problem).toMatchObject({ status: response.status, code: expect.any(String) });
            outcome = problem.code;
          }
          expect(await snapshot()).toBe(before);
        }
        seen.set(outcome, (seen.get(outcome) ?? 0) + 1);
      }),
      { numRuns: 400 },
    );
    // The generators must reach deep into the handler, not stop at the router.
    for (const outcome of [
      "200",
      "VALIDATION_FAILED",
      "INVALID_JSON",
      "UNAUTHORIZED",
      "SITE_NOT_FOUND",
      "PRODUCT_NOT_FOUND",
      "NOT_FOUND",
    ]) {
      expect(seen.get(outcome), outcome).toBeGreaterThan(3);
    }
    expect(server.errors).toEqual([]);
    expect((await server.request("GET", "/healthz")).status).toBe(200);
  });

  it("sent raw with any request target and header bytes, never gets a 5xx", async () => {
    const target = fc.oneof(
      fc.stringMatching(/^\/[\x21-\x7e]{0,40}$/),
      fc.stringMatching(/^[\x21-\x7e]{0,20}$/).map((rest) => `${BASE}/${rest}`),
      fc.stringMatching(/^[\x21-\x7e]{0,20}$/).map((rest) => `${BASE}/x?${rest}`),
    );
    await fc.assert(
      fc.asyncProperty(
        anyMethod,
        target,
        fc.stringMatching(/^[\x20-\x7e]{0,30}$/),
        async (verb, requestTarget, header) => {
          const before = await snapshot();
          const raw = await openRaw(server.url);
          try {
            await raw.write(
              `${verb} ${requestTarget} HTTP/1.1\r\nHost: x\r\nX-Service-Access-Token: ${TOKENS.admin}\r\nX-Extra: ${header}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
            );
            await raw.closed;
            const text = raw.received();
            if (text !== "") {
              const status = parseRawResponse(text.includes("\r\n\r\n") ? text : `${text}\r\n\r\n`).status;
              expect(status, text).toBeLessThan(500);
              if (status >= 400) expect(await snapshot()).toBe(before);
            }
            if (hasCompleteResponse(text)) expect(text).toMatch(/^HTTP\/1\.1 \d{3}/);
          } finally {
            raw.destroy();
          }
        },
      ),
      { numRuns: 150 },
    );
    expect(server.errors).toEqual([]);
  });
});
