// The components of the OpenAPI document: parameters, headers and schemas, the product schemas
// generated from the catalog's own validation schemas; and the helpers the operations share.
import { productJsonSchemas } from "@catalog-kit/catalog-core";
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
    schema: { type: "string", enum: ["upsert", "replace"], default: "upsert" },
    description:
      "`replace`: the request is the site's whole catalog; the site's other products are deleted in the same all-or-nothing step, their skus freed, and counted in `deleted`",
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
};

/** The `X-Request-Id` header every answer carries. */
export const REQUEST_ID_HEADER = { "X-Request-Id": { $ref: "#/components/headers/RequestId" } };

/** A problem+json response, with the request id header. */
export const problem = (description: string) => ({
  description,
  headers: REQUEST_ID_HEADER,
  content: { "application/problem+json": { schema: ref("Problem") } },
});

/** The document's components; the bulk schema carries the product limit. */
export function openApiComponents(maxProductsPerRequest: number): object {
  const { Product, ProductView } = productJsonSchemas();
  return {
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
        maxItems: maxProductsPerRequest,
        description: KEY_RULES,
      }),
      CsvImportRequest: importRequest("csvContent", {
        type: "string",
        minLength: 1,
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
          deleted: { type: "integer", description: "With mode=replace: the site's products the request did not name" },
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
                header: { type: "string", description: "Request header (`Idempotency-Key`)" },
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
  };
}
