// The OpenAPI 3.1 document served at /openapi.json, its paths derived from the route table: each
// row's path, methods, query parameters, bodies, exports and description. The components they
// refer to are in openapi-components.ts, the examples in openapi-examples.ts; a test lints the
// whole with Redocly's recommended rules.
import {
  DEFAULT_MAX_STREAM_PRODUCTS,
  KEY_IN_USE_RETRY_SECONDS,
  PRODUCT_LIMITS,
  type StreamFormat,
} from "@catalog-kit/catalog-core";
import manifest from "../package.json" with { type: "json" };
import { DEFAULT_MAX_STREAM_BYTES } from "./body-stream.ts";
import { ETAG_HEADER, json, openApiComponents, problem, REQUEST_ID_HEADER, ref } from "./openapi-components.ts";
import { EXAMPLES, FEED_QUERY, RAW_EXAMPLES, STREAM_EXAMPLES } from "./openapi-examples.ts";
import { RATE_LIMITED_EXAMPLE, rateLimited } from "./openapi-rate-limits.ts";
import { openApiWebhooks } from "./openapi-webhooks.ts";
import type { Operation, OperationDoc, PublishedLimits, RawBody } from "./operation.ts";
import { MERGE_PATCH_TYPE } from "./patch.ts";
import { RETRY_AFTER_SECONDS } from "./problem.ts";
import { ROUTES } from "./routes.ts";

/** What the OpenAPI document publishes besides the schemas. */
export interface OpenApiSettings {
  readonly maxBodyBytes: number;
  readonly maxProductsPerRequest: number;
  /** Limits of raw (streamed) CSV, TSV, XML and NDJSON bodies; the defaults when not given. */
  readonly maxStreamBytes?: number;
  readonly maxProductsPerStream?: number;
  readonly notFoundStatus: 400 | 404;
}

// Any `application/...+json` type is read as JSON too (see requireJson).
const jsonBody = (schema: object, example: unknown) => ({
  ...json(schema, example),
  "application/*+json": { schema, example },
});

const REQUEST_ID = { $ref: "#/components/parameters/requestId" };
const CONDITION = {
  read: { $ref: "#/components/parameters/ifNoneMatch" },
  write: { $ref: "#/components/parameters/ifMatch" },
} as const;
const NOT_MODIFIED = {
  description: "`If-None-Match` names the product's current copy: no body",
  headers: { ...REQUEST_ID_HEADER, ...ETAG_HEADER },
};
const PRECONDITION = problem(
  "`PRECONDITION_FAILED`: the stored product is none of the copies `If-Match` names (it changed); nothing was written",
);
const BODY_PROBLEMS = {
  "408": problem("`REQUEST_TIMEOUT`: the body sent nothing for too long; the connection is closed"),
  "413": problem("`PAYLOAD_TOO_LARGE` or `TOO_MANY_PRODUCTS`; the body carries `limit` and `received`"),
};
const PRODUCT_ID = { $ref: "#/components/parameters/productId" };
// Content-Encoding describes the body, so it is said with the body: as a header parameter,
// generic clients would send `gzip` with whatever body they made, which is no gzip.
const GZIP =
  "Any of these may be sent gzip-compressed, with `Content-Encoding: gzip`. The size limits apply to the bytes received and to the bytes decoded; decoding stops as soon as a limit is passed.";
