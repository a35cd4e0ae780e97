import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { CatalogError, type CatalogStore, createCatalog, type Site } from "@catalog-kit/catalog-core";
import { openRaw, type RawConnection, startCli, stopCli } from "@catalog-kit/test-support/http";
import { wrapStaged } from "@catalog-kit/test-support/staged";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { type AccessToken, createCatalogHandler, startServer } from "../src/index.ts";
import {
  HASHED_SHA256,
  product,
  productPath,
  SITE_A,
  SITE_B,
  startTestServer,
  type TestServer,
  TOKENS,
} from "./support/test-server.ts";

const BASE = "/external/product/v1";
const HEADER = "id,sku,title,available,featured_image,url";
const MiB = 1024 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface ProblemBody {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly errors: readonly Record<string, unknown>[];
  readonly errorCount: number;
  readonly limit?: number;
  readonly received?: number;
}

function send(server: TestServer, method: string, path: string, body?: string | Uint8Array): Promise<Response> {
  return server.request(method, path, {
    token: TOKENS.admin,
    ...(body === undefined ? {} : { body, headers: { "content-type": "application/json" } }),
  });
}

// Every own key of Object.prototype, to see that no request or file added one.
const prototypeKeys = () => Reflect.ownKeys(Object.prototype).map(String).sort();

function expectNoPollution(keysBefore: readonly string[]): void {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.hasOwn(Object.prototype, "polluted")).toBe(false);
  expect(prototypeKeys()).toEqual(keysBefore);
  expect(Object.getPrototypeOf({})).toBe(Object.prototype);
}

