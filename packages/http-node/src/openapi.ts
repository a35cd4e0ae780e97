import { PRODUCT_LIMITS, productJsonSchemas } from "@catalog-kit/catalog-core";
import { PROBLEM_STATUSES, RETRY_AFTER_SECONDS } from "./problem.ts";
import { API_PREFIX } from "./routes.ts";

/** What the OpenAPI document publishes besides the schemas. */
export interface OpenApiSettings {
  readonly maxBodyBytes: number;
  readonly maxProductsPerRequest: number;
  readonly notFoundStatus: 400 | 404;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ "application/json": { schema } });

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
}));

const parameters = {
  productId: {
    name: "productId",
    in: "path",
    required: true,
    schema: { type: "string", minLength: 1 },
    description: "Reference id or sku of the product, percent-encoded once (`bulk` is a valid id here)",
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
      content: json(ref("ImportSummary")),
    },
    "400": problem(
      "`INVALID_JSON`, `VALIDATION_FAILED`, `INVALID_CSV`, `SITE_REQUIRED`, `SKU_CONFLICT`" +
        (notFound === "400" ? ", `SITE_NOT_FOUND`" : ""),
    ),
    ...(notFound === "404" ? { "404": problem("`SITE_NOT_FOUND`") } : {}),
    "408": problem("`REQUEST_TIMEOUT`: the body sent nothing for too long; the connection is closed"),
    "413": problem("`PAYLOAD_TOO_LARGE` or `TOO_MANY_PRODUCTS`; the body carries `limit` and `received`"),
    "415": problem("`UNSUPPORTED_MEDIA_TYPE`: the body must be application/json"),
    ...common,
  };
  const lookupResponses = (success: object) => ({
    "200": { ...success, headers: REQUEST_ID_HEADER },
    "400": problem("`VALIDATION_FAILED`" + (notFound === "400" ? ", `SITE_NOT_FOUND`, `PRODUCT_NOT_FOUND`" : "")),
    ...(notFound === "404" ? { "404": problem("`SITE_NOT_FOUND`, `PRODUCT_NOT_FOUND`") } : {}),
    ...common,
  });
  const importOperation = (operationId: string, summary: string, schema: string) => ({
    operationId,
    summary,
    parameters: [{ $ref: "#/components/parameters/dryRun" }, { $ref: "#/components/parameters/requestId" }],
    requestBody: { required: true, content: json(ref(schema)) },
    responses: importResponses,
  });
  const productParameters = [
    { $ref: "#/components/parameters/productId" },
    ...siteQuery,
    { $ref: "#/components/parameters/by" },
    { $ref: "#/components/parameters/requestId" },
  ];

  return {
    openapi: "3.1.0",
    info: {
      title: "catalog-kit product catalog",
      version: "1.0.0",
      description: `Imports, retrieves and deletes the products of a site. ${limits} Every error is an RFC 9457 problem+json body with a stable \`code\`.`,
    },
    security: [{ ServiceAccessToken: [] }],
    paths: {
      [API_PREFIX]: { post: importOperation("importProduct", "Import or modify one product", "SingleImportRequest") },
      [`${API_PREFIX}/bulk`]: {
        post: importOperation("importProducts", "Import or modify a list of products", "BulkImportRequest"),
      },
      [`${API_PREFIX}/bulk/csv`]: {
        post: importOperation("importCsv", "Import or modify products given as CSV text", "CsvImportRequest"),
      },
      [`${API_PREFIX}/{productId}`]: {
        get: {
          operationId: "getProduct",
          summary: "Retrieve a product by reference id or sku",
          parameters: productParameters,
          responses: lookupResponses({ description: "The product", content: json(ref("ProductView")) }),
        },
        delete: {
          operationId: "deleteProduct",
          summary: "Delete a product by reference id or sku",
          parameters: productParameters,
          responses: lookupResponses({ description: "The product was deleted", content: json(ref("DeleteResult")) }),
        },
      },
      "/healthz": {
        get: {
          operationId: "health",
          summary: "Whether the storage answers",
          security: [],
          responses: {
            "200": {
              description: "Healthy",
              content: json({ type: "object", properties: { status: { const: "ok" } } }),
            },
            "503": common["503"],
          },
        },
      },
      "/openapi.json": {
        get: {
          operationId: "openapi",
          summary: "This document",
          security: [],
          responses: { "200": { description: "OpenAPI 3.1", content: json({ type: "object" }) } },
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
        }),
        CsvImportRequest: importRequest("csvContent", {
          type: "string",
          description: "CSV text: a header row of product field names, then one product per row",
        }),
        SingleImportRequest: importRequest("product", ref("Product")),
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
