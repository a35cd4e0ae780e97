// The OpenAPI 3.1 document served at /openapi.json. It lints clean with Redocly's recommended
// rules (a test runs the linter), so it runs past 250 lines: splitting one document into
// fragments would make it harder to read against the linter's output.
import { PRODUCT_LIMITS, productJsonSchemas } from "@catalog-kit/catalog-core";
import { EXAMPLES } from "./openapi-examples.ts";
import { PROBLEM_STATUSES, RETRY_AFTER_SECONDS } from "./problem.ts";
import { API_PREFIX } from "./routes.ts";

/** What the OpenAPI document publishes besides the schemas. */
export interface OpenApiSettings {
  readonly maxBodyBytes: number;
  readonly maxProductsPerRequest: number;
  readonly notFoundStatus: 400 | 404;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object, example: unknown) => ({ "application/json": { schema, example } });
// Any `application/...+json` type is read as JSON too (see requireJson).
const jsonBody = (schema: object, example: unknown) => ({
  ...json(schema, example),
  "application/*+json": { schema, example },
});

const KEY_RULES =
  "An id or sku never contains control characters and never starts or ends with white space; " +
  "`price_min` must not be greater than `price_max`.";

function withoutDialect(schema: object): object {
  const { $schema: _, ...rest } = schema as Record<string, unknown>;
  return rest;
}

const siteFields = {
  siteId: {
    type: "string",
    minLength: 1,
    deprecated: true,
    description: "Site of the products (deprecated: the token's default site is used when both are omitted)",
  },
  siteType: {
    type: "string",
    minLength: 1,
    deprecated: true,
    description: "Type of the site (deprecated, see siteId)",
  },
};

function importRequest(field: string, schema: object) {
  return {
    type: "object",
    properties: { ...siteFields, [field]: schema },
    required: [field],
    additionalProperties: false,
  };
}

const siteQuery = ["siteId", "siteType"].map((name) => ({
  name,
  in: "query",
  required: true,
  schema: { type: "string", minLength: 1 },
  description: `${name} of the site to search in`,
  example: name === "siteId" ? "shop-1" : "shopify",
}));

const parameters = {
  productId: {
    name: "productId",
    in: "path",
    required: true,
    schema: { type: "string", minLength: 1 },
    description:
      "Reference id or sku of the product, percent-encoded once (`bulk` is a valid id here). " +
      "Ids and skus never hold control characters nor start or end with white space: such a key finds no product.",
    example: "tshirt-001",
  },
  by: {
    name: "by",
    in: "query",
    required: false,
    schema: { type: "string", enum: ["id", "sku"] },
    description: "Match only this field; without it the id is tried first, then the sku",
  },
  requestId: {
    name: "X-Request-Id",
    in: "header",
    required: false,
    schema: { type: "string", pattern: "^[A-Za-z0-9_.~:-]{1,128}$" },
    description: "Your id for the request, echoed back and logged; anything else is replaced by a generated id",
  },
  dryRun: {
    name: "dryRun",
    in: "query",
    required: false,
    schema: { type: "string", enum: ["true", "false"], default: "false" },
    description: "Run every check and count, write nothing",
  },
};

const REQUEST_ID_HEADER = { "X-Request-Id": { $ref: "#/components/headers/RequestId" } };

const problem = (description: string) => ({
  description,
  headers: REQUEST_ID_HEADER,
  content: { "application/problem+json": { schema: ref("Problem") } },
});

// No client error is sent here today; the range is listed so that clients handle one if it comes.
const reserved4xx = problem("No client error is sent by this operation today; any in future is problem+json");

const defaultProblem = {
  ...problem(
    "`NOT_FOUND` (404: no resource at the path), `METHOD_NOT_ALLOWED` (405, with the `Allow` header) or `INTERNAL_ERROR` (500)",
  ),
  headers: {
    ...REQUEST_ID_HEADER,
    Allow: { description: "On a 405: the methods the resource accepts", schema: { type: "string" }, example: "POST" },
  },
  content: { "application/problem+json": { schema: ref("Problem"), example: EXAMPLES.problem } },
};