const IDEMPOTENCY_KEY = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  // A structured-field string ("...") is read as the key it quotes; "" would quote an empty key.
  schema: { type: "string", pattern: '^(?!""$)[!-~]{1,255}$' },
  example: "3f1c2d9e-6f0a-4d8b-9a57-2c1e8b7d4a10",
  description:
    "Makes the import exactly-once: a new key (a UUID) per logical import, sent again with every retry of it. Once an import with the key committed in the site, the same request (method, path, site, `mode`, `missing`, `dryRun`, `allowEmpty`, the reading parameters such as `profile`, `Content-Type` and body) is answered with the first answer (but for its own `importId`: the replay is an import of its own in the history, marked `replayed`) and `Idempotent-Replayed: true`, and nothing is applied again, for `idempotency.retentionMs` (24 hours by default). Another request under the key is 422 `IDEMPOTENCY_KEY_REUSED`; one while the first runs is 409 `IDEMPOTENCY_KEY_IN_USE`. Refused, failed and dry-run imports leave the key unused.",
};
const REPLAYED_HEADER = {
  description:
    "`true` when the answer is that of an earlier import with the same `Idempotency-Key`; nothing was applied again",
  schema: { type: "string", enum: ["true"] },
};
const KEY_IN_USE = {
  ...problem(
    "`IDEMPOTENCY_KEY_IN_USE`: a request with this `Idempotency-Key` is still running; send it again after `Retry-After`",
  ),
  headers: { ...REQUEST_ID_HEADER, "Retry-After": { schema: { type: "integer", example: KEY_IN_USE_RETRY_SECONDS } } },
};
const DEPRECATION_HEADER = {
  description: "`true` when the request used the deprecated siteId/siteType body fields",
  schema: { type: "string" },
};
const UNAVAILABLE = {
  ...problem("Storage unavailable (`STORAGE_UNAVAILABLE`)"),
  headers: { ...REQUEST_ID_HEADER, "Retry-After": { schema: { type: "integer", example: RETRY_AFTER_SECONDS } } },
};
const RATE_LIMITED = {
  ...problem(
    '`RATE_LIMITED`: a quota of the token\'s `RateLimit-Policy` is spent; the body names it (`quota`, `limit`, `window`). Send the request again after `Retry-After` (the seconds until the minute ends; 5 for `"imports"`)',
  ),
  headers: { ...REQUEST_ID_HEADER, "Retry-After": { schema: { type: "integer", example: 37 } } },
  content: {
    "application/problem+json": {
      schema: ref("Problem"),
      example: RATE_LIMITED_EXAMPLE,
    },
  },
};

// No client error is sent here today; the range is listed so that clients handle one if it comes.
const RESERVED_4XX = problem("No client error is sent by this operation today; any in future is problem+json");
const DEFAULT_PROBLEM = {
  ...problem(
    "`NOT_FOUND` (404: no resource at the path), `METHOD_NOT_ALLOWED` (405, with the `Allow` header) or `INTERNAL_ERROR` (500)",
  ),
  headers: {
    ...REQUEST_ID_HEADER,
    Allow: { description: "On a 405: the methods the resource accepts", schema: { type: "string" }, example: "POST" },
  },
  content: { "application/problem+json": { schema: ref("Problem"), example: EXAMPLES.problem } },
};

// An example of a media type: a raw body's own (a platform's file), else its format's plain one,
// with the query parameters it needs (its profile) as `x-example-query`, for clients to copy; an
// export's feed is asked for with its profile.
function exampleOf(type: string, format: StreamFormat, raw: RawBody | undefined): object {
  const name = raw?.typeExamples?.[type] ?? raw?.examples?.[format];
  const query = name === undefined ? (raw === undefined ? FEED_QUERY[format] : undefined) : RAW_EXAMPLES[name].query;
  const text = name === undefined ? STREAM_EXAMPLES[format] : RAW_EXAMPLES[name].text;
  return { example: text, ...(query === undefined ? {} : { "x-example-query": query }) };
}

// The content of text bodies of these media types, each with an example of its format. An answer
// lists one media type per format (the first the row names): it sends no other.
function textContent(types: Readonly<Record<string, StreamFormat>>, schema: object, raw?: RawBody) {
  const content: Record<string, object> = {};
  const seen = new Set<StreamFormat>();
  for (const [type, format] of Object.entries(types)) {
    if (raw === undefined && seen.has(format)) continue;
    seen.add(format);
    content[type] = { schema, ...exampleOf(type, format, raw) };
  }
  return content;
}

// The codes of the 400 answers of each kind of operation on products, besides its not-found ones.
function clientErrors(op: Operation, doc: OperationDoc): { codes: string; notFound: string } {
  if (op.body !== undefined) {
    return {
      codes:
        "`INVALID_JSON`, `INVALID_ENCODING`, `VALIDATION_FAILED`, `INVALID_CSV`, `INVALID_XML`, `SITE_REQUIRED`, `SKU_CONFLICT`, `PRODUCT_NOT_FOUND` (located: a merge's record that names no product)",
      notFound: "`SITE_NOT_FOUND`",
    };
  }
  const codes =
    doc.request === undefined
      ? "`VALIDATION_FAILED`"
      : "`INVALID_JSON`, `INVALID_ENCODING`, `VALIDATION_FAILED` (located by JSON pointers into the patch), `SKU_CONFLICT`";
  return { codes, notFound: "`SITE_NOT_FOUND`, `PRODUCT_NOT_FOUND`" };
}

