// The import history over HTTP, on the memory store: every import answer carries its id, whose
// record names the request and the token; the list's filters and pages; the problem report in
// NDJSON and CSV with its total; a running upload's progress from another server over the same
// store; and the product whose id is "imports", still reachable.
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import type { ImportRecord } from "@catalog-kit/catalog-core";
import { fc, test } from "@fast-check/vitest";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { answerChecker, type Document } from "./support/openapi-check.ts";
import { problemOf } from "./support/problem.ts";
import { product, SITE_A, startTestServer, type TestServer, TOKENS } from "./support/test-server.ts";
import { SLOW_UPLOAD, upload } from "./support/upload.ts";

const BASE = "/external/product/v1";
const QUERY = `siteId=${SITE_A.siteId}&siteType=${SITE_A.siteType}`;
const admin = { token: TOKENS.admin };
const ID = /^[0-9a-f]{28}$/;

const store = createMemoryStore();
let server: TestServer;
let other: TestServer;
beforeAll(async () => {
  server = await startTestServer({ store });
  // Another server over the same store: what a second process is to a shared store.
  other = await startTestServer({ store });
});
afterAll(async () => {
  await server.close();
  await other.close();
});

const record = async (id: string, via = other) => {
  const response = await via.request("GET", `${BASE}/imports/${id}?${QUERY}`, admin);
  expect(response.status).toBe(200);
  return (await response.json()) as ImportRecord;
};

