// The OpenAPI 3.1 document served at /openapi.json: its paths and operations. The components
// they refer to are in openapi-components.ts, the examples in openapi-examples.ts; a test lints
// the whole with Redocly's recommended rules.
import { DEFAULT_MAX_STREAM_PRODUCTS, LIST_LIMIT, PRODUCT_LIMITS } from "@catalog-kit/catalog-core";
import { DEFAULT_MAX_STREAM_BYTES } from "./body-stream.ts";
import { json, KEY_RULES, openApiComponents, problem, REQUEST_ID_HEADER, ref } from "./openapi-components.ts";
import { EXAMPLES } from "./openapi-examples.ts";
import { RETRY_AFTER_SECONDS } from "./problem.ts";
import { API_PREFIX } from "./routes.ts";

/** What the OpenAPI document publishes besides the schemas. */
export interface OpenApiSettings {
  readonly maxBodyBytes: number;
  readonly maxProductsPerRequest: number;
  /** Limits of raw (streamed) CSV and NDJSON bodies; the defaults when not given. */
  readonly maxStreamBytes?: number;
  readonly maxProductsPerStream?: number;
  readonly notFoundStatus: 400 | 404;
}

// Any `application/...+json` type is read as JSON too (see requireJson).
const jsonBody = (schema: object, example: unknown) => ({
  ...json(schema, example),
  "application/*+json": { schema, example },
});

// The site of a raw body: both given, or neither (the token's default site).
const rawSiteQuery = ["siteId", "siteType"].map((name) => ({
  name,
  in: "query",
  required: false,
  schema: { type: "string", minLength: 1 },
  description: `For a raw CSV or NDJSON body: ${name} of the site to import into (give both siteId and siteType, or neither for the token's default site). JSON envelopes name their site in the body.`,
  example: name === "siteId" ? "shop-1" : "shopify",
}));

const contentEncoding = {
  name: "Content-Encoding",
  in: "header",
  required: false,
  schema: { type: "string", enum: ["gzip", "identity"] },
  description:
    "`gzip` for a compressed body, on every import. The size limits apply to the bytes received and to the bytes decoded; decoding stops as soon as a limit is passed.",
};

const NDJSON_EXAMPLE =
  '{"id":"p1","sku":"MUG-1","title":"Blue mug","available":true,"featured_image":"https://img.example/p1.png","url":"https://shop.example/p1"}\n{"id":"p2","sku":"MUG-2","title":"Red mug","available":true,"featured_image":"https://img.example/p2.png","url":"https://shop.example/p2"}\n';
const CSV_EXAMPLE =
  "id,sku,title,available,featured_image,url\np1,MUG-1,Blue mug,true,https://img.example/p1.png,https://shop.example/p1\n";

