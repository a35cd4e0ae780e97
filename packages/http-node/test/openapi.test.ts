import { productJsonSchemas } from "@catalog-kit/catalog-core";
import { describe, expect, it } from "vitest";
import manifest from "../package.json" with { type: "json" };
import { buildOpenApi } from "../src/openapi.ts";
import { EXAMPLES } from "../src/openapi-examples.ts";
import { PROBLEM_STATUSES } from "../src/problem.ts";

type Doc = {
  openapi: string;
  info: { version: string };
  paths: Record<
    string,
    Record<string, { operationId: string; responses: Record<string, unknown>; security?: unknown[] }>
  >;
  components: {
    schemas: Record<string, Record<string, unknown>>;
    securitySchemes: Record<string, unknown>;
    parameters: Record<string, unknown>;
  };
  "x-limits": Record<string, number>;
};

const doc = buildOpenApi({ maxBodyBytes: 1234, maxProductsPerRequest: 56, notFoundStatus: 400 }) as Doc;

function refs(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refs(item, found);
  else if (typeof value === "object" && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      if (key === "$ref" && typeof inner === "string") found.push(inner);
      else refs(inner, found);
    }
  }
  return found;
}

describe("the OpenAPI document", () => {
  it("is OpenAPI 3.1 with the five product operations under the token security scheme", () => {
    expect(doc.openapi).toBe("3.1.0");
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
    );
    expect(operations).toEqual(
      expect.arrayContaining([
        "POST /external/product/v1 importProduct",
        "POST /external/product/v1/bulk importProducts",
        "POST /external/product/v1/bulk/csv importCsv",
        "GET /external/product/v1/{productId} getProduct",
        "DELETE /external/product/v1/{productId} deleteProduct",
      ]),
    );
    expect(doc.components.securitySchemes.ServiceAccessToken).toMatchObject({
      type: "apiKey",
      in: "header",
      name: "X-Service-Access-Token",
    });
    expect(doc.paths["/healthz"]?.get?.security).toEqual([]);
  });

  it("carries the package's version, in the document and in its own example", () => {
    expect(doc.info.version).toBe(manifest.version);
    expect(EXAMPLES.openapi.info.version).toBe(manifest.version);
  });

  it("shows distinct products in the bulk example: each its own title and URL", () => {
    const products = EXAMPLES.importProducts.products;
    for (const field of ["id", "sku", "title", "url", "featured_image"] as const)
      expect(new Set(products.map((p) => p[field])).size, field).toBe(products.length);
  });

  it("publishes the product schemas generated from the validation schemas, not written by hand", () => {
    const { Product, ProductView } = productJsonSchemas() as Record<string, Record<string, unknown>>;
    const { $schema: _p, ...product } = Product as Record<string, unknown>;
    const { $schema: _v, ...view } = ProductView as Record<string, unknown>;
    expect(doc.components.schemas.Product).toEqual(product);
    expect(doc.components.schemas.ProductView).toEqual(view);
  });

  it("publishes every problem code, the limits, and has no dangling $ref", () => {
    const problem = doc.components.schemas.Problem as { properties: { code: { enum: string[] } } };
    expect(problem.properties.code.enum.sort()).toEqual(Object.keys(PROBLEM_STATUSES).sort());
    expect(doc["x-limits"]).toMatchObject({ maxBodyBytes: 1234, maxProductsPerRequest: 56 });
    const bulk = doc.components.schemas.BulkImportRequest as { properties: { products: { maxItems: number } } };
    expect(bulk.properties.products.maxItems).toBe(56);
    for (const ref of refs(doc)) {
      const [, section, name] = /^#\/components\/(\w+)\/(.+)$/.exec(ref) ?? [];
      expect(
        (doc.components as Record<string, Record<string, unknown>>)[section as string]?.[name as string],
        ref,
      ).toBeDefined();
    }
  });

  it("documents the raw bodies the bulk imports take, their site parameters and their limits", () => {
    type Operation = { requestBody: { content: Record<string, unknown> }; parameters: { name?: string }[] };
    const bulk = doc.paths["/external/product/v1/bulk"]?.post as unknown as Operation;
    const csv = doc.paths["/external/product/v1/bulk/csv"]?.post as unknown as Operation;
    const single = doc.paths["/external/product/v1"]?.post as unknown as Operation;
    expect(Object.keys(bulk.requestBody.content)).toEqual(
      expect.arrayContaining(["application/json", "application/x-ndjson", "application/jsonl"]),
    );
    expect(Object.keys(csv.requestBody.content)).toEqual(expect.arrayContaining(["application/json", "text/csv"]));
    expect(Object.keys(single.requestBody.content)).not.toContain("text/csv");
    for (const op of [bulk, csv]) {
      expect(op.parameters.map((p) => p.name)).toEqual(expect.arrayContaining(["siteId", "siteType"]));
      // A coding belongs to the body: as a parameter, generic clients send it with plain bodies.
      expect(op.parameters.map((p) => p.name)).not.toContain("Content-Encoding");
      expect((op.requestBody as { description?: string }).description).toContain("Content-Encoding: gzip");
    }
    expect(doc["x-limits"]).toMatchObject({ maxStreamBytes: 1_073_741_824, maxProductsPerStream: 10_000_000 });
    for (const op of [bulk, csv]) expect(JSON.stringify(op.parameters)).toContain("#/components/parameters/mode");
  });

  it("documents how a document is read: the reading parameters, the feed body types, and their examples", () => {
    type Media = { example?: unknown; "x-example-query"?: Record<string, string> };
    type Operation = { requestBody: { content: Record<string, Media> }; parameters: { $ref?: string }[] };
    const reading = ["profile", "shopUrl", "currency", "decimal", "variants", "delimiter", "unknownColumns"];
    const components = doc.components.parameters as Record<string, { description?: string; schema?: object }>;
    const bulk = doc.paths["/external/product/v1/bulk"]?.post as unknown as Operation;
    const csv = doc.paths["/external/product/v1/bulk/csv"]?.post as unknown as Operation;
    const single = doc.paths["/external/product/v1"]?.post as unknown as Operation;
    for (const name of reading) {
      expect(components[name]?.description, name).toBeTruthy();
      for (const op of [bulk, csv]) expect(JSON.stringify(op.parameters)).toContain(`#/components/parameters/${name}`);
      expect(JSON.stringify(single.parameters)).not.toContain(`#/components/parameters/${name}`);
    }
    expect(components.profile?.schema).toMatchObject({ enum: ["native", "shopify", "woocommerce", "google", "meta"] });
    expect(components.variants?.schema).toMatchObject({ enum: ["groups", "items"] });
    expect(components.decimal?.schema).toMatchObject({ enum: [".", ","] });
    expect(components.delimiter?.schema).toMatchObject({ enum: [",", ";", "\t", "|"] });
    expect(components.unknownColumns?.schema).toMatchObject({ enum: ["refuse", "ignore"] });
    const xml = ["application/xml", "text/xml", "application/rss+xml", "application/atom+xml"];
    expect(Object.keys(bulk.requestBody.content)).toEqual(
      expect.arrayContaining(["text/csv", "text/tab-separated-values", ...xml]),
    );
    expect(Object.keys(csv.requestBody.content)).toEqual(expect.arrayContaining(["text/tab-separated-values"]));
    for (const type of xml) expect(Object.keys(csv.requestBody.content)).not.toContain(type);
    const shopify = bulk.requestBody.content["text/csv"];
    expect(shopify?.example).toMatch(/^Handle,Title,Body \(HTML\)/);
    expect(shopify?.["x-example-query"]).toEqual({ profile: "shopify", shopUrl: "https://shop.example" });
    expect(bulk.requestBody.content["text/tab-separated-values"]?.["x-example-query"]).toMatchObject({
      profile: "google",
    });
    // Each XML type shows a document of its own kind: Atom's is a feed of entries.
    for (const type of ["application/xml", "text/xml", "application/rss+xml"]) {
      expect(bulk.requestBody.content[type]?.example, type).toMatch(/<rss /);
    }
    expect(bulk.requestBody.content["application/atom+xml"]?.example).toMatch(
      /<feed xmlns="http:\/\/www\.w3\.org\/2005\/Atom"[\s\S]*<entry>/,
    );
    expect(doc.components.schemas.ImportSummary).toMatchObject({
      properties: { profile: { type: "string" }, ignoredColumns: { type: "array" } },
    });
  });

  it("documents the list with its page schema only, and the export formats as an operation of their own", () => {
    const list = doc.paths["/external/product/v1"]?.get as unknown as {
      operationId: string;
      parameters: { name?: string }[];
      responses: { "200": { content: Record<string, unknown> } };
    };
    expect(list.operationId).toBe("listProducts");
    expect(list.parameters.map((p) => p.name)).toEqual(
      expect.arrayContaining(["siteId", "siteType", "limit", "cursor"]),
    );
    expect(Object.keys(list.responses["200"].content)).toEqual(["application/json"]);
    expect(doc.components.schemas.ProductPage).toMatchObject({ required: ["products", "nextCursor"] });
    const exported = doc.paths["/external/product/v1/bulk/export"]?.get as unknown as typeof list;
    expect(exported.operationId).toBe("exportProducts");
    expect(exported.parameters.map((p) => p.name)).toEqual(["siteId", "siteType", "profile", "currency", undefined]);
    expect(Object.keys(exported.responses["200"].content)).toEqual([
      "text/csv",
      "application/x-ndjson",
      "text/tab-separated-values",
    ]);
    const profile = exported.parameters.find((p) => p.name === "profile") as { schema?: { enum?: string[] } };
    expect(profile.schema?.enum).toEqual(["native", "google", "meta"]);
  });

  it("lists not-found answers under the configured status", () => {
    const strict = buildOpenApi({ maxBodyBytes: 1, maxProductsPerRequest: 1, notFoundStatus: 404 }) as Doc;
    expect(strict.paths["/external/product/v1/{productId}"]?.get?.responses).toHaveProperty("404");
    expect(doc.paths["/external/product/v1/{productId}"]?.get?.responses).not.toHaveProperty("404");
  });

  it("documents every operation with tags, a description, examples, a default problem and the Allow header", () => {
    type Operation = {
      tags?: string[];
      description?: string;
      requestBody?: { content: Record<string, { example?: unknown }> };
      responses: Record<string, { content?: Record<string, { example?: unknown }>; headers?: Record<string, unknown> }>;
    };
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item as Record<string, Operation>).map(([method, op]) => [`${method} ${path}`, op] as const),
    );
    expect(operations.map(([name]) => name)).toEqual(
      expect.arrayContaining(["get /external/product/v1/bulk", "delete /external/product/v1/bulk"]),
    );
    for (const [name, op] of operations) {
      expect(op.tags?.length, name).toBeGreaterThan(0);
      expect(op.description, name).toBeTruthy();
      for (const media of Object.values(op.requestBody?.content ?? {})) expect(media.example, name).toBeDefined();
      if (op.requestBody !== undefined) expect(Object.keys(op.requestBody.content)).toContain("application/*+json");
      const answers = Object.values((op.responses["200"] ?? op.responses["201"])?.content ?? {});
      expect(answers.length, name).toBeGreaterThan(0);
      for (const media of answers) expect(media.example, name).toBeDefined();
      expect(op.responses.default?.headers, name).toHaveProperty("Allow");
    }
  });
});
