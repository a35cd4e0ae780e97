// The document's OpenAPI 3.1 `webhooks`: both events of an import's end, their three signature
// headers, and a payload schema that takes a record without its problems (a JSON Schema
// validator reads it as a receiver's generated code would).
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { buildOpenApi } from "../src/openapi.ts";

interface WebhookOperation {
  post: {
    operationId: string;
    parameters: { name: string; in: string; required: boolean; schema: { pattern: string } }[];
    requestBody: { content: { "application/json": { schema: object } } };
    responses: Record<string, object>;
  };
}

const document = buildOpenApi({ maxBodyBytes: 1_000, maxProductsPerRequest: 10, notFoundStatus: 400 }) as {
  webhooks: Record<string, WebhookOperation>;
};
const record = {
  importId: "01JDZ8Q4N6W3D2X0000000000A",
  siteId: "shop-1",
  siteType: "shopify",
  channel: "stream",
  format: "csv",
  mode: "upsert",
  dryRun: false,
  state: "succeeded",
  startedAt: "2026-11-29T10:00:00.000Z",
  endedAt: "2026-11-29T10:00:02.000Z",
  updatedAt: "2026-11-29T10:00:02.000Z",
  bytesReceived: 512,
  productsRead: 3,
  counts: { total: 3, created: 2, updated: 1, unchanged: 0 },
  problemCount: 1,
  tokenName: "feed",
};

describe("the document's webhooks", () => {
  it("describes import.succeeded and import.failed, each with the three Standard Webhooks headers", () => {
    expect(Object.keys(document.webhooks)).toEqual(["import.succeeded", "import.failed"]);
    for (const operation of Object.values(document.webhooks)) {
      expect(operation.post.parameters.map(({ name, in: where, required }) => [name, where, required])).toEqual([
        ["webhook-id", "header", true],
        ["webhook-timestamp", "header", true],
        ["webhook-signature", "header", true],
      ]);
      expect(Object.keys(operation.post.responses)).toEqual(["200", "410"]);
    }
    const [, , signature] = document.webhooks["import.succeeded"]?.post.parameters ?? [];
    const pattern = new RegExp(signature?.schema.pattern ?? "");
    expect(
      pattern.test(`v1,${Buffer.alloc(32, 1).toString("base64")} v1,${Buffer.alloc(32, 2).toString("base64")}`),
    ).toBe(true);
    expect(pattern.test("v1a,abc")).toBe(false);
  });

  it("takes a record without problems as the payload's data, in its event's state only", () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    const validate = (type: string) =>
      ajv.compile(document.webhooks[type]?.post.requestBody.content["application/json"].schema ?? {});
    const succeeded = validate("import.succeeded");
    const failed = validate("import.failed");
    const body = { type: "import.succeeded", timestamp: record.endedAt, data: record };
    expect(succeeded(body), JSON.stringify(succeeded.errors)).toBe(true);
    const failure = { ...record, state: "failed", error: { code: "VALIDATION_FAILED", message: "bad rows" } };
    expect(failed({ type: "import.failed", timestamp: record.endedAt, data: failure })).toBe(true);
    expect(failed(body)).toBe(false);
    expect(succeeded({ ...body, data: { ...record, state: "failed" } })).toBe(false);
    const { importId: _, ...withoutId } = record;
    expect(succeeded({ ...body, data: withoutId })).toBe(false);
  });
});
