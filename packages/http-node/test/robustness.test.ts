import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { type CatalogStore, isCatalogError, type Site, siteKey, toProductView } from "@catalog-kit/catalog-core";
import { hasCompleteResponse, openRaw, parseRawResponse } from "@catalog-kit/test-support/http";
import { wrapStaged } from "@catalog-kit/test-support/staged";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
// Most ids and skus a request names come from these pools; any other id the store is given is
// recorded by `recordingStore`, so a snapshot sees every write.
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

type Stored = Readonly<Record<string, unknown>>;

// The model: what the catalog must hold after replaying, on plain maps, every request that got a 200.
const model = new Map<string, Map<string, Stored>>();
// Every id and sku the store was ever asked to write, by site.
const written = new Map<string, Set<string>>();

function recordingStore(): CatalogStore {
  const inner = createMemoryStore();
  return wrapStaged(inner, (staged, site, options) => ({
    add(products, ...rest) {
      if (!options.dryRun) {
        const keys = written.get(siteKey(site)) ?? new Set();
        for (const each of products) keys.add(each.id).add(each.sku);
        written.set(siteKey(site), keys);
      }
      return staged.add(products, ...rest);
    },
  }));
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ store: recordingStore(), maxBodyBytes: 64 * 1024, maxProducts: 50 });
  for (const site of [SITE_A, SITE_B]) {
    const products = [product("seed-1", "SEED-1"), product("seed-2", "SEED-2", { price: 1 })];
    const body = JSON.stringify({ ...site, products });
    const headers = { "content-type": "application/json" };
    const response = await server.request("POST", `${BASE}/bulk`, { token: TOKENS.admin, headers, body });
    expect(response.status).toBe(200);
    replay({ method: "POST", target: `${BASE}/bulk`, token: TOKENS.admin, contentType: undefined, body }, "");
  }
});
afterAll(() => server.close());

/** The keys a snapshot looks up in a site: the pools, and whatever the model or the store has seen. */
function keysOf(site: Site): string[] {
  const keys = new Set([...IDS, ...SKUS, ...(written.get(siteKey(site)) ?? [])]);
  for (const [id, stored] of model.get(siteKey(site)) ?? []) keys.add(id).add(stored.sku as string);
  return [...keys].sort();
}

async function storedState(): Promise<unknown[]> {
  const entries: unknown[] = [];
  for (const site of SITES) {
    for (const key of keysOf(site)) {
      for (const by of ["id", "sku"] as const) {
        try {
          entries.push(await server.catalog.getProduct(site, key, { by }));
        } catch (error) {
          if (!isCatalogError(error, "PRODUCT_NOT_FOUND")) throw error;
          entries.push(null);
        }
      }
    }
  }
  return entries;
}

function modelState(): unknown[] {
  const entries: unknown[] = [];
  for (const site of SITES) {
    for (const key of keysOf(site)) {
      entries.push(findInModel(site, key, "id") ?? null, findInModel(site, key, "sku") ?? null);
    }
  }
  return entries;
}

async function snapshot(): Promise<string> {
  return JSON.stringify(await storedState());
}

function findInModel(site: Site, key: string, by: string | null): Stored | undefined {
  const products = model.get(siteKey(site));
  if (products === undefined) return undefined;
  const byId = by === "sku" ? undefined : products.get(key);
  if (byId !== undefined || by === "id") return byId;
  for (const stored of products.values()) if (stored.sku === key) return stored;
  return undefined;
}

// An independent reading of the contract's CSV rules, enough for documents the server accepted.
function readCsv(text: string): Stored[] {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = "";
  let quoted = false;
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  for (let i = 0; i < source.length; i++) {
    const c = source[i] as string;
    if (quoted) {
      if (c !== '"') cell += c;
      else if (source[i + 1] === '"') cell += source[++i];
      else quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      record.push(cell);
      cell = "";
    } else if (c === "\n" || (c === "\r" && source[i + 1] === "\n")) {
      if (c === "\r") i++;
      records.push([...record, cell]);
      record = [];
      cell = "";
    } else cell += c;
  }
  if (cell !== "" || record.length > 0) records.push([...record, cell]);
  const [header = [], ...rows] = records.filter((cells) => cells.length > 1 || (cells[0] as string).trim() !== "");
  const names = header.map((name) => name.trim());
  return rows.map((cells) => {
    const stored: Record<string, unknown> = {};
    names.forEach((name, c) => {
      const value = cells[c] as string;
      if (value === "") return;
      if (name.startsWith("price")) stored[name] = Number(value);
      else if (name === "available") stored[name] = value.toLowerCase() === "true";
      else if (name === "images") stored[name] = value.startsWith("[") ? JSON.parse(value) : [value];
      else stored[name] = value;
    });
    return stored;
  });
}

const DEFAULT_SITE = new Map<string | undefined, Site>([
  [TOKENS.a, SITE_A],
  [TOKENS.b, SITE_B],
  [TOKENS.abDefaultB, SITE_B],
  [TOKENS.hashed, SITE_A],
]);

/** The site of a request that succeeded: its query's, else its body's, else its token's default site. */
function siteOf(request: Exchange, url: URL, body?: Record<string, unknown>): Site {
  const siteId = url.searchParams.get("siteId") ?? (body?.siteId as string | undefined);
  const siteType = url.searchParams.get("siteType") ?? (body?.siteType as string | undefined);
  if (siteId === undefined && siteType === undefined) return DEFAULT_SITE.get(request.token) as Site;
  return { siteId: siteId as string, siteType: siteType as string };
}

