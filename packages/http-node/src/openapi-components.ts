// The components of the OpenAPI document: parameters, headers and schemas, the product schemas
// generated from the catalog's own validation schemas; and the helpers the operations share.
import { productJsonSchemas, SCOPES } from "@catalog-kit/catalog-core";
import { ADMIN_SCHEMAS } from "./openapi-admin.ts";
import { HISTORY_SCHEMAS } from "./openapi-history.ts";
import { RATE_LIMIT_HEADER_COMPONENTS } from "./openapi-rate-limits.ts";
import { READING_PARAMETERS } from "./openapi-reading.ts";
import { PROBLEM_STATUSES } from "./problem.ts";

/** A reference to a schema of the document's components. */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** An `application/json` content with its schema and example. */
export const json = (schema: object, example: unknown) => ({ "application/json": { schema, example } });
/** The product rules JSON Schema cannot say, in words (the catalog enforces them). */
export const KEY_RULES =
  "An id or sku never contains control characters and never starts or ends with white space (its pattern); " +
  "`price_min` must not be greater than `price_max`.";

/** A generated JSON Schema without its `$schema`: the document names its dialect once. */
export const IMPORT_ID_PROPERTY = {
  type: "string",
  description:
    "The import's id in its site's history: `GET /external/product/v1/imports/{importId}` answers its record, `.../problems` its whole problem report",
};

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
    // Any value is taken: the server never refuses a request for its id, so the schema says none.
    schema: { type: "string" },
    description:
      "Your id for the request, echoed back, logged and named in problems when it is 1 to 128 letters, digits and `_ . ~ : -`; any other value is accepted and replaced by a generated id",
  },
  mode: {
    name: "mode",
    in: "query",
    required: false,
    schema: { type: "string", enum: ["upsert", "replace", "merge"], default: "upsert" },
    description:
      "`replace`: the request is the site's whole catalog; the site's other products are deleted in the same all-or-nothing step, their skus freed, and counted in `deleted`. `merge`: each record names a product by `id`, else by `sku`, and changes only the fields it carries (`null` removes an optional field in JSON and NDJSON; an empty CSV cell leaves the field as it is; a CSV header may be any columns that include `id` or `sku`); the products it does not name are left as they are",
  },
  missing: {
    name: "missing",
    in: "query",
    required: false,
    schema: { type: "string", enum: ["error", "skip", "create"], default: "error" },
    description:
      "With mode=merge only (else 400 naming `missing`): what a record that names no product of the site does. `error`: a located problem with `code` `PRODUCT_NOT_FOUND`, and nothing is written; `skip`: it is counted in `skipped` (its key in `skippedKeys`); `create`: it is created, and must then be a whole product",
  },
  allowEmpty: {
    name: "allowEmpty",
    in: "query",
    required: false,
    schema: { type: "boolean", default: false },
    description: "A replace with no products would empty the site: it is refused unless this is true",
  },
  dryRun: {
    name: "dryRun",
    in: "query",
    required: false,
    schema: { type: "boolean", default: false },
    description: "Run every check and count, write nothing",
  },
  ...READING_PARAMETERS,
  ifNoneMatch: {
    name: "If-None-Match",
    in: "header",
    required: false,
    schema: { type: "string" },
    example: '"3x0sQm1Hq3yXw2n8dVb6pTzKf0a"',
    description:
      "`*`, or a comma-separated list of entity tags (an `ETag` the server gave, `W/` allowed): when one names the product's current copy (weak comparison), the answer is 304 with the `ETag` and no body. A malformed value is 400 naming the header.",
  },
  ifMatch: {
    name: "If-Match",
    in: "header",
    required: false,
    schema: { type: "string" },
    example: '"3x0sQm1Hq3yXw2n8dVb6pTzKf0a"',
    description:
      '`*`, or a comma-separated list of entity tags: the request is applied only while the stored product is one of them (strong comparison: a weak tag `W/"..."` never matches), checked atomically with the write; otherwise 412 `PRECONDITION_FAILED` and nothing is written. A malformed value is 400 naming the header.',
  },
};

/** The `X-Request-Id` header every answer carries. */
export const REQUEST_ID_HEADER = { "X-Request-Id": { $ref: "#/components/headers/RequestId" } };

/** The `ETag` header of an answer about one product. */
export const ETAG_HEADER = { ETag: { $ref: "#/components/headers/ETag" } };

/** A problem+json response, with the request id header. */
export const problem = (description: string) => ({
  description,
  headers: REQUEST_ID_HEADER,
  content: { "application/problem+json": { schema: ref("Problem") } },
});

/**
 * The body of a PATCH, made from the product's schema: every field optional, each optional one
 * nullable (`null` removes it, RFC 7396), the required ones never null.
 */
function patchSchema(product: object): object {
  const { properties, required } = product as { properties: Record<string, object>; required: string[] };
  const fields = Object.entries(properties).map(([name, schema]) => [
    name,
    required.includes(name) ? schema : { anyOf: [schema, { type: "null" }], description: "`null` removes it" },
  ]);
  return {
    type: "object",
    description: `A JSON Merge Patch (RFC 7396) of a product: the fields it carries replace the stored ones, \`null\` removes an optional field, the others are left as they are; the result must be a valid product. \`id\` may be given only as the product's own. ${KEY_RULES}`,
    properties: Object.fromEntries(fields),
    additionalProperties: false,
  };
}