describe("prototype pollution", () => {
  const POISON = '{"polluted":"yes"}';
  let server: TestServer;
  let keysBefore: string[];
  beforeAll(async () => {
    keysBefore = prototypeKeys();
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it("__proto__, constructor and prototype as fields of a product, of the body or as CSV columns are rejected and pollute nothing", async () => {
    const valid = JSON.stringify({ ...SITE_A, product: product("poison", "POISON") });
    // JSON.stringify cannot write an own __proto__ key, so these bodies are spliced as text.
    const inProduct = (key: string) => valid.replace('"product":{', `"product":{"${key}":${POISON},`);
    const inBody = (key: string) => valid.replace("{", `{"${key}":${POISON},`);
    const cases: [string, string, string][] = [];
    for (const key of ["__proto__", "constructor", "prototype"]) {
      cases.push([BASE, inProduct(key), `/product/${key}`], [BASE, inBody(key), `/${key}`]);
      cases.push([
        `${BASE}/bulk`,
        valid.replace('"product":{', `"products":[{"${key}":{"prototype":${POISON}},`).replace(/}$/, "]}"),
        `/products/0/${key}`,
      ]);
      const csvContent = `${HEADER},${key}\npoison,POISON,T,true,https://i,https://u,x`;
      cases.push([`${BASE}/bulk/csv`, JSON.stringify({ ...SITE_A, csvContent }), key]);
    }
    for (const [path, body, where] of cases) {
      const response = await send(server, "POST", path, body);
      const problem = (await response.json()) as ProblemBody;
      expect(response.status, body).toBe(400);
      expect(problem.code).toBe(path.endsWith("csv") ? "INVALID_CSV" : "VALIDATION_FAILED");
      expect(problem.errors.map((entry) => entry.pointer ?? entry.column)).toContain(where);
      expectNoPollution(keysBefore);
    }
    const lookup = await send(server, "GET", productPath("poison", SITE_A));
    expect(((await lookup.json()) as ProblemBody).code).toBe("PRODUCT_NOT_FOUND");
  });

  it("__proto__, constructor and prototype as ids, skus and site names are stored and found exactly as sent", async () => {
    const site: Site = { siteId: "__proto__", siteType: "constructor" };
    server.catalog.addSite(site);
    const sent = [
      product("__proto__", "constructor"),
      product("constructor", "prototype", { images: ["__proto__"], description: "constructor" }),
      product("prototype", "__proto__", { title: "__proto__" }),
    ];
    const imported = await send(server, "POST", `${BASE}/bulk`, JSON.stringify({ ...site, products: sent }));
    expect(await imported.json()).toMatchObject({ total: 3, created: 3 });
    const csvContent = `${HEADER}\nhasOwnProperty,toString,valueOf,true,https://i,https://u`;
    const csv = await send(server, "POST", `${BASE}/bulk/csv`, JSON.stringify({ ...site, csvContent }));
    expect(csv.status).toBe(200);
    for (const expected of sent) {
      expect(await server.catalog.getProduct(site, expected.id as string, { by: "id" })).toEqual(expected);
      const bySku = await send(server, "GET", productPath(expected.sku as string, site, "&by=sku"));
      expect(await bySku.json()).toMatchObject({ id: expected.id });
    }
    expect(await server.catalog.getProduct(site, "toString")).toMatchObject({ id: "hasOwnProperty" });
    // Names Object.prototype has are not products of a site that lacks them.
    for (const key of ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty"]) {
      const missing = await send(server, "GET", productPath(key, SITE_B));
      expect(((await missing.json()) as ProblemBody).code, key).toBe("PRODUCT_NOT_FOUND");
    }
    const deleted = await send(server, "DELETE", productPath("__proto__", site, "&by=id"));
    expect(await deleted.json()).toEqual({ message: 'Product "__proto__" (sku "constructor") deleted' });
    expect((await send(server, "GET", productPath("constructor", site, "&by=sku"))).status).toBe(400);
    expectNoPollution(keysBefore);
  });

  it("__proto__ and constructor as query parameters are unknown parameters", async () => {
    for (const query of ["&__proto__=x", "&constructor=x", "&__proto__%5Bpolluted%5D=yes", "&prototype=1"]) {
      const response = await send(server, "GET", productPath("x", SITE_A, query));
      expect(response.status).toBe(400);
      expect(((await response.json()) as ProblemBody).code).toBe("VALIDATION_FAILED");
    }
    const body = JSON.stringify({ ...SITE_A, product: product("q") });
    const imported = await send(server, "POST", `${BASE}?__proto__=true`, body);
    expect(((await imported.json()) as ProblemBody).code).toBe("VALIDATION_FAILED");
    expectNoPollution(keysBefore);
  });
});

describe("oversized and pathological input", () => {
  const MAX_BODY = 4 * MiB;
  const MAX_PRODUCTS = 1_000;
  // Peak memory may grow by this much over the whole describe block: a small multiple of the
  // body limit. Parsing JSON alone can take some tens of times the bytes of a body.
  const MEMORY_BOUND = 64 * MAX_BODY;
  const seed = product("seed", "SEED", { images: ["https://img.example/seed.jpg"], price: 5 });
  let server: TestServer;
  let rssBefore: number;
  // Garbage is collected before each case, so that the peak is the largest case's own, not the
  // garbage of every case before it, which V8 may keep as long as it likes.
  setFlagsFromString("--expose-gc");
  const collect = runInNewContext("gc") as () => void;

  beforeAll(async () => {
    server = await startTestServer({ maxBodyBytes: MAX_BODY, maxProducts: MAX_PRODUCTS });
    const seeded = await send(server, "POST", BASE, JSON.stringify({ ...SITE_A, product: seed }));
    expect(seeded.status).toBe(200);
    collect();
    rssBefore = process.memoryUsage().rss;
  });
  beforeEach(() => collect());
  afterAll(() => server.close());

  const hostile = (extra: Record<string, unknown> = {}) => product("hostile", "HOSTILE", extra);
  // A product body whose `field` holds `raw`, JSON text written as is.
  const withRaw = (field: string, raw: string) => ({
    path: BASE,
    body: JSON.stringify({ ...SITE_A, product: hostile({ [field]: "@@" }) }).replace('"@@"', raw),
  });
  const csv = (csvContent: string) => ({ path: `${BASE}/bulk/csv`, body: JSON.stringify({ ...SITE_A, csvContent }) });
  const csvRow = (cells: Record<string, string>, header = HEADER) => {
    const values: Record<string, string> = {
      id: "hostile",
      sku: "HOSTILE",
      title: "T",
      available: "true",
      featured_image: "https://i",
      url: "https://u",
      ...cells,
    };
    const row = header.split(",").map((name) => values[name]);
    return `${header}\n${row.join(",")}`;
  };
  const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

  interface Case {
    readonly name: string;
    readonly request: () => { path: string; body?: string | Uint8Array; method?: string };
    readonly status: number;
    readonly code: string;
    readonly check?: (problem: ProblemBody) => void;
  }
  const at = (where: Record<string, unknown>) => (problem: ProblemBody) =>
    expect(problem.errors).toContainEqual(expect.objectContaining(where));

  // Hostile keys and sites in lookups and deletes reach the store: hostile-keys.test.ts runs them on every store.
  const cases: Case[] = [
    {
      name: "a 1 MB CSV cell",
      request: () => csv(csvRow({ title: "t".repeat(MiB) })),
      status: 400,
      code: "VALIDATION_FAILED",
      check: at({ row: 2, column: "title" }),
    },
    {
      name: "a 1 MB quoted CSV cell of commas, quotes and newlines",
      request: () => csv(csvRow({ id: `"${'a,"",\n'.repeat(MiB / 6)}"` })),
      status: 400,
      code: "VALIDATION_FAILED",
      check: at({ row: 2, column: "id" }),
    },
    {
      name: "a CSV header line of 1 MB",
      request: () => csv(`${"h".repeat(MiB)}\nx`),
      status: 400,
      code: "INVALID_CSV",
      check: at({ row: 1, message: expect.stringContaining("Unknown column") }),
    },
    {
      name: "a product field name of 1 MB",
      request: () => withRaw("k".repeat(MiB), "1"),
      status: 400,
      code: "VALIDATION_FAILED",
      check: at({ message: expect.stringContaining("Unknown field") }),
    },
    {
      name: "a body field name of 1 MB",
      request: () => ({ path: BASE, body: `{"${"k".repeat(MiB)}":1,"product":{}}` }),
      status: 400,
      code: "VALIDATION_FAILED",
    },
    {
      name: "a siteId of 1 MB",
      request: () => ({ path: BASE, body: JSON.stringify({ ...SITE_A, siteId: "s".repeat(MiB), product: hostile() }) }),
      status: 400,
      code: "SITE_NOT_FOUND",
    },
    {
      name: "a CSV header of a million columns",
      request: () => csv(`${"x,".repeat(999_999)}x\n${"1,".repeat(999_999)}1`),
      status: 400,
      code: "INVALID_CSV",
      check: (problem) => {
        expect(problem.errorCount).toBeGreaterThanOrEqual(1_000_000);
        expect(problem.errors).toHaveLength(100);
      },
    },
    {
      name: "500,000 CSV rows",
      request: () => csv(`${HEADER}\n${",,,,,\n".repeat(500_000)}`),
      status: 413,
      code: "TOO_MANY_PRODUCTS",
      check: (problem) => expect(problem).toMatchObject({ limit: MAX_PRODUCTS, received: 500_000 }),
    },
    {
      name: "a million one-cell CSV rows",
      // Counted whatever cells the rows hold; a header that cannot be read ends reading first.
      request: () => csv(`id,sku,title,available,featured_image,url\n${"a\n".repeat(1_000_000)}`),
      status: 413,
      code: "TOO_MANY_PRODUCTS",
      check: (problem) => expect(problem).toMatchObject({ limit: MAX_PRODUCTS, received: 1_000_000 }),
    },
    {
      name: "100,000 images in one product",
      request: () => ({
        path: BASE,
        body: JSON.stringify({ ...SITE_A, product: hostile({ images: Array(100_000).fill("https://img.example/i") }) }),
      }),
      status: 400,
      code: "VALIDATION_FAILED",
      check: at({ pointer: "/product/images", message: "Must have at most 100 entries" }),
    },
    {
      // An over-long list is refused whole: its entries are not checked one by one.
      name: "100,000 images that are not strings",
      request: () => withRaw("images", `[${"0,".repeat(99_999)}0]`),
      status: 400,
      code: "VALIDATION_FAILED",
      check: (problem) => {
        expect(problem.errors).toEqual([{ pointer: "/product/images", message: "Must have at most 100 entries" }]);
        expect(problem.errorCount).toBe(1);
      },
    },
    {
      name: "an images cell of 100,000 CSV entries",
      request: () => csv(csvRow({ images: `"[${'""https://i"",'.repeat(99_999)}""https://i""]"` }, `${HEADER},images`)),
      status: 400,
      code: "VALIDATION_FAILED",
      check: at({ row: 2, column: "images" }),
    },
    {
      name: "a body of 100,000 nested arrays",
      request: () => ({ path: BASE, body: nested(100_000) }),
      status: 400,
      code: "VALIDATION_FAILED",
      check: at({ pointer: "" }),
    },
    {
      name: "a product of 100,000 nested arrays",
      request: () => ({
        path: `${BASE}/bulk`,
        body: JSON.stringify({ ...SITE_A, products: ["@"] }).replace('"@"', nested(100_000)),
      }),
      status: 400,
      code: "VALIDATION_FAILED",
      check: at({ pointer: expect.stringMatching(/^\/products\/0/) }),
    },
    {
      name: "an image of 100,000 nested arrays",
      request: () => withRaw("images", `[${nested(100_000)}]`),
      status: 400,
      code: "VALIDATION_FAILED",
      check: at({ pointer: "/product/images/0" }),
    },
    {
      name: "100,000 nested objects",
      request: () => withRaw("title", `${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`),
      status: 400,
      code: "VALIDATION_FAILED",
      check: at({ pointer: "/product/title" }),
    },
    {
      name: "100,000 unclosed arrays",
      request: () => ({ path: BASE, body: "[".repeat(100_000) }),
      status: 400,
      code: "INVALID_JSON",
    },
    {
      name: "an images CSV cell of 100,000 nested arrays",
      request: () => csv(csvRow({ images: nested(100_000) }, `${HEADER},images`)),
      status: 400,
      code: "VALIDATION_FAILED",
      check: at({ row: 2, column: "images" }),
    },
    {
      name: "a price of 1e400",
      request: () => withRaw("price", "1e400"),
      status: 400,
      code: "VALIDATION_FAILED",
      check: at({ pointer: "/product/price", message: "Must be a finite number" }),
    },
    {
      name: "a price of -1e400",
      request: () => withRaw("price", "-1e400"),
      status: 400,
      code: "VALIDATION_FAILED",
      check: at({ pointer: "/product/price" }),
    },
    {
      name: "an id of 1e400",
      request: () => withRaw("id", "1e400"),
      status: 400,
      code: "VALIDATION_FAILED",
      check: at({ pointer: "/product/id", message: "Must be a string" }),
    },
    {
      name: "a CSV price of 1e400",
      request: () => csv(csvRow({ price: "1e400" }, `${HEADER},price`)),
      status: 400,
      code: "VALIDATION_FAILED",
      check: at({ row: 2, column: "price" }),
    },
    {
      name: "a CSV price of 400 digits",
      request: () => csv(csvRow({ price: `1${"0".repeat(400)}` }, `${HEADER},price`)),
      status: 400,
      code: "VALIDATION_FAILED",
      check: at({ row: 2, column: "price", message: "Must be a finite number" }),
    },
    {
      name: "NaN as a JSON number",
      request: () => withRaw("price", "NaN"),
      status: 400,
      code: "INVALID_JSON",
    },
    {
      name: "Infinity as a JSON number",
      request: () => withRaw("price", "Infinity"),
      status: 400,
      code: "INVALID_JSON",
    },
    {
      name: 'NaN as the string "NaN"',
      request: () => withRaw("price", '"NaN"'),
      status: 400,
      code: "VALIDATION_FAILED",
      check: at({ pointer: "/product/price" }),
    },
    {
      name: "NaN as a CSV price",
      request: () => csv(csvRow({ price: "NaN" }, `${HEADER},price`)),
      status: 400,
      code: "VALIDATION_FAILED",
      check: at({ row: 2, column: "price" }),
    },
    {
      name: "an escaped lone surrogate in an id",
      request: () => withRaw("id", '"hostile\\ud800"'),
      status: 400,
      code: "VALIDATION_FAILED",
      check: at({ pointer: "/product/id", message: expect.stringContaining("lone surrogates") }),
    },
    {
      name: "escaped lone surrogates in a sku and a title",
      request: () => ({
        path: BASE,
        body: JSON.stringify({ ...SITE_A, product: hostile({ sku: "@1", title: "@2" }) })
          .replace('"@1"', '"\\udfffHOSTILE"')
          .replace('"@2"', '"a\\ud800b"'),
      }),
      status: 400,
      code: "VALIDATION_FAILED",
      check: (problem) => expect(problem.errorCount).toBe(2),
    },
    {
      name: "an escaped lone surrogate in a CSV cell",
      request: () => ({
        path: `${BASE}/bulk/csv`,
        body: JSON.stringify({ ...SITE_A, csvContent: csvRow({ id: "hostile@" }) }).replace(
          "hostile@",
          "hostile\\ud800",
        ),
      }),
      status: 400,
      code: "VALIDATION_FAILED",
      check: at({ row: 2, column: "id", message: expect.stringContaining("lone surrogates") }),
    },
    {
      name: "a lone surrogate encoded as UTF-8 bytes",
      request: () => {
        const [before, after] = withRaw("id", '"hostile@"').body.split("@") as [string, string];
        return {
          path: BASE,
          body: Buffer.concat([Buffer.from(before), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from(after)]),
        };
      },
      status: 400,
      code: "INVALID_JSON",
    },
    {
      name: "an escaped lone surrogate in a siteId",
      request: () => ({
        path: BASE,
        body: JSON.stringify({ siteId: "@", siteType: SITE_A.siteType, product: hostile() }).replace(
          '"@"',
          '"\\ud800"',
        ),
      }),
      status: 400,
      code: "VALIDATION_FAILED",
      check: at({ pointer: "/siteId", message: expect.stringContaining("lone surrogates") }),
    },
    {
      name: "an escaped NUL in a siteType",
      request: () => ({
        path: BASE,
        body: JSON.stringify({ siteId: SITE_A.siteId, siteType: "shop\u0000ify", product: hostile() }),
      }),
      status: 400,
      code: "VALIDATION_FAILED",
      check: at({ pointer: "/siteType", message: expect.stringContaining("NUL") }),
    },
    {
      name: "a NUL byte in an id",
      request: () => withRaw("id", '"hostile\\u0000"'),
      status: 400,
      code: "VALIDATION_FAILED",
      check: at({ pointer: "/product/id", message: "Must not contain control characters" }),
    },
    {
      name: "a NUL byte in a sku",
      request: () => withRaw("sku", '"\\u0000HOSTILE"'),
      status: 400,
      code: "VALIDATION_FAILED",
      check: at({ pointer: "/product/sku" }),
    },
    {
      name: "an unescaped NUL byte in a JSON string",
      request: () => withRaw("id", '"hostile\u0000"'),
      status: 400,
      code: "INVALID_JSON",
    },
    {
      name: "a NUL byte in a CSV id",
      request: () => csv(csvRow({ id: "hostile\u0000" })),
      status: 400,
      code: "VALIDATION_FAILED",
      check: at({ row: 2, column: "id" }),
    },
  ];

  it.each(cases)("$name: $status $code, nothing written, a short answer", async ({ request, status, code, check }) => {
    const { path, body, method = "POST" } = request();
    const response = await send(server, method, path, body);
    const text = await response.text();
    expect(response.status, text.slice(0, 500)).toBe(status);
    // The answer never echoes megabytes of input back.
    expect(text.length).toBeLessThan(64 * 1024);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    const problem = JSON.parse(text) as ProblemBody;
    expect(problem).toMatchObject({ status, code });
    check?.(problem);
    for (const key of ["hostile", "HOSTILE"]) {
      const lookup = await send(server, "GET", productPath(key, SITE_A));
      expect(((await lookup.json()) as ProblemBody).code).toBe("PRODUCT_NOT_FOUND");
    }
    expect(await server.catalog.getProduct(SITE_A, "seed")).toEqual(seed);
  });

  it(`keeps peak memory within ${MEMORY_BOUND / MiB} MiB of where it started, and reports no internal error`, () => {
    const peak = process.resourceUsage().maxRSS * 1024;
    expect(peak - rssBefore).toBeLessThan(MEMORY_BOUND);
    expect(server.errors).toEqual([]);
  });
});

/** A catalog server with the test tokens and the given timeouts; its access log and errors are kept. */
async function startTimedServer(timeouts: { headersTimeout: number; requestTimeout: number }) {
  const catalog = createCatalog({ store: createMemoryStore(), sites: [SITE_A] });
  const log: number[] = [];
  const errors: unknown[] = [];
  const handler = createCatalogHandler(catalog, {
    tokens: [{ token: TOKENS.admin, sites: "*" }],
    accessLog: (entry) => log.push(entry.status),
    onError: (error) => errors.push(error),
  });
  const running = await startServer({ handler, port: 0, ...timeouts });
  return { running, catalog, log, errors };
}

// Resolves when the server has closed the connection; fails the test if it has not within `ms`.
function closedWithin(raw: RawConnection, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still open after ${ms} ms; received: ${raw.received()}`)), ms);
  });
  return Promise.race([raw.closed, timeout]).finally(() => clearTimeout(timer));
}

describe("slow clients", () => {
  const HEADERS_TIMEOUT = 1_000;
  const REQUEST_TIMEOUT = 2_000;
  // Node checks its timeouts once a second at most: a deadline is noticed up to that much later.
  const GRACE = 1_000 + 2_000;
  let server: Awaited<ReturnType<typeof startTimedServer>>;
  beforeAll(async () => {
    server = await startTimedServer({ headersTimeout: HEADERS_TIMEOUT, requestTimeout: REQUEST_TIMEOUT });
  });
  afterAll(() => server.running.close());

  const body = JSON.stringify({ ...SITE_A, product: product("slow", "SLOW") });
  const head =
    `POST ${BASE} HTTP/1.1\r\nHost: x\r\nX-Service-Access-Token: ${TOKENS.admin}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;

  it("headers trickled one byte a second are cut off with 408, and so are connections that send nothing", async () => {
    const silent = await Promise.all(Array.from({ length: 20 }, () => openRaw(server.running.url)));
    const raw = await openRaw(server.running.url);
    let sent = 0;
    const trickle = (async () => {
      while (!raw.socket.destroyed && sent < head.length) {
        await raw.write(head.charAt(sent));
        sent++;
        await Promise.race([raw.closed, sleep(1_000)]);
      }
    })();
    await closedWithin(raw, HEADERS_TIMEOUT + GRACE);
    await trickle;
    expect(sent).toBeLessThan(head.length);
    expect(raw.received()).toMatch(/^HTTP\/1\.1 408 /);
    await Promise.all(silent.map((connection) => closedWithin(connection, HEADERS_TIMEOUT + GRACE)));
    // The handler never saw those requests.
    expect(server.log).toEqual([]);
  });

  it("a body that stalls is cut off by the request timeout, and nothing is written", async () => {
    const raw = await openRaw(server.running.url);
    await raw.write(head + body.slice(0, 10));
    await closedWithin(raw, REQUEST_TIMEOUT + GRACE);
    expect(raw.received()).toMatch(/^(HTTP\/1\.1 408 |$)/);
    // The handler saw its client go: logged as 499, not an error.
    await vi.waitFor(() => expect(server.log).toContain(499));
    expect(server.errors).toEqual([]);
    await expect(server.catalog.getProduct(SITE_A, "slow")).rejects.toMatchObject({ code: "PRODUCT_NOT_FOUND" });
  });

  it("200 idle connections do not starve a new request", async () => {
    const idle = await startTestServer();
    try {
      const connections = await Promise.all(Array.from({ length: 200 }, () => openRaw(idle.url)));
      // Half of them start a request and never finish its headers.
      await Promise.all(connections.slice(100).map((connection) => connection.write(`POST ${BASE} HTTP/1.1\r\nHo`)));
      const imported = await idle.request("POST", BASE, {
        token: TOKENS.admin,
        json: { ...SITE_A, product: product("fresh", "FRESH") },
      });
      expect(imported.status).toBe(200);
      const lookup = await idle.request("GET", productPath("fresh", SITE_A), { token: TOKENS.admin });
      expect(await lookup.json()).toMatchObject({ id: "fresh" });
      expect((await idle.request("GET", "/healthz")).status).toBe(200);
      // They were all still open while those requests were answered.
      expect(connections.filter((connection) => connection.socket.destroyed)).toEqual([]);
      for (const connection of connections) connection.destroy();
    } finally {
      await idle.close();
    }
  });
});