/** The site, key and field of a lookup or delete; `undefined` for any other request. */
function lookupOf(request: Exchange): { site: Site; key: string; by: string | null } | undefined {
  const url = new URL(server.url + request.target);
  if (!url.pathname.startsWith(`${BASE}/`) || (request.method !== "GET" && request.method !== "DELETE")) return;
  const raw = url.pathname.slice(BASE.length + 1);
  return {
    site: siteOf(request, url),
    key: raw.includes("%") ? decodeURIComponent(raw) : raw,
    by: url.searchParams.get("by"),
  };
}

/**
 * Applies to the model what a request that got a 200 must have done, and checks the answer
 * against the model: the product a lookup showed, the one a delete removed.
 */
function replay(request: Exchange, answer: string): void {
  const url = new URL(server.url + request.target);
  if (request.method === "POST") {
    if (url.searchParams.get("dryRun") === "true") return;
    const text = typeof request.body === "string" ? request.body : new TextDecoder().decode(request.body);
    const body = JSON.parse(text) as Record<string, unknown>;
    const site = siteOf(request, url, body);
    const products =
      url.pathname === BASE
        ? [body.product as Stored]
        : url.pathname === `${BASE}/bulk`
          ? (body.products as Stored[])
          : readCsv(body.csvContent as string);
    const kept = model.get(siteKey(site)) ?? new Map<string, Stored>();
    for (const each of products) kept.set(each.id as string, each);
    model.set(siteKey(site), kept);
    return;
  }
  const lookup = lookupOf(request);
  if (lookup === undefined) return;
  const found = findInModel(lookup.site, lookup.key, lookup.by);
  expect(found, `${request.method} ${request.target}: the model has no such product`).toBeDefined();
  const { id, sku } = found as Stored;
  if (request.method === "GET") expect(JSON.parse(answer)).toEqual(toProductView(found as never));
  else {
    expect(JSON.parse(answer)).toEqual({ message: `Product "${id}" (sku "${sku}") deleted` });
    model.get(siteKey(lookup.site))?.delete(id as string);
  }
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
// Imports meant to pass, so that the model sees many accepted writes: the body fits the endpoint,
// the site fits the token, optional fields come and go (replace drops them), and CSV quoting is
// exercised. Skus still collide often, so conflicts and their all-or-nothing rule are reached too.
const fullProduct = fc.record(
  {
    id: fc.constantFrom(...IDS),
    sku: fc.constantFrom(...SKUS),
    title: fc.constantFrom("Title", 'A "quoted", title', "  spaced  "),
    description: fc.constantFrom("", "Desc", 'Two\nlines, "quoted"'),
    price: fc.constantFrom(0, 1.5, 99.99),
    available: fc.boolean(),
    images: fc.array(fc.constantFrom("https://i/1", "https://i/2,b"), { maxLength: 2 }),
    featured_image: fc.constant("https://img/1.jpg"),
    url: fc.constant("https://shop/1"),
  },
  { requiredKeys: ["id", "sku", "title", "available", "featured_image", "url"] },
);
const CSV_FIELDS = ["id", "sku", "title", "description", "price", "available", "images", "featured_image", "url"];
const toCsv = (products: readonly Record<string, unknown>[]) =>
  [
    CSV_FIELDS.join(","),
    ...products.map((p) =>
      CSV_FIELDS.map((field) => {
        const value = p[field];
        return value === undefined ? "" : quote(Array.isArray(value) ? JSON.stringify(value) : String(value));
      }).join(","),
    ),
  ].join("\n");
const writeExchange: fc.Arbitrary<Exchange> = fc
  .tuple(
    fc.constantFrom<[string, Site | undefined]>(
      [TOKENS.admin, SITE_A],
      [TOKENS.admin, SITE_B],
      [TOKENS.ab, SITE_B],
      [TOKENS.a, undefined],
      [TOKENS.b, undefined],
      [TOKENS.abDefaultB, undefined],
      [TOKENS.hashed, SITE_A],
    ),
    fc.oneof(
      fullProduct.map((p): [string, object] => [BASE, { product: p }]),
      fc.array(fullProduct, { maxLength: 3 }).map((products): [string, object] => [`${BASE}/bulk`, { products }]),
      fc
        .array(fullProduct, { maxLength: 3 })
        .map((products): [string, object] => [`${BASE}/bulk/csv`, { csvContent: toCsv(products) }]),
    ),
    fc.constantFrom("", "", "", "?dryRun=true", "?dryRun=false"),
  )
  .map(([[token, site], [path, payload], dryRun]) => ({
    method: "POST",
    target: path + dryRun,
    token,
    contentType: "application/json",
    body: JSON.stringify({ ...site, ...payload }),
  }));

const exchange: fc.Arbitrary<Exchange> = fc.oneof(
  { weight: 4, arbitrary: writeExchange },
  { weight: 6, arbitrary: importExchange },
  { weight: 3, arbitrary: lookupExchange },
  { weight: 2, arbitrary: chaosExchange },
);

describe("any request", () => {
  it("never gets a 5xx, always gets a well-formed answer, a 4xx never changes the catalog, and the catalog is always what the 200s made it", async () => {
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(exchange, async (request) => {
        const { method: verb, target, token, contentType, body: payload } = request;
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
        if (response.status === 200) replay(request, answer);
        else if (outcome === "PRODUCT_NOT_FOUND") {
          const lookup = lookupOf(request);
          if (lookup !== undefined) expect(findInModel(lookup.site, lookup.key, lookup.by)).toBeUndefined();
        }
        expect(await storedState()).toEqual(modelState());
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
