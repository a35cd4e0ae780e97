// Raw import bodies over HTTP: text/csv and NDJSON streamed into the catalog, gzip, limits, and
// the promise that nothing is visible before the whole body has arrived and been committed.
import { setTimeout as sleep } from "node:timers/promises";
import { gzipSync } from "node:zlib";
import { wrapStaged } from "@catalog-kit/test-support/staged";
import fc from "fast-check";
import { afterEach, expect, it } from "vitest";
import { describeEachStore } from "./support/stores.ts";
import { product, SITE_A, SITE_B, startTestServer, type TestServer, TOKENS } from "./support/test-server.ts";
import { upload as uploadTo } from "./support/upload.ts";

const BULK = "/external/product/v1/bulk";
const CSV = "/external/product/v1/bulk/csv";
const siteQuery = (site = SITE_A) => `?siteId=${site.siteId}&siteType=${site.siteType}`;
const NDJSON = { "content-type": "application/x-ndjson" };
const ndjson = (products: readonly unknown[]) => `${products.map((p) => JSON.stringify(p)).join("\n")}\n`;
const HEADER = "id,sku,title,available,featured_image,url";
const csvRow = (id: string, sku = `SKU-${id}`) => `${id},${sku},Product ${id},true,https://img.example/${id}.jpg,u`;

let server: TestServer;
afterEach(async () => {
  await server?.close();
});

async function exists(id: string, site = SITE_A): Promise<boolean> {
  const query = siteQuery(site);
  const response = await server.request("GET", `/external/product/v1/${id}${query}`, { token: TOKENS.admin });
  return response.status === 200;
}

// A request whose body the test writes piece by piece, chunked.
const upload = (path: string, headers: Record<string, string>) =>
  uploadTo(server.url + path, { "transfer-encoding": "chunked", ...headers });

// 200 MB of newlines in about 200 KB: compressed once, for every store.
let gzipBomb: Buffer | undefined;
const bomb = () => (gzipBomb ??= gzipSync(Buffer.alloc(200_000_000, 10), { level: 9 }));

