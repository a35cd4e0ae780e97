// Every request example of /openapi.json, sent as a client reading only the document would send
// it (the demo site, a token, the parameters' examples), to a real server; every answer must be
// one the document declares for its operation: the status, the media type, the body's schema.
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  type Answer,
  answerChecker,
  type Document,
  exchangeOf,
  type Operation,
  operationsOf,
  parametersOf,
  send,
  startDemoServer,
} from "./support/openapi-check.ts";

let server: Awaited<ReturnType<typeof startDemoServer>>;
let doc: Document;
beforeAll(async () => {
  server = await startDemoServer();
  doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as Document;
});
afterAll(() => server.close());

// Imports first, so that lookups and patches find what they name, and deletes last.
const ORDER: Readonly<Record<string, number>> = { post: 0, get: 1, patch: 2, delete: 3 };
// GET, PATCH and DELETE on /bulk look up the key "bulk", PATCH and DELETE on /imports the key
// "imports", which no example imports; the example import id is no import of the demo site's.
const NOT_FOUND: Readonly<Record<string, readonly [number, string]>> = {
  getProductBulk: [400, "PRODUCT_NOT_FOUND"],
  patchProductBulk: [400, "PRODUCT_NOT_FOUND"],
  deleteProductBulk: [400, "PRODUCT_NOT_FOUND"],
  patchProductImports: [400, "PRODUCT_NOT_FOUND"],
  deleteProductImports: [400, "PRODUCT_NOT_FOUND"],
  getImport: [404, "IMPORT_NOT_FOUND"],
  getImportProblems: [404, "IMPORT_NOT_FOUND"],
};
type Example = { example?: unknown; "x-example-query"?: Record<string, string> };

// Every example parameter, and every required one (with its example): what a client copies.
function exampleValues(op: Operation): Record<string, string> {
  const values: Record<string, string> = {};
  for (const param of parametersOf(doc, op)) {
    if (param.in === "header" || param.example === undefined) continue;
    values[param.name] = String(param.example);
  }
  return values;
}

it("answers every request example of the document as the document declares", async () => {
  // The admin API's examples need an admin token and a registry: admin-api.test.ts sends them.
  const operations = operationsOf(doc)
    .filter(({ op }) => !(op as { tags?: string[] }).tags?.includes("Admin"))
    .sort((a, b) => (ORDER[a.method] ?? 9) - (ORDER[b.method] ?? 9));
  const check = answerChecker(doc);
  const seen: string[] = [];
  for (const { path, method, op } of operations) {
    const contents = Object.entries((op.requestBody?.content ?? {}) as Record<string, Example>);
    const bodies = contents.map(([media, { example, "x-example-query": query }]) => ({
      media,
      text: typeof example === "string" ? example : JSON.stringify(example),
      query,
    }));
    // An answer of several media types is asked for in each, with the query its example names.
    const answers = (op.responses["200"]?.content ?? {}) as Record<string, Example>;
    const accepts = Object.keys(answers);
    for (const body of bodies.length === 0 ? [undefined] : bodies) {
      for (const accept of accepts.length > 1 ? accepts : [undefined]) {
        const query = { ...body?.query, ...(accept === undefined ? {} : answers[accept]?.["x-example-query"]) };
        const exchange = exchangeOf(path, method, op, { ...exampleValues(op), ...query }, body, accept);
        const answer: Answer = await send(server.url, exchange);
        const name = `${op.operationId} ${exchange.method} ${exchange.path} ${body?.media ?? ""} ${accept ?? ""}`;
        seen.push(`${op.operationId} ${body?.media ?? accept ?? ""}`.trim());
        expect(check(path, method, answer), `${name}\n${answer.text.slice(0, 500)}`).toEqual([]);
        const notFound = NOT_FOUND[op.operationId];
        if (notFound !== undefined) {
          expect([answer.status, JSON.parse(answer.text).code], name).toEqual(notFound);
        } else {
          expect(answer.status, `${name}\n${answer.text.slice(0, 500)}`).toBe(200);
          if (accept !== undefined) expect(answer.contentType?.split(";")[0], name).toBe(accept);
        }
      }
    }
  }
  expect(new Set(seen.map((sent) => sent.split(" ")[0])).size).toBe(operations.length);
  expect(seen).toEqual(
    expect.arrayContaining([
      "importProduct application/json",
      "importProducts application/x-ndjson",
      "importCsv text/csv",
      "importCsv text/tab-separated-values",
      "importProducts text/csv",
      "importProducts text/tab-separated-values",
      "exportProducts text/csv",
      "exportProducts application/x-ndjson",
      "exportProducts text/tab-separated-values",
    ]),
  );
  expect(server.errors).toEqual([]);
});

it("the checker refuses an answer the document does not declare", async () => {
  const check = answerChecker(doc);
  const list = "/external/product/v1";
  const page = { products: [], nextCursor: null };
  expect(check(list, "get", { status: 200, contentType: "application/json", text: JSON.stringify(page) })).toEqual([]);
  expect(check(list, "get", { status: 200, contentType: "application/json", text: "{}" })).not.toEqual([]);
  expect(check(list, "get", { status: 200, contentType: "text/csv", text: "id\n" })).not.toEqual([]);
  expect(check(list, "get", { status: 418, contentType: "application/json", text: "{}" })).not.toEqual([]);
  const problem = { type: "urn:x", title: "t", status: 400, detail: "d", code: "NOPE", errors: [], errorCount: 0 };
  const text = JSON.stringify(problem);
  expect(check(list, "get", { status: 400, contentType: "application/problem+json", text })).not.toEqual([]);
});