// The answers particular to a kind of operation: an import's, a patch's, a precondition's.
function bodyResponses(op: Operation, doc: OperationDoc): object {
  const conditional =
    doc.conditional === "read" ? { "304": NOT_MODIFIED } : doc.conditional === "write" ? { "412": PRECONDITION } : {};
  if (op.body !== undefined) {
    return {
      ...BODY_PROBLEMS,
      "409": {
        ...KEY_IN_USE,
        description: `${KEY_IN_USE.description}. Or, with mode=merge, \`CONCURRENT_UPDATE\`: the products it changes were changed by other writes while it ran, again and again; nothing was written, send it again`,
      },
      "422": problem(
        "`IDEMPOTENCY_KEY_REUSED`: the `Idempotency-Key` was used for another request; nothing was written",
      ),
      "415": problem(
        "`UNSUPPORTED_MEDIA_TYPE`: the body must be of a media type the operation lists, in UTF-8, and its Content-Encoding gzip or none",
      ),
    };
  }
  if (doc.request === undefined) return conditional;
  return {
    ...conditional,
    ...BODY_PROBLEMS,
    "409": problem(
      "`CONCURRENT_UPDATE`: the product was changed by other writes while the patch was applied, again and again; nothing was written, send it again",
    ),
    "415": problem(
      "`UNSUPPORTED_MEDIA_TYPE`: the body must be JSON (`application/merge-patch+json` or `application/json`) in UTF-8, and its Content-Encoding gzip or none",
    ),
  };
}

// The answers of an operation: its success, the problems its kind can meet, and the default.
function responses(op: Operation, doc: OperationDoc, notFound: 400 | 404): object {
  const { answer } = doc;
  const tagged = doc.conditional === undefined ? REQUEST_ID_HEADER : { ...REQUEST_ID_HEADER, ...ETAG_HEADER };
  const success = {
    description: answer.description,
    headers:
      op.body === undefined
        ? { ...tagged, ...answer.headers }
        : { ...REQUEST_ID_HEADER, Deprecation: DEPRECATION_HEADER, "Idempotent-Replayed": REPLAYED_HEADER },
    // The list serves exports too, for older clients; only the export publishes them.
    content:
      op.plain.format === "json"
        ? json(answer.schema, answer.example)
        : answer.texts === undefined
          ? textContent(op.exports?.types ?? {}, answer.schema)
          : Object.fromEntries(
              Object.entries(answer.texts).map(([type, example]) => [type, { schema: answer.schema, example }]),
            ),
  };
  const storage = doc.storage ? { "503": UNAVAILABLE } : {};
  if (!op.token) return { "200": success, "4XX": RESERVED_4XX, ...storage, default: DEFAULT_PROBLEM };
  const denied = {
    "401": problem("Access token missing or invalid (`UNAUTHORIZED`)"),
    "429": RATE_LIMITED,
    "403": problem(
      `\`FORBIDDEN\`: the token lacks the \`${op.scope}\` scope this operation needs; the problem's \`errors[0].scope\` names it`,
    ),
  };
  if (doc.problems !== undefined) {
    const own = Object.fromEntries(Object.entries(doc.problems).map(([status, text]) => [status, problem(text)]));
    return { [String(answer.status ?? 200)]: success, ...own, ...denied, ...storage, default: DEFAULT_PROBLEM };
  }
  const missing = clientErrors(op, doc);
  return rateLimited({
    "200": success,
    "400": problem(notFound === 400 ? `${missing.codes}, ${missing.notFound}` : missing.codes),
    ...(notFound === 404 ? { "404": problem(missing.notFound) } : {}),
    ...bodyResponses(op, doc),
    ...denied,
    ...storage,
    default: DEFAULT_PROBLEM,
  });
}