describeEachStore("raw import bodies", (store) => {
  it("imports NDJSON (and JSON Lines) to the site in the query, or the token's default site", async () => {
    server = await startTestServer({ store: store.fresh() });
    const response = await server.request("POST", BULK + siteQuery(), {
      token: TOKENS.admin,
      headers: NDJSON,
      body: `${JSON.stringify(product("n1"))}\r\n\r\n${JSON.stringify(product("n2"))}`,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ total: 2, created: 2, updated: 0, unchanged: 0 });
    expect(await exists("n2")).toBe(true);
    const jsonl = await server.request("POST", BULK, {
      token: TOKENS.b,
      headers: { "content-type": "application/jsonl; charset=utf-8" },
      body: ndjson([product("n3")]),
    });
    expect(await jsonl.json()).toMatchObject({ created: 1 });
    expect(await exists("n3", SITE_B)).toBe(true);
  });

  it("imports a text/csv body, with problems at their row and column", async () => {
    server = await startTestServer({ store: store.fresh() });
    const ok = await server.request("POST", `${CSV}${siteQuery()}&dryRun=false`, {
      token: TOKENS.admin,
      headers: { "content-type": "text/csv" },
      body: `${HEADER}\n${csvRow("c1")}\n${csvRow("c2")}\n`,
    });
    expect(await ok.json()).toMatchObject({ total: 2, created: 2 });
    const bad = await server.request("POST", CSV + siteQuery(), {
      token: TOKENS.admin,
      headers: { "content-type": "text/csv" },
      body: `${HEADER}\n${csvRow("c3")}\nc4,S4,T,maybe,f,u\n`,
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      code: "VALIDATION_FAILED",
      errorCount: 1,
      errors: [{ row: 3, column: "available" }],
    });
    expect(await exists("c3")).toBe(false);
  });

  it("takes gzip on raw bodies and on JSON envelopes", async () => {
    server = await startTestServer({ store: store.fresh() });
    const raw = await server.request("POST", BULK + siteQuery(), {
      token: TOKENS.admin,
      headers: { ...NDJSON, "content-encoding": "gzip" },
      body: gzipSync(ndjson([product("g1"), product("g2")])),
    });
    expect(await raw.json()).toMatchObject({ created: 2 });
    const envelope = await server.request("POST", BULK, {
      token: TOKENS.admin,
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      body: gzipSync(JSON.stringify({ ...SITE_A, products: [product("g3")] })),
    });
    expect(await envelope.json()).toMatchObject({ created: 1 });
    const corrupt = await server.request("POST", CSV + siteQuery(), {
      token: TOKENS.admin,
      headers: { "content-type": "text/csv", "content-encoding": "gzip" },
      body: Buffer.from("this is not gzip"),
    });
    expect(corrupt.status).toBe(400);
    expect(await corrupt.json()).toMatchObject({ code: "INVALID_ENCODING" });
    const brotli = await server.request("POST", CSV + siteQuery(), {
      token: TOKENS.admin,
      headers: { "content-type": "text/csv", "content-encoding": "br" },
      body: "x",
    });
    expect(brotli.status).toBe(415);
  });

  it("stops decoding a gzip bomb at the limit: 413 with the limit, nothing written", async () => {
    server = await startTestServer({ store: store.fresh(), maxStreamBytes: 1_000_000, maxBodyBytes: 1_000_000 });
    for (const [path, type] of [
      [BULK + siteQuery(), "application/x-ndjson"],
      [BULK, "application/json"],
    ] as const) {
      const started = performance.now();
      const response = await server.request("POST", path, {
        token: TOKENS.admin,
        headers: { "content-type": type, "content-encoding": "gzip" },
        body: bomb(),
      });
      expect(response.status).toBe(413);
      expect(await response.json()).toMatchObject({ code: "PAYLOAD_TOO_LARGE", limit: 1_000_000 });
      expect(performance.now() - started).toBeLessThan(5_000);
    }
  });

  it("refuses a declared length over maxStreamBytes before reading, and a media type the endpoint does not take", async () => {
    server = await startTestServer({ store: store.fresh(), maxStreamBytes: 100 });
    const big = await server.request("POST", BULK + siteQuery(), {
      token: TOKENS.admin,
      headers: NDJSON,
      body: "x".repeat(101),
    });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ limit: 100, received: 101 });
    const wrong = await server.request("POST", CSV + siteQuery(), {
      token: TOKENS.admin,
      headers: { "content-type": "application/x-ndjson" },
      body: "x",
    });
    expect(wrong.status).toBe(415);
    expect(((await wrong.json()) as { detail: string }).detail).toMatch(/text\/csv or text\/tab-separated-values/);
  });

  it("answers SITE_REQUIRED, SITE_NOT_FOUND and bad parameters before reading the body", async () => {
    server = await startTestServer({ store: store.fresh() });
    const cases: [string, string, number, string][] = [
      [TOKENS.admin, BULK, 400, "SITE_REQUIRED"],
      [TOKENS.a, BULK + siteQuery(SITE_B), 400, "SITE_NOT_FOUND"],
      [TOKENS.admin, `${BULK}?siteId=&siteType=x`, 400, "VALIDATION_FAILED"],
      [TOKENS.admin, `${BULK}${siteQuery()}&dryRun=maybe`, 400, "VALIDATION_FAILED"],
      [TOKENS.admin, `${BULK}${siteQuery()}&mode=nope`, 400, "VALIDATION_FAILED"],
    ];
    for (const [token, path, status, code] of cases) {
      const response = await server.request("POST", path, { token, headers: NDJSON, body: ndjson([product("x")]) });
      expect(response.status, path).toBe(status);
      expect(((await response.json()) as { code: string }).code, path).toBe(code);
    }
  });

  it("shows nothing to readers until the whole body has arrived and is committed", async () => {
    server = await startTestServer({ store: store.fresh() });
    const { req, answer } = upload(BULK + siteQuery(), NDJSON);
    const many = Array.from({ length: 3_000 }, (_, i) => product(`early-${i}`));
    req.write(ndjson(many));
    await sleep(300);
    expect(await exists("early-0")).toBe(false);
    req.end(ndjson([product("last")]));
    expect(await answer).toMatchObject({ status: 200, body: { created: 3_001 } });
    expect(await exists("early-0")).toBe(true);
  });

  it("a client that disconnects mid-body leaves nothing visible", async () => {
    server = await startTestServer({ store: store.fresh() });
    const { req, answer } = upload(BULK + siteQuery(), NDJSON);
    answer.catch(() => {});
    req.write(ndjson(Array.from({ length: 3_000 }, (_, i) => product(`gone-${i}`))));
    await sleep(200);
    req.destroy();
    for (let i = 0; i < 100 && !server.log.some((entry) => entry.status === 499); i++) await sleep(20);
    expect(server.log.map((entry) => entry.status)).toContain(499);
    expect(await exists("gone-0")).toBe(false);
  });

  it("a body silent past the idle timeout is cut off with 408, and nothing is visible", async () => {
    server = await startTestServer({ store: store.fresh(), bodyIdleTimeoutMs: 200 });
    const { req, answer } = upload(CSV + siteQuery(), { "content-type": "text/csv" });
    req.write(`${HEADER}\n${csvRow("idle")}\n`);
    expect(await answer).toMatchObject({ status: 408, body: { code: "REQUEST_TIMEOUT" } });
    req.destroy();
    expect(await exists("idle")).toBe(false);
  });

  it("a slow store pauses the body without blaming the client: no 408 while chunks wait to be staged", async () => {
    const inner = store.fresh();
    const slow = wrapStaged(inner, (staged) => ({
      add: async (...args) => {
        await sleep(400);
        return staged.add(...args);
      },
    }));
    server = await startTestServer({ store: slow, bodyIdleTimeoutMs: 150 });
    const body = ndjson(Array.from({ length: 3_500 }, (_, i) => product(`slow-${i}`)));
    const response = await server.request("POST", BULK + siteQuery(), { token: TOKENS.admin, headers: NDJSON, body });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ created: 3_500 });
  });

  it("NDJSON cut anywhere answers as the same products in a JSON envelope", async () => {
    server = await startTestServer({ store: store.fresh() });
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ id: fc.constantFrom("a", "b", "c", "d"), title: fc.string({ minLength: 1 }) }), {
          maxLength: 8,
        }),
        fc.array(fc.nat(), { maxLength: 4 }),
        async (rows, cuts) => {
          const run = n++;
          const products = rows.map((row) => product(`${row.id}-${run}`, `sku-${row.id}-${run}`, { title: row.title }));
          const text = Buffer.from(ndjson(products));
          const at = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
          const { req, answer } = upload(
            `${BULK}?siteId=${SITE_B.siteId}&siteType=${SITE_B.siteType}&dryRun=true`,
            NDJSON,
          );
          let from = 0;
          for (const cut of [...at, text.length]) {
            req.write(text.subarray(from, cut));
            from = cut;
          }
          req.end();
          const streamed = await answer;
          const enveloped = await server.request("POST", `${BULK}?dryRun=true`, {
            token: TOKENS.admin,
            json: { ...SITE_B, products },
          });
          const expected = (await enveloped.json()) as {
            code: string;
            errorCount: number;
            errors: { pointer: string }[];
          };
          expect(streamed.status).toBe(enveloped.status);
          // Two imports, two ids: the answers are alike but for them.
          if (enveloped.status === 200) expect({ ...streamed.body, importId: 0 }).toEqual({ ...expected, importId: 0 });
          else {
            // The same problems, each at line n + 1 where the envelope says /products/n.
            expect(streamed.body).toMatchObject({ code: expected.code, errorCount: expected.errorCount });
            const located = (streamed.body.errors as { line: number; pointer: string }[]).map(
              ({ line, pointer }) => `/products/${line - 1}${pointer}`,
            );
            expect(located).toEqual(expected.errors.map((e) => e.pointer));
          }
        },
      ),
      { numRuns: 30 },
    );
  });
});
