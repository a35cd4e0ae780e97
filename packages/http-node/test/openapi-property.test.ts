// Requests a schema-driven tester would make: for a few operations, parameter values drawn from
// the schemas /openapi.json publishes, sent to a real server. Every answer is one the document
// declares, and a request the document allows is not refused.
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  answerChecker,
  DEMO_TOKEN,
  type Document,
  exchangeOf,
  type Operation,
  parametersOf,
  type Schema,
  send,
  startDemoServer,
} from "./support/openapi-check.ts";

let server: Awaited<ReturnType<typeof startDemoServer>>;
let doc: Document;
let check: ReturnType<typeof answerChecker>;
beforeAll(async () => {
  server = await startDemoServer();
  doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as Document;
  check = answerChecker(doc);
});
afterAll(() => server.close());

// A value of a parameter's schema, as a query or path serializes it: the shapes the document's
// parameters have (an enum, a boolean, a bounded integer, a string with a pattern or a length).
function drawn(schema: Schema): fc.Arbitrary<string> {
  if (schema.enum !== undefined) return fc.constantFrom(...schema.enum.map(String));
  if (schema.type === "boolean") return fc.boolean().map(String);
  if (schema.type === "integer") {
    return fc.integer({ min: schema.minimum ?? -(2 ** 31), max: schema.maximum ?? 2 ** 31 }).map(String);
  }
  if (schema.type !== "string") throw new Error(`No arbitrary for the schema ${JSON.stringify(schema)}`);
  const minLength = schema.minLength ?? 0;
  if (schema.pattern !== undefined) {
    return fc.stringMatching(new RegExp(schema.pattern, "u")).filter((value) => value.length >= minLength);
  }
  return fc.string({ unit: "grapheme", minLength, maxLength: 40 });
}

// How a document is read: said of a platform's file only, with the body its example names (a
// product list or NDJSON takes none, as their descriptions say).
const READING = ["profile", "shopUrl", "currency", "decimal", "variants", "delimiter", "unknownColumns"];

// Every parameter of the operation, drawn from its schema; optional ones may be left out. The
// site is state, not schema (only configured sites exist): its parameters take their example,
// both or neither, as their descriptions ask. `without` names parameters left out.
function valuesOf(op: Operation, without: readonly string[] = []): fc.Arbitrary<Record<string, string | undefined>> {
  const params = parametersOf(doc, op).filter((param) => param.in !== "header" && !without.includes(param.name));
  const site = params.filter((param) => param.name === "siteId" || param.name === "siteType");
  const others = params.filter((param) => !site.includes(param));
  const siteValues = Object.fromEntries(site.map((param) => [param.name, String(param.example)]));
  const siteArb = site.every((param) => param.required)
    ? fc.constant(siteValues)
    : fc.constantFrom(siteValues, {} as Record<string, string>);
  const otherArb = fc.record(
    Object.fromEntries(
      others.map((param) => [
        param.name,
        param.required ? drawn(param.schema) : fc.option(drawn(param.schema), { nil: undefined }),
      ]),
    ),
  );
  return fc.tuple(siteArb, otherArb).map(([a, b]) => ({ ...a, ...b }));
}

function operation(path: string, method: string): Operation {
  const op = doc.paths[path]?.[method];
  if (op === undefined) throw new Error(`${method} ${path} is not in the document`);
  return op;
}

// Sends what `values` makes of the operation; the answer must be declared, and one of `allowed`.
async function exchange(
  path: string,
  method: string,
  values: Record<string, string | undefined>,
  allowed: (status: number, code: unknown) => boolean,
  body?: { readonly media: string; readonly text: string },
): Promise<void> {
  const op = operation(path, method);
  const sent = exchangeOf(path, method, op, values, body);
  const answer = await send(server.url, sent);
  const name = `${sent.method} ${sent.path} ${body?.media ?? ""}\n${answer.text.slice(0, 300)}`;
  expect(check(path, method, answer), name).toEqual([]);
  const code = answer.contentType === "application/problem+json" ? JSON.parse(answer.text).code : undefined;
  expect(allowed(answer.status, code), name).toBe(true);
}