const siteQuery = ["siteId", "siteType"].map((name) => ({
  name,
  in: "query",
  required: true,
  schema: { type: "string", minLength: 1 },
  description: `${name} of the site to search in`,
  example: name === "siteId" ? "shop-1" : "shopify",
}));

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
  const notFound = String(settings.notFoundStatus);
  const maxStreamBytes = settings.maxStreamBytes ?? DEFAULT_MAX_STREAM_BYTES;
  const maxStreamProducts = settings.maxProductsPerStream ?? DEFAULT_MAX_STREAM_PRODUCTS;
  const limits = `JSON request bodies may hold at most ${settings.maxBodyBytes} bytes and ${settings.maxProductsPerRequest} products (or CSV rows); raw CSV and NDJSON bodies, streamed, at most ${maxStreamBytes} bytes and ${maxStreamProducts} products.`;
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
      "`INVALID_JSON`, `INVALID_ENCODING`, `VALIDATION_FAILED`, `INVALID_CSV`, `SITE_REQUIRED`, `SKU_CONFLICT`" +
        (notFound === "400" ? ", `SITE_NOT_FOUND`" : ""),
    ),
    ...(notFound === "404" ? { "404": problem("`SITE_NOT_FOUND`") } : {}),
    "408": problem("`REQUEST_TIMEOUT`: the body sent nothing for too long; the connection is closed"),
    "413": problem("`PAYLOAD_TOO_LARGE` or `TOO_MANY_PRODUCTS`; the body carries `limit` and `received`"),
    "415": problem(
      "`UNSUPPORTED_MEDIA_TYPE`: the body must be of a media type the operation lists, in UTF-8, and its Content-Encoding gzip or none",
    ),
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
  // `raw`: the raw body an operation also takes, streamed (see body-stream.ts).
  const importOperation = (
    operationId: keyof typeof EXAMPLES,
    summary: string,
    schema: string,
    what: string,
    raw?: { readonly types: readonly string[]; readonly example: string; readonly what: string },
  ) => ({
    operationId,
    summary,
    description:
      `Imports ${what} into the token's default site, or the site the deprecated siteId and siteType name. A product whose id exists is replaced. Every product is checked before anything is written: one invalid product, or one sku held by another id, and nothing is. ${KEY_RULES}` +
      (raw === undefined
        ? ""
        : ` The body may instead be ${raw.what} (${raw.types.join(" or ")}), streamed: decoded, checked and staged while it arrives, up to ${maxStreamBytes} bytes and ${maxStreamProducts} products, with the same promises (nothing is visible until the whole body has arrived and every product is valid; problems are located by ${raw.types[0] === "text/csv" ? "row and column" : "`line` and a `pointer` into that line's product"}). Its site is in the query.`),
    tags: ["Import"],
    parameters: [
      { $ref: "#/components/parameters/dryRun" },
      ...(raw === undefined
        ? []
        : [{ $ref: "#/components/parameters/mode" }, { $ref: "#/components/parameters/allowEmpty" }]),
      { $ref: "#/components/parameters/requestId" },
      contentEncoding,
      ...(raw === undefined ? [] : rawSiteQuery),
    ],
    requestBody: {
      required: true,
      content: {
        ...jsonBody(ref(schema), EXAMPLES[operationId]),
        ...Object.fromEntries(
          (raw?.types ?? []).map((type) => [
            type,
            { schema: { type: "string", description: raw?.what }, example: raw?.example },
          ]),
        ),
      },
    },
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
  // Retrieve and delete of one key: `suffix` names the operations, `what` the product.
  const lookups = (suffix: string, what: string, key: string, onBulk: boolean) => ({
    get: lookup(`getProduct${suffix}`, `Retrieve ${what}`, find(key), onBulk),
    delete: lookup(
      `deleteProduct${suffix}`,
      `Delete ${what}`,
      `Deletes the product GET would return and frees its sku. ${find(key)}`,
      onBulk,
    ),
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
        get: {
          operationId: "listProducts",
          summary: "List a site's products, or export them all",
          description:
            "A page of the site's products in id order (by code point), in the retrieval shape. Walking the cursors returns every product that exists for the whole walk exactly once, whatever is written meanwhile; products written during the walk may or may not appear. With `Accept: text/csv` or `Accept: application/x-ndjson`, the answer is instead every product of the site as full Product Objects in the import formats (CSV with the spec's header, or one product a line), streamed: importing it back gives the same products (an empty description excepted in CSV, which cannot tell it from none). `limit` and `cursor` are for pages only.",
          tags: ["Products"],
          parameters: [
            ...siteQuery,
            {
              name: "limit",
              in: "query",
              required: false,
              schema: { type: "integer", minimum: 1, maximum: LIST_LIMIT.max, default: LIST_LIMIT.default },
              description: "Products per page",
            },
            {
              name: "cursor",
              in: "query",
              required: false,
              schema: { type: "string", minLength: 1 },
              description: "The `nextCursor` of the page before",
            },
            { $ref: "#/components/parameters/requestId" },
          ],
          responses: {
            ...lookupResponses({
              description: "A page, or the whole site as a CSV or NDJSON file",
              content: {
                ...json(ref("ProductPage"), EXAMPLES.productPage),
                "text/csv": { schema: { type: "string" }, example: CSV_EXAMPLE },
                "application/x-ndjson": { schema: { type: "string" }, example: NDJSON_EXAMPLE },
              },
            }),
          },
        },
        post: importOperation("importProduct", "Import or modify one product", "SingleImportRequest", "one product"),
      },
      [`${API_PREFIX}/bulk`]: {
        post: importOperation(
          "importProducts",
          "Import or modify a list of products",
          "BulkImportRequest",
          `a list of products (at most ${settings.maxProductsPerRequest})`,
          {
            types: ["application/x-ndjson", "application/jsonl"],
            example: NDJSON_EXAMPLE,
            what: "NDJSON: one Product Object per line, blank lines skipped",
          },
        ),
        ...lookups("Bulk", "the product whose id or sku is bulk", '"bulk"', true),
      },
      [`${API_PREFIX}/bulk/csv`]: {
        post: importOperation(
          "importCsv",
          "Import or modify products given as CSV text",
          "CsvImportRequest",
          `the products of a CSV document (at most ${settings.maxProductsPerRequest} rows)`,
          {
            types: ["text/csv"],
            example: CSV_EXAMPLE,
            what: "the CSV document itself, by the same rules as csvContent",
          },
        ),
      },
      [`${API_PREFIX}/{productId}`]: lookups("", "a product by reference id or sku", "`productId`", false),
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
    components: openApiComponents(settings.maxProductsPerRequest),
    "x-limits": {
      ...PRODUCT_LIMITS,
      maxBodyBytes: settings.maxBodyBytes,
      maxProductsPerRequest: settings.maxProductsPerRequest,
      maxStreamBytes,
      maxProductsPerStream: maxStreamProducts,
    },
  };
}