// The parameters of an operation: its path's, its query's, the request id, and an import's
// Idempotency-Key. An operation that reads no query lists none.
function parameters(path: string, op: Operation): object[] | undefined {
  if (op.query === undefined) return undefined;
  return [
    ...(path.includes("{productId}") ? [PRODUCT_ID] : []),
    ...(op.doc?.pathParams ?? []),
    ...op.query.map((param) => param.doc),
    REQUEST_ID,
    ...(op.body === undefined ? [] : [IDEMPOTENCY_KEY]),
    ...(op.doc?.conditional === undefined ? [] : [CONDITION[op.doc.conditional]]),
  ];
}

// A JSON body: a merge patch under its own media type first, then as any JSON.
function requestContent(request: NonNullable<OperationDoc["request"]>): object {
  const schema = ref(request.schema);
  const body = jsonBody(schema, request.example);
  return request.patch ? { [MERGE_PATCH_TYPE]: { schema, example: request.example }, ...body } : body;
}

function describe(path: string, op: Operation, doc: OperationDoc, limits: PublishedLimits, notFound: 400 | 404) {
  const params = parameters(path, op);
  const raw = op.body?.raw;
  return {
    operationId: doc.operationId,
    summary: doc.summary,
    description: typeof doc.description === "string" ? doc.description : doc.description(limits),
    tags: [doc.tag],
    ...(op.token ? {} : { security: [] }),
    ...(op.scope === undefined ? {} : { "x-required-scope": op.scope }),
    ...(params === undefined ? {} : { parameters: params }),
    ...(doc.request === undefined
      ? {}
      : {
          requestBody: {
            required: true,
            description: GZIP,
            content: {
              ...requestContent(doc.request),
              ...(raw === undefined ? {} : textContent(raw.types, { type: "string", description: raw.what }, raw)),
            },
          },
        }),
    responses: responses(op, doc, notFound),
  };
}

/** Builds the OpenAPI 3.1 document, with product schemas generated from the catalog's own validation schemas. */
export function buildOpenApi(settings: OpenApiSettings): object {
  const limits: PublishedLimits = {
    maxProductsPerRequest: settings.maxProductsPerRequest,
    maxStreamBytes: settings.maxStreamBytes ?? DEFAULT_MAX_STREAM_BYTES,
    maxProductsPerStream: settings.maxProductsPerStream ?? DEFAULT_MAX_STREAM_PRODUCTS,
  };
  const paths: Record<string, Record<string, object>> = {};
  for (const { path, methods } of Object.values(ROUTES)) {
    for (const [method, op] of Object.entries(methods)) {
      if (op.doc === undefined) continue;
      (paths[path] ??= {})[method.toLowerCase()] = describe(path, op, op.doc, limits, settings.notFoundStatus);
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "catalog-kit product catalog",
      // The package's own version, so that the document cannot drift from what is installed.
      version: manifest.version,
      license: { name: "MIT", identifier: "MIT" },
      description: `Imports, retrieves, changes and deletes the products of a site. JSON request bodies may hold at most ${settings.maxBodyBytes} bytes and ${settings.maxProductsPerRequest} products (or CSV rows); raw CSV, TSV, XML and NDJSON bodies, streamed, at most ${limits.maxStreamBytes} bytes and ${limits.maxProductsPerStream} products. Every error is an RFC 9457 problem+json body with a stable \`code\`.`,
    },
    security: [{ ServiceAccessToken: [] }],
    servers: [{ url: "/", description: "The server that serves this document" }],
    tags: [
      {
        name: "Import",
        description:
          "Create or replace products, one, a list, or CSV text at a time; and the history of a site's imports, their progress and problem reports",
      },
      { name: "Products", description: "Retrieve, change or delete one product; list or export a site's" },
      { name: "Service", description: "Health and this document; no token needed" },
      { name: "Admin", description: "Sites and tokens made, listed and removed at run time; the `admin` scope" },
    ],
    paths,
    webhooks: openApiWebhooks(),
    components: openApiComponents(settings.maxProductsPerRequest),
    "x-limits": {
      ...PRODUCT_LIMITS,
      maxBodyBytes: settings.maxBodyBytes,
      maxProductsPerRequest: settings.maxProductsPerRequest,
      maxStreamBytes: limits.maxStreamBytes,
      maxProductsPerStream: limits.maxProductsPerStream,
    },
  };
}