const LIST = "/external/product/v1";
type Example = { example?: unknown; "x-example-query"?: Record<string, string> };
const ok = (status: number) => status === 200;

describe("requests drawn from the document's schemas", () => {
  it("listProducts: every page the parameters allow is answered", async () => {
    await fc.assert(
      fc.asyncProperty(valuesOf(operation(LIST, "get")), (values) => exchange(LIST, "get", values, ok)),
      { numRuns: 150 },
    );
  });

  it("getProduct, patchProduct and deleteProduct: any key is a product or PRODUCT_NOT_FOUND", async () => {
    const path = `${LIST}/{productId}`;
    const found = (status: number, code: unknown) => status === 200 || code === "PRODUCT_NOT_FOUND";
    for (const method of ["get", "patch", "delete"]) {
      const op = operation(path, method);
      // A patch is sent as its example, in each media type the document lists.
      const bodies = Object.entries((op.requestBody?.content ?? {}) as Record<string, Example>).map(
        ([media, { example }]) => ({ media, text: JSON.stringify(example) }),
      );
      const body = bodies.length === 0 ? fc.constant(undefined) : fc.constantFrom(...bodies);
      await fc.assert(
        fc.asyncProperty(valuesOf(op), body, (values, sent) => exchange(path, method, values, found, sent)),
        { numRuns: 100 },
      );
    }
  });

  // As the parameters' descriptions say: `missing` only with a merge, and a merge's records that
  // name no product (the site may not hold the example's yet) refused unless missing is skip or create.
  const imported = (values: Record<string, string | undefined>) => (status: number, code: unknown) => {
    if (values.missing !== undefined && values.mode !== "merge") return code === "VALIDATION_FAILED";
    const strict = values.mode === "merge" && (values.missing ?? "error") === "error";
    return ok(status) || (strict && code === "PRODUCT_NOT_FOUND");
  };

  it("importProducts and importCsv: the example bodies under any query are imported", async () => {
    for (const path of [`${LIST}/bulk`, `${LIST}/bulk/csv`]) {
      const op = operation(path, "post");
      const content = (op.requestBody?.content ?? {}) as Record<string, Example>;
      const bodies = Object.entries(content).map(([media, { example, "x-example-query": query }]) => ({
        media,
        text: typeof example === "string" ? example : JSON.stringify(example),
        query: query ?? {},
      }));
      await fc.assert(
        fc.asyncProperty(valuesOf(op, READING), fc.constantFrom(...bodies), (values, body) =>
          exchange(path, "post", { ...values, ...body.query }, imported(values), body),
        ),
        { numRuns: 100 },
      );
    }
  });

  it("importProducts: any reading parameter with a product list or NDJSON is refused, naming it", async () => {
    const path = `${LIST}/bulk`;
    const op = operation(path, "post");
    const params = parametersOf(doc, op).filter((param) => READING.includes(param.name));
    expect(params.map((param) => param.name).sort()).toEqual([...READING].sort());
    const content = (op.requestBody?.content ?? {}) as Record<string, Example>;
    const bodies = ["application/json", "application/x-ndjson"].map((media) => {
      const example = content[media]?.example;
      return { media, text: typeof example === "string" ? example : JSON.stringify(example) };
    });
    const param = fc.constantFrom(...params).chain((p) => drawn(p.schema).map((value) => [p.name, value] as const));
    await fc.assert(
      fc.asyncProperty(param, fc.constantFrom(...bodies), async ([name, value], body) => {
        const sent = exchangeOf(path, "post", op, { [name]: value }, body);
        const answer = await send(server.url, sent);
        expect(check(path, "post", answer)).toEqual([]);
        expect(answer.status).toBe(400);
        expect(JSON.parse(answer.text)).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ parameter: name }] });
      }),
      { numRuns: 40 },
    );
  });

  it("exportProducts: the site as a file, in a declared media type; a feed without a currency names it", async () => {
    const path = `${LIST}/bulk/export`;
    // The demo site names no currency: a feed needs the request's.
    const answered = (values: Record<string, string | undefined>) => (status: number, code: unknown) =>
      (values.profile === "google" || values.profile === "meta") && values.currency === undefined
        ? code === "VALIDATION_FAILED"
        : ok(status);
    await fc.assert(
      fc.asyncProperty(valuesOf(operation(path, "get")), (values) => exchange(path, "get", values, answered(values))),
      { numRuns: 30 },
    );
    expect(server.errors).toEqual([]);
  });
});