/** The document's components; the bulk schema carries the product limit. */
export function openApiComponents(maxProductsPerRequest: number): object {
  const { Product, ProductView } = productJsonSchemas();
  return {
    securitySchemes: {
      ServiceAccessToken: {
        type: "apiKey",
        in: "header",
        name: "X-Service-Access-Token",
        description:
          "A token has scopes, and each operation needs one (its `x-required-scope`): `read` (GET a product, list, export), `import` (imports, merges, patches), `delete` (delete a product), `admin` (the admin API). A token lacking it gets 403 `FORBIDDEN` naming it. Tokens of the configuration file that list no scopes have every scope but `admin`.",
      },
    },
    parameters,
    headers: {
      RequestId: {
        description: "The request's id: the client's X-Request-Id when valid, else a generated one",
        schema: { type: "string" },
      },
      ...RATE_LIMIT_HEADER_COMPONENTS,
      ETag: {
        description:
          "The strong entity tag of the stored product: the same in every view, changed by any change of any field; send it back in `If-Match` (PATCH, DELETE) or `If-None-Match` (GET)",
        schema: { type: "string" },
      },
    },
    schemas: {
      ...ADMIN_SCHEMAS,
      ...HISTORY_SCHEMAS,
      Product: withoutDialect(Product),
      ProductView: withoutDialect(ProductView),
      BulkImportRequest: importRequest("products", {
        type: "array",
        items: ref("Product"),
        maxItems: maxProductsPerRequest,
        description: KEY_RULES,
      }),
      CsvImportRequest: importRequest("csvContent", {
        type: "string",
        minLength: 1,
        description: `CSV text: a header row of product field names, then one product per row. ${KEY_RULES}`,
      }),
      SingleImportRequest: importRequest("product", { ...ref("Product"), description: KEY_RULES }),
      ProductPatch: patchSchema(withoutDialect(Product)),
      ImportSummary: {
        type: "object",
        properties: {
          message: { type: "string" },
          total: { type: "integer", description: "Distinct ids in the request; created + updated + unchanged" },
          created: { type: "integer" },
          updated: { type: "integer" },
          unchanged: { type: "integer" },
          deleted: { type: "integer", description: "With mode=replace: the site's products the request did not name" },
          skipped: {
            type: "integer",
            description: "With mode=merge: the records that named no product (with missing=skip; 0 otherwise)",
          },
          skippedKeys: {
            type: "array",
            items: { type: "string" },
            maxItems: 100,
            description: "With mode=merge: the id (or sku) of the first 100 records skipped, in request order",
          },
          dryRun: { const: true, description: "Present when nothing was written" },
          profile: {
            type: "string",
            description: "The profile the document was read with, when the request named one (or unknownColumns)",
          },
          ignoredColumns: {
            type: "array",
            items: { type: "string" },
            description: "With profile: the document's columns the catalog does not keep, in the order met",
          },
          importId: IMPORT_ID_PROPERTY,
        },
        required: ["message", "total", "created", "updated", "unchanged"],
      },
      ProductPage: {
        type: "object",
        properties: {
          products: { type: "array", items: ref("ProductView"), description: "In id order (by code point)" },
          nextCursor: {
            type: ["string", "null"],
            description: "The `cursor` of the next page; null after the last",
          },
        },
        required: ["products", "nextCursor"],
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
          code: { type: "string", enum: Object.keys(PROBLEM_STATUSES) },
          errors: {
            type: "array",
            maxItems: 100,
            items: {
              type: "object",
              properties: {
                pointer: { type: "string", description: "JSON Pointer into the request body" },
                row: { type: "integer", description: "CSV or TSV line on which the record starts (header = 1)" },
                column: { type: "string", description: "CSV or TSV column (a field name, or the platform's column)" },
                line: {
                  type: "integer",
                  description: "NDJSON line (1-based) of a raw body; `pointer` then points into that line's product",
                },
                item: { type: "integer", description: "Item (entry) of an XML feed, from 1" },
                element: { type: "string", description: "Element of that item (`price`, `link`)" },
                parameter: { type: "string", description: "Query or path parameter" },
                header: {
                  type: "string",
                  description: "Request header (`Idempotency-Key`, `If-Match`, `If-None-Match`)",
                },
                message: { type: "string" },
                sku: { type: "string" },
                heldBy: { type: "string", description: "Id of the product that holds the sku" },
                scope: {
                  type: "string",
                  enum: [...SCOPES],
                  description: "For `FORBIDDEN`: the scope the token lacks",
                },
                code: {
                  type: "string",
                  enum: ["PRODUCT_NOT_FOUND"],
                  description: "What the problem is when not a value's: a merge's record that names no product",
                },
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
          quota: {
            type: "string",
            enum: ["requests", "import-bytes", "imports"],
            description: "`RATE_LIMITED`: the quota spent, as `RateLimit-Policy` names it; `limit` is its quota",
          },
          window: {
            type: "integer",
            description: "`RATE_LIMITED`: the quota's window in seconds (none for `imports`)",
          },
          importId: IMPORT_ID_PROPERTY,
        },
        required: ["type", "title", "status", "detail", "code", "errors", "errorCount"],
      },
    },
  };
}