/** Builds the OpenAPI 3.1 document, with product schemas generated from the catalog's own validation schemas. */
export function buildOpenApi(settings: OpenApiSettings): object {
  const { Product, ProductView } = productJsonSchemas();
  const notFound = String(settings.notFoundStatus);
  const limits = `Request bodies may hold at most ${settings.maxBodyBytes} bytes and ${settings.maxProductsPerRequest} products (or CSV rows).`;
  const common = {
    "401": problem("Access token missing or invalid (`UNAUTHORIZED`)"),
    "503": {
      ...problem("Storage unavailable (`STORAGE_UNAVAILABLE`)"),
      headers: { ...REQUEST_ID_HEADER, "Retry-After": { schema: { type: "integer", example: RETRY_AFTER_SECONDS } } },
    },
  };
  const importResponses = {
    "200": {
      description: "Products imported (or, with dryRun, checked and counted)",
      headers: {
        ...REQUEST_ID_HEADER,
        Deprecation: {
          description: "`true` when the request used the deprecated siteId/siteType body fields",
          schema: { type: "string" },
        },
      },
      content: json(ref("ImportSummary"), EXAMPLES.importSummary),
    },
    "400": problem(
      "`INVALID_JSON`, `VALIDATION_FAILED`, `INVALID_CSV`, `SITE_REQUIRED`, `SKU_CONFLICT`" +
        (notFound === "400" ? ", `SITE_NOT_FOUND`" : ""),
    ),
    ...(notFound === "404" ? { "404": problem("`SITE_NOT_FOUND`") } : {}),
    "408": problem("`REQUEST_TIMEOUT`: the body sent nothing for too long; the connection is closed"),
    "413": problem("`PAYLOAD_TOO_LARGE` or `TOO_MANY_PRODUCTS`; the body carries `limit` and `received`"),
    "415": problem("`UNSUPPORTED_MEDIA_TYPE`: the body must be application/json or application/*+json, in UTF-8"),
    ...common,
    default: defaultProblem,
  };
  const lookupResponses = (success: object) => ({
    "200": { ...success, headers: REQUEST_ID_HEADER },
    "400": problem("`VALIDATION_FAILED`" + (notFound === "400" ? ", `SITE_NOT_FOUND`, `PRODUCT_NOT_FOUND`" : "")),
    ...(notFound === "404" ? { "404": problem("`SITE_NOT_FOUND`, `PRODUCT_NOT_FOUND`") } : {}),
    ...common,
    default: defaultProblem,
  });
  const importOperation = (operationId: keyof typeof EXAMPLES, summary: string, schema: string, what: string) => ({
    operationId,
    summary,
    description: `Imports ${what} into the token's default site, or the site the deprecated siteId and siteType name. A product whose id exists is replaced. Every product is checked before anything is written: one invalid product, or one sku held by another id, and nothing is. ${KEY_RULES}`,
    tags: ["Import"],
    parameters: [{ $ref: "#/components/parameters/dryRun" }, { $ref: "#/components/parameters/requestId" }],
    requestBody: { required: true, content: jsonBody(ref(schema), EXAMPLES[operationId]) },
    responses: importResponses,
  });
  const productParameters = [
    { $ref: "#/components/parameters/productId" },
    ...siteQuery,
    { $ref: "#/components/parameters/by" },
    { $ref: "#/components/parameters/requestId" },
  ];
  const find = (key: string) => `The product whose id is ${key}, else the one whose sku is (unless \`by\` says which).`;
  // GET and DELETE on /bulk are the lookup of the key "bulk": the same operations, without productId.
  const lookup = (operationId: string, summary: string, description: string, onBulk: boolean) => ({
    operationId,
    summary,
    description,
    tags: ["Products"],
    parameters: onBulk ? productParameters.slice(1) : productParameters,
    responses: operationId.startsWith("get")
      ? lookupResponses({ description: "The product", content: json(ref("ProductView"), EXAMPLES.productView) })
      : lookupResponses({
          description: "The product was deleted",
          content: json(ref("DeleteResult"), EXAMPLES.deleteResult),
        }),
  });

  return {
    openapi: "3.1.0",
    info: {
      title: "catalog-kit product catalog",
      version: "1.0.0",
      license: { name: "MIT", identifier: "MIT" },
      description: `Imports, retrieves and deletes the products of a site. ${limits} Every error is an RFC 9457 problem+json body with a stable \`code\`.`,
    },
    security: [{ ServiceAccessToken: [] }],
    servers: [{ url: "/", description: "The server that serves this document" }],
    tags: [
      { name: "Import", description: "Create or replace products, one, a list, or CSV text at a time" },
      { name: "Products", description: "Retrieve or delete one product" },
      { name: "Service", description: "Health and this document; no token needed" },
    ],
    paths: {
      [API_PREFIX]: {
        post: importOperation("importProduct", "Import or modify one product", "SingleImportRequest", "one product"),
      },
      [`${API_PREFIX}/bulk`]: {
        post: importOperation(
          "importProducts",
          "Import or modify a list of products",
          "BulkImportRequest",
          `a list of products (at most ${settings.maxProductsPerRequest})`,
        ),
        get: lookup("getProductBulk", "Retrieve the product whose id or sku is bulk", find('"bulk"'), true),
        delete: lookup(
          "deleteProductBulk",
          "Delete the product whose id or sku is bulk",
          `Deletes the product GET would return and frees its sku. ${find('"bulk"')}`,
          true,
        ),
      },
      [`${API_PREFIX}/bulk/csv`]: {
        post: importOperation(
          "importCsv",
          "Import or modify products given as CSV text",
          "CsvImportRequest",
          `the products of a CSV document (at most ${settings.maxProductsPerRequest} rows)`,
        ),
      },
      [`${API_PREFIX}/{productId}`]: {
        get: lookup("getProduct", "Retrieve a product by reference id or sku", find("`productId`"), false),
        delete: lookup(
          "deleteProduct",
          "Delete a product by reference id or sku",
          `Deletes the product GET would return and frees its sku. ${find("`productId`")}`,
          false,
        ),
      },
      "/healthz": {
        get: {
          operationId: "health",
          summary: "Whether the storage answers",
          description: "200 when the storage answers, 503 when it does not. Needs no token.",
          tags: ["Service"],
          security: [],
          responses: {
            "200": {
              description: "Healthy",
              headers: REQUEST_ID_HEADER,
              content: json({ type: "object", properties: { status: { const: "ok" } } }, EXAMPLES.health),
            },
            "4XX": reserved4xx,
            "503": common["503"],
            default: defaultProblem,
          },
        },
      },
      "/openapi.json": {
        get: {
          operationId: "openapi",
          summary: "This document",
          description: "The OpenAPI 3.1 document of this server, with its configured limits. Needs no token.",
          tags: ["Service"],
          security: [],
          responses: {
            "200": {
              description: "OpenAPI 3.1",
              headers: REQUEST_ID_HEADER,
              content: json({ type: "object" }, EXAMPLES.openapi),
            },
            "4XX": reserved4xx,
            default: defaultProblem,
          },
        },
      },
    },
    components: {
      securitySchemes: { ServiceAccessToken: { type: "apiKey", in: "header", name: "X-Service-Access-Token" } },
      parameters,
      headers: {
        RequestId: {
          description: "The request's id: the client's X-Request-Id when valid, else a generated one",
          schema: { type: "string" },
        },
      },
      schemas: {
        Product: withoutDialect(Product),
        ProductView: withoutDialect(ProductView),
        BulkImportRequest: importRequest("products", {
          type: "array",
          items: ref("Product"),
          maxItems: settings.maxProductsPerRequest,
          description: KEY_RULES,
        }),
        CsvImportRequest: importRequest("csvContent", {
          type: "string",
          description: `CSV text: a header row of product field names, then one product per row. ${KEY_RULES}`,
        }),
        SingleImportRequest: importRequest("product", { ...ref("Product"), description: KEY_RULES }),
        ImportSummary: {
          type: "object",
          properties: {
            message: { type: "string" },
            total: { type: "integer", description: "Distinct ids in the request; created + updated + unchanged" },
            created: { type: "integer" },
            updated: { type: "integer" },
            unchanged: { type: "integer" },
            dryRun: { const: true, description: "Present when nothing was written" },
          },
          required: ["message", "total", "created", "updated", "unchanged"],
        },
        DeleteResult: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
        Problem: {
          type: "object",
          description: "RFC 9457 problem details",
          properties: {
            type: { type: "string", format: "uri" },
            title: { type: "string" },
            status: { type: "integer" },
            detail: { type: "string" },
            code: { enum: Object.keys(PROBLEM_STATUSES) },
            errors: {
              type: "array",
              maxItems: 100,
              items: {
                type: "object",
                properties: {
                  pointer: { type: "string", description: "JSON Pointer into the request body" },
                  row: { type: "integer", description: "CSV line on which the record starts (header = 1)" },
                  column: { type: "string", description: "CSV column (field name)" },
                  parameter: { type: "string", description: "Query or path parameter" },
                  message: { type: "string" },
                  sku: { type: "string" },
                  heldBy: { type: "string", description: "Id of the product that holds the sku" },
                },
                required: ["message"],
              },
            },
            errorCount: { type: "integer", description: "Number of problems found; errors lists at most 100" },
            instance: {
              type: "string",
              description: "`urn:catalog-kit:request:<id>`, with the id of the X-Request-Id response header",
            },
            limit: { type: "integer" },
            received: { type: "integer" },
          },
          required: ["type", "title", "status", "detail", "code", "errors", "errorCount"],
        },
      },
    },
    "x-limits": {
      ...PRODUCT_LIMITS,
      maxBodyBytes: settings.maxBodyBytes,
      maxProductsPerRequest: settings.maxProductsPerRequest,
    },
  };
}