describe("import history over HTTP", () => {
  test("an import's answer carries its id; its record names the request, the token and the body's size", async () => {
    const json = { products: [product("h-1"), product("h-2")] };
    const body = JSON.stringify(json);
    const headers = { "content-type": "application/json", "x-request-id": "my-request-1" };
    const response = await server.request("POST", `${BASE}/bulk?${QUERY}`, { ...admin, headers, body });
    const answer = (await response.json()) as { importId: string };
    expect(answer.importId).toMatch(ID);
    expect(await record(answer.importId)).toMatchObject({
      importId: answer.importId,
      channel: "body",
      format: "products",
      state: "succeeded",
      requestId: "my-request-1",
      tokenName: "tokens[0]",
      bytesReceived: Buffer.byteLength(body),
      productsRead: 2,
      counts: { created: 2 },
    });
    const found = await server.request("GET", `${BASE}/imports?${QUERY}&requestId=my-request-1`, admin);
    expect(((await found.json()) as { imports: ImportRecord[] }).imports.map((r) => r.importId)).toEqual([
      answer.importId,
    ]);
  });

  test("a failed import's problem body carries its id; its report is NDJSON or CSV, its total in X-Problem-Count", async () => {
    const rows = Array.from(
      { length: 150 },
      (_, i) => `b-${i},SKU-b-${i},T,maybe,https://i.example/x.jpg,https://s.example/${i}`,
    );
    const csv = `id,sku,title,available,featured_image,url\n${rows.join("\n")}\n`;
    const sent = await server.request("POST", `${BASE}/bulk?${QUERY}`, {
      ...admin,
      headers: { "content-type": "text/csv" },
      body: csv,
    });
    const problem = await problemOf(sent, 400, "VALIDATION_FAILED");
    const { importId } = problem as unknown as { importId: string };
    expect(importId).toMatch(ID);
    expect(problem.errors).toHaveLength(100);
    const ndjson = await other.request("GET", `${BASE}/imports/${importId}/problems?${QUERY}`, admin);
    expect(ndjson.headers.get("content-type")).toBe("application/x-ndjson");
    expect(ndjson.headers.get("x-problem-count")).toBe("150");
    const lines = (await ndjson.text())
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(150);
    expect(lines.slice(0, 100)).toEqual(problem.errors);
    expect(lines[149]).toMatchObject({ row: 151, column: "available" });
    const csvReport = await other.request("GET", `${BASE}/imports/${importId}/problems?${QUERY}`, {
      ...admin,
      headers: { accept: "text/csv" },
    });
    expect(csvReport.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const csvLines = (await csvReport.text()).trimEnd().split("\n");
    expect(csvLines[0]).toBe("row,column,line,pointer,item,element,sku,heldBy,code,message");
    expect(csvLines).toHaveLength(151);
    expect(csvLines[1]).toMatch(/^2,available,,,,,,,,/);
    expect((await record(importId)).state).toBe("failed");
  });

  test("the CSV report shows a sku or id that looks like a formula as text, not as a formula to run", async () => {
    // Two ids claiming one sku: the conflict names the sku and its holder, both the sender's text.
    const products = [
      { ...product("@held"), sku: '=HYPERLINK("https://evil.example","open")' },
      { ...product("+claims"), sku: '=HYPERLINK("https://evil.example","open")' },
    ];
    const body = JSON.stringify({ products });
    const sent = await server.request("POST", `${BASE}/bulk?${QUERY}`, {
      ...admin,
      headers: { "content-type": "application/json" },
      body,
    });
    const { importId } = (await problemOf(sent, 400, "SKU_CONFLICT")) as unknown as { importId: string };
    const report = await server.request("GET", `${BASE}/imports/${importId}/problems?${QUERY}`, {
      ...admin,
      headers: { accept: "text/csv" },
    });
    const [, line] = (await report.text()).trimEnd().split("\n");
    expect(line).toContain(`,"'=HYPERLINK(""https://evil.example"",""open"")",'@held,,`);
    // The NDJSON report keeps the text as sent: it is data, not a sheet.
    const ndjson = await server.request("GET", `${BASE}/imports/${importId}/problems?${QUERY}`, admin);
    expect(JSON.parse((await ndjson.text()).trimEnd())).toMatchObject({ sku: products[1]?.sku, heldBy: "@held" });
  });

  test("an id no import has is 404 IMPORT_NOT_FOUND; a token needs the read scope", async () => {
    for (const id of ["0123456789abcdef0123456789ab", "%zz", "a%2Fb"]) {
      const missing = await server.request("GET", `${BASE}/imports/${id}?${QUERY}`, admin);
      await problemOf(missing, 404, "IMPORT_NOT_FOUND");
      const report = await server.request("GET", `${BASE}/imports/${id}/problems?${QUERY}`, admin);
      await problemOf(report, 404, "IMPORT_NOT_FOUND");
    }
    await problemOf(await server.request("GET", `${BASE}/imports?${QUERY}`), 401, "UNAUTHORIZED");
  });

  test("the product whose id is imports: GET at %69mports, PATCH and DELETE at /imports", async () => {
    const created = await server.request("POST", `${BASE}?${QUERY}`, {
      ...admin,
      json: { product: product("imports") },
    });
    expect(created.status).toBe(200);
    const got = await server.request("GET", `${BASE}/%69mports?${QUERY}`, admin);
    expect(((await got.json()) as { id: string }).id).toBe("imports");
    const patched = await server.request("PATCH", `${BASE}/imports?${QUERY}`, { ...admin, json: { title: "Imports" } });
    expect(((await patched.json()) as { title: string }).title).toBe("Imports");
    const list = await server.request("GET", `${BASE}/imports?${QUERY}&limit=1`, admin);
    expect(Object.keys((await list.json()) as object)).toEqual(["imports", "nextCursor"]);
    expect((await server.request("DELETE", `${BASE}/imports?${QUERY}`, admin)).status).toBe(200);
  });

  test("a slow raw upload's progress is read from another server while it runs", async () => {
    const { req, answer } = upload(`${server.url}${BASE}/bulk?${QUERY}`, SLOW_UPLOAD);
    const line = (i: number) => `${JSON.stringify(product(`slow-${i}`))}\n`;
    req.write(line(0));
    const progress = async () => {
      const page = await other.request("GET", `${BASE}/imports?${QUERY}&requestId=slow-upload`, admin);
      return ((await page.json()) as { imports: ImportRecord[] }).imports[0];
    };
    await expect
      .poll(progress, { timeout: 3_000, interval: 100 })
      .toMatchObject({ state: "receiving", productsRead: 1 });
    req.write(line(1));
    await expect.poll(progress, { timeout: 3_000, interval: 100 }).toMatchObject({ productsRead: 2 });
    req.end();
    const { status, body } = await answer;
    expect(status).toBe(200);
    const importId = body.importId as string;
    expect(await record(importId)).toMatchObject({ state: "succeeded", channel: "stream", format: "ndjson" });
  });

  test("a raw body past the stream limit: its problem body carries the id of a failed record", async () => {
    const small = await startTestServer({ store, maxStreamBytes: 200 });
    try {
      const lines = Array.from({ length: 5 }, (_, i) => `${JSON.stringify(product(`big-${i}`))}\n`).join("");
      // Chunked, with no Content-Length to refuse it by before the import begins.
      const body = new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(lines));
          controller.close();
        },
      });
      const response = await fetch(`${small.url}${BASE}/bulk?${QUERY}`, {
        method: "POST",
        headers: { "content-type": "application/x-ndjson", "x-service-access-token": TOKENS.admin },
        body,
        duplex: "half",
      } as RequestInit);
      const problem = await problemOf(response, 413, "PAYLOAD_TOO_LARGE");
      const { importId } = problem as unknown as { importId: string };
      expect(importId).toMatch(ID);
      expect(await record(importId)).toMatchObject({ state: "failed", error: { code: "PAYLOAD_TOO_LARGE" } });
    } finally {
      await small.close();
    }
  });

  test("the history's real answers are those /openapi.json declares, schemas and headers", async () => {
    const doc = (await (await server.request("GET", "/openapi.json")).json()) as Document;
    const check = answerChecker(doc);
    const done = await server.request("POST", `${BASE}/bulk?${QUERY}&dryRun=true`, {
      ...admin,
      json: { products: [product("doc-1"), { id: "doc-2" }] },
    });
    const { importId } = (await done.json()) as { importId: string };
    const answers = [
      [`${BASE}/imports`, `${BASE}/imports?${QUERY}&limit=3`, undefined],
      [`${BASE}/imports/{importId}`, `${BASE}/imports/${importId}?${QUERY}`, undefined],
      [`${BASE}/imports/{importId}/problems`, `${BASE}/imports/${importId}/problems?${QUERY}`, "text/csv"],
      [`${BASE}/imports/{importId}/problems`, `${BASE}/imports/${importId}/problems?${QUERY}`, undefined],
    ] as const;
    for (const [path, url, accept] of answers) {
      const response = await server.request("GET", url, { ...admin, headers: accept ? { accept } : {} });
      const answer = { status: response.status, contentType: response.headers.get("content-type") ?? undefined };
      expect(check(path, "get", { ...answer, text: await response.text() }), url).toEqual([]);
      expect(response.status).toBe(200);
    }
  });

  // Whatever the list's query holds, the answer is a page or a 400 naming the parameter, never another.
  test.prop(
    [
      fc.record(
        {
          limit: fc.oneof(fc.integer({ min: -5, max: 1_200 }).map(String), fc.string({ maxLength: 8 })),
          cursor: fc.oneof(fc.stringMatching(/^[0-9a-f]{1,28}$/), fc.string({ maxLength: 70 })),
          state: fc.oneof(fc.constantFrom("receiving", "committing", "succeeded", "failed"), fc.string()),
          idempotencyKey: fc.string({ maxLength: 300 }),
          requestId: fc.string({ maxLength: 300 }),
        },
        { requiredKeys: [] },
      ),
    ],
    { numRuns: 60 },
  )("the list's query parameters: a page, or VALIDATION_FAILED naming the one refused", async (params) => {
    const query = new URLSearchParams({ siteId: SITE_A.siteId, siteType: SITE_A.siteType, ...params });
    const response = await server.request("GET", `${BASE}/imports?${query}`, admin);
    if (response.status === 200) {
      const page = (await response.json()) as { imports: ImportRecord[]; nextCursor: string | null };
      expect(page.imports.length).toBeLessThanOrEqual(Number(params.limit ?? 100));
      for (const r of page.imports) {
        if (params.state !== undefined) expect(r.state).toBe(params.state);
        if (params.requestId !== undefined) expect(r.requestId).toBe(params.requestId);
      }
      return;
    }
    const problem = await problemOf(response, 400, "VALIDATION_FAILED");
    expect(Object.keys(params)).toContain(problem.errors[0]?.parameter);
  });
});