describe("tokens", () => {
  const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
  const VALID = "valid-token-7c1f2e9a4b";
  const FOR_A = "site-a-token-3d8a6f0b2c";
  const HASHED = "hashed-token-5e9b1c7d3a";
  const INVALID = "invalid-token-9a2c4e6f8b";
  const SECRETS = [VALID, FOR_A, HASHED, INVALID, sha256(HASHED)];
  const tokens: AccessToken[] = [
    { token: VALID, sites: "*" },
    { token: FOR_A, sites: [SITE_A] },
    { tokenSha256: sha256(HASHED), sites: [SITE_A] },
  ];

  // A store that fails on the key "boom" (an internal error, 500) and "down" (storage unavailable, 503).
  function brittleStore(): CatalogStore {
    const inner = createMemoryStore();
    const fail = (key: string) => {
      if (key === "boom") throw new Error("the store broke on boom");
      if (key === "down") throw new CatalogError("STORAGE_UNAVAILABLE", "the store is down");
    };
    const failing: CatalogStore = {
      ...inner,
      async find(site, key, by) {
        fail(key);
        return inner.find(site, key, by);
      },
      async remove(site, key, by) {
        fail(key);
        return inner.remove(site, key, by);
      },
    };
    return wrapStaged(failing, (staged) => ({
      async add(products, ...rest) {
        for (const each of products) fail(each.id);
        return staged.add(products, ...rest);
      },
    }));
  }

  const requests: [string, string, string | undefined, Record<string, string>?][] = [
    ["POST", BASE, JSON.stringify({ ...SITE_A, product: product("p1") })],
    ["POST", BASE, JSON.stringify({ ...SITE_A, product: product("boom") })],
    ["POST", `${BASE}/bulk`, JSON.stringify({ ...SITE_A, products: [product("p2"), product("down")] })],
    ["POST", `${BASE}/bulk`, '{"products": ['],
    ["POST", `${BASE}/bulk`, JSON.stringify({ ...SITE_A, products: [{ id: 1, token: "x" }], extra: 1 })],
    ["POST", `${BASE}/bulk/csv`, JSON.stringify({ ...SITE_A, csvContent: "id\n1,2" })],
    ["POST", `${BASE}/bulk?dryRun=maybe`, JSON.stringify({ ...SITE_A, products: [] })],
    ["POST", BASE, JSON.stringify({ ...SITE_B, product: product("p3") })],
    ["POST", BASE, JSON.stringify({ product: product("p4") })],
    ["POST", BASE, "x".repeat(5_000)],
    ["POST", BASE, "{}", { "content-type": "text/plain" }],
    ["GET", productPath("p1", SITE_A), undefined],
    ["GET", productPath("boom", SITE_A), undefined],
    ["GET", productPath("down", SITE_A), undefined],
    ["GET", productPath("missing", SITE_A, "&by=sku"), undefined],
    ["GET", productPath("p1", SITE_A, "&token=1&by=name"), undefined],
    ["HEAD", productPath("p1", SITE_A), undefined],
    ["DELETE", productPath("boom", SITE_A), undefined],
    ["DELETE", productPath("missing", SITE_A), undefined],
    ["PUT", BASE, "{}"],
    ["GET", "/nowhere", undefined],
    ["GET", "/healthz", undefined],
  ];

  async function exchange(url: string, token: string, [method, path, body, headers]: (typeof requests)[number]) {
    const response = await fetch(url + path, {
      method,
      headers: { "content-type": "application/json", "x-service-access-token": token, ...headers },
      ...(body === undefined ? {} : { body }),
    });
    const text = await response.text();
    return { status: response.status, text: `${JSON.stringify([...response.headers])}\n${text}` };
  }

  // The random tail of each secret is checked too, so that a secret cut short is still caught.
  function expectNoSecret(text: string, where: string): void {
    for (const secret of SECRETS.flatMap((each) => [each, each.slice(-10)])) {
      expect(text.includes(secret), `${where} holds ${secret}:\n${text}`).toBe(false);
    }
  }

  it("never appear in answers, the access log or onError, whether valid, invalid or nearly valid", async () => {
    const store = brittleStore();
    const catalog = createCatalog({ store, sites: [SITE_A, SITE_B] });
    const lines: string[] = [];
    const reported: string[] = [];
    const handler = createCatalogHandler(catalog, {
      tokens,
      maxBodyBytes: 4_096,
      // The entry as a whole: the server's access-log line holds only some of its fields, and its
      // lines are checked as the server writes them below ("never appear in the standalone server's output").
      accessLog: (entry) => lines.push(JSON.stringify(entry)),
      onError: (error) => reported.push(inspect(error, { depth: 10 }), String((error as Error).stack)),
    });
    const server = await startServer({ handler, port: 0 });
    try {
      const statuses = new Set<number>();
      const presented = [VALID, FOR_A, HASHED, INVALID, sha256(HASHED), `${VALID}x`, VALID.slice(0, -1), ` ${VALID}`];
      for (const token of presented) {
        for (const request of requests) {
          const { status, text } = await exchange(server.url, token, request);
          statuses.add(status);
          expectNoSecret(text, `${request[0]} ${request[1]} with ${token}`);
        }
      }
      // Credentials sent where the server does not look for them are not echoed either.
      const elsewhere = await fetch(`${server.url}${productPath("p1", SITE_A)}`, {
        headers: { authorization: `Bearer ${VALID}`, cookie: `token=${VALID}`, "x-api-key": VALID },
      });
      expect(elsewhere.status).toBe(401);
      expectNoSecret(`${JSON.stringify([...elsewhere.headers])}${await elsewhere.text()}`, "401 answer");
      // Every kind of answer was seen, so every path that writes a body or a log line was taken.
      for (const status of [200, 400, 401, 404, 405, 413, 415, 500, 503]) expect(statuses).toContain(status);
      expect(reported.length).toBeGreaterThan(0);
      expect(lines.length).toBeGreaterThan(presented.length * requests.length);
      expectNoSecret(lines.join("\n"), "the access log");
      expectNoSecret(reported.join("\n"), "onError");
    } finally {
      await server.close();
    }
  });

  it("never appear in what the default onError prints", async () => {
    const catalog = createCatalog({ store: brittleStore(), sites: [SITE_A] });
    const handler = createCatalogHandler(catalog, { tokens });
    const server = await startServer({ handler, port: 0 });
    const printed = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      for (const token of [VALID, INVALID]) {
        await exchange(server.url, token, ["GET", productPath("boom", SITE_A), undefined]);
        await exchange(server.url, token, ["POST", BASE, JSON.stringify({ ...SITE_A, product: product("boom") })]);
      }
      expect(printed).toHaveBeenCalled();
      expectNoSecret(printed.mock.calls.map((args) => inspect(args, { depth: 10 })).join("\n"), "console.error");
    } finally {
      printed.mockRestore();
      await server.close();
    }
  });

  it("never appear in the standalone server's output", async () => {
    const dir = await mkdtemp(join(tmpdir(), "catalog-tokens-"));
    const file = join(dir, "config.json");
    await writeFile(
      file,
      JSON.stringify({
        sites: [SITE_A],
        tokens: [
          { token: VALID, sites: "*" },
          { tokenSha256: sha256(HASHED), sites: [SITE_A] },
        ],
        limits: { maxBodyBytes: 4_096 },
      }),
    );
    const cli = startCli({ CATALOG_CONFIG: file });
    try {
      const out = await cli.waitForOutput(/listening on (http:\S+)/);
      const url = /listening on (http:\S+)/.exec(out)?.[1] as string;
      for (const token of [VALID, HASHED, INVALID, sha256(HASHED)]) {
        for (const request of requests) expectNoSecret((await exchange(url, token, request)).text, "an answer");
      }
      cli.child.kill("SIGTERM");
      expect(await cli.exited).toBe(0);
      expect(cli.stdout()).toContain('"method":"POST","path":"/external/product/v1","status":200,');
      expect(cli.stdout()).toContain('"method":"GET","path":"/external/product/v1/p1","status":401,');
      expectNoSecret(cli.stdout(), "stdout");
      expectNoSecret(cli.stderr(), "stderr");
    } finally {
      await stopCli(cli);
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a token configured by tokenSha256 works with its secret, never with the hash itself", async () => {
    const server = await startTestServer();
    try {
      const json = { ...SITE_A, product: product("by-hash") };
      expect((await server.request("POST", BASE, { token: TOKENS.hashed, json })).status).toBe(200);
      const found = await server.request("GET", productPath("by-hash", SITE_A), { token: TOKENS.hashed });
      expect(await found.json()).toMatchObject({ id: "by-hash" });
      // Neither the configured hash, in any case, nor the hash of a plainly configured token is a token.
      for (const token of [HASHED_SHA256, HASHED_SHA256.toUpperCase(), sha256(TOKENS.admin), sha256(TOKENS.a)]) {
        const lookup = await server.request("GET", productPath("by-hash", SITE_A), { token });
        expect(lookup.status, token).toBe(401);
        expect(await lookup.json()).toMatchObject({ code: "UNAUTHORIZED" });
        const write = await server.request("POST", BASE, { token, json: { ...SITE_A, product: product("by-hash-2") } });
        expect(write.status, token).toBe(401);
      }
      await expect(server.catalog.getProduct(SITE_A, "by-hash-2")).rejects.toMatchObject({ code: "PRODUCT_NOT_FOUND" });
    } finally {
      await server.close();
    }
  });
});