// A validator of one schema of the document, by its JSON pointer.
function validatorOf(at: string): (value: unknown) => boolean {
  const ajv = new Ajv2020({ strict: false, validateSchema: false });
  ajv.addSchema(doc as object, "doc");
  const validate = ajv.compile({ $ref: `doc#${at}` });
  return (value) => validate(value) === true;
}

const requestIdSchema = () => validatorOf("/components/parameters/requestId/schema");
const headers = (extra: Record<string, string> = {}) => ({ "x-service-access-token": DEMO_TOKEN, ...extra });

describe("the document allows what the server takes, and refuses what it refuses", () => {
  it("X-Request-Id: any value is taken (an unusable one replaced), so the document allows any", async () => {
    const valid = requestIdSchema();
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^[!-~]{1,200}$/), async (id) => {
        const answer = await send(server.url, {
          method: "GET",
          path: `${LIST}?siteId=demo&siteType=demo`,
          headers: headers({ "x-request-id": id }),
        });
        expect(answer.status, id).toBe(200);
        expect(valid(id), id).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it("ids and skus: the Product schema allows exactly the keys the server takes", async () => {
    const allows = validatorOf("/components/schemas/Product");
    let count = 0;
    const units = ["a", "Z", "0", "é", " ", "\t", "\n", "\u0001", "\u001f", "\u007f", "\u0085", "\u009f"];
    const spaces = ["\u00a0", "\u1680", "\u2003", "\u2028", "\u202f", "\u3000", "\ufeff"];
    const key = fc.array(fc.constantFrom(...units, ...spaces), { maxLength: 5 }).map((chars) => chars.join(""));
    await fc.assert(
      fc.asyncProperty(key, fc.constantFrom("id", "sku"), async (value, field) => {
        // The other key of its own, so that no product imported before holds it: only `value` can fail.
        const other = `key-${++count}`;
        const body = { product: { ...sampleImport(), id: other, sku: other, [field]: value } };
        const allowed = allows(body.product);
        const answer = await send(server.url, {
          method: "POST",
          path: `${LIST}?dryRun=true`,
          headers: headers({ "content-type": "application/json" }),
          body: JSON.stringify(body),
        });
        const said = `${field} ${JSON.stringify(value)}: ${answer.status} ${answer.text.slice(0, 200)}`;
        expect({ said, taken: answer.status === 200 }).toEqual({ said, taken: allowed });
      }),
      { numRuns: 300 },
    );
  });

  it("csvContent: an empty CSV is refused, and the document does not allow it", async () => {
    const csvRequest = validatorOf("/components/schemas/CsvImportRequest");
    const answer = await send(server.url, {
      method: "POST",
      path: `${LIST}/bulk/csv?dryRun=true`,
      headers: headers({ "content-type": "application/json" }),
      body: JSON.stringify({ csvContent: "" }),
    });
    expect(answer.status).toBe(400);
    expect(csvRequest({ csvContent: "" })).toBe(false);
  });

  it("cursor: its pattern alone allows no empty cursor, so a generator reading the pattern draws none", () => {
    const cursor = parametersOf(doc, operation(LIST, "get")).find((param) => param.name === "cursor");
    const pattern = new RegExp(cursor?.schema.pattern as string, "u");
    expect(pattern.test("")).toBe(false);
    expect(pattern.test("0")).toBe(false);
    expect(cursor?.schema.minLength).toBeUndefined();
  });
});

// The first product of the bulk example: valid, so that only the field under test can fail.
function sampleImport(): Record<string, unknown> {
  const example = operation(`${LIST}/bulk`, "post").requestBody?.content["application/json"]?.example as {
    products: Record<string, unknown>[];
  };
  return { ...example.products[0] };
}
