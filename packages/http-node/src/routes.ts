// The route table: each resource's path and, for each method, the operation that serves it (see
// operation.ts). Routing, the Allow header of a 405, every query allowlist, the media types of
// bodies and exports (their types in raw-bodies.ts), and the paths of /openapi.json are all read
// from here.
import { ADMIN_PREFIX, ADMIN_ROUTES } from "./admin-routes.ts";
import { serveList } from "./browse.ts";
import { HISTORY_ROUTES, IMPORTS_PATH } from "./history-routes.ts";
import { serveImport } from "./imports.ts";
import { ref } from "./openapi-components.ts";
import { EXAMPLES } from "./openapi-examples.ts";
import { type Operation, operation } from "./operation.ts";
import { EXPORTS, importing, LIST } from "./operation-docs.ts";
import { lookups } from "./product-routes.ts";
import {
  ALLOW_EMPTY,
  CURSOR,
  DRY_RUN,
  EXPORT_CURRENCY,
  EXPORT_PROFILE,
  IMPORT_SITE_ID,
  IMPORT_SITE_TYPE,
  LIMIT,
  MISSING,
  MODE,
  READING,
  SITE_ID,
  SITE_TYPE,
} from "./query-params.ts";
import { BULK_BODY, CSV_BODY, EXPORT_TYPES, FEED_TYPES } from "./raw-bodies.ts";
import { serveHealth, serveMetrics, serveOpenApi } from "./service.ts";

/** Where every product endpoint lives. */
export const API_PREFIX = "/external/product/v1";

/** The resources the server knows; `product`, `adminSite` and `adminToken` carry their raw (still encoded) path parameters. */
export type Resource =
  | {
      readonly kind:
        | "single"
        | "bulk"
        | "csv"
        | "export"
        | "health"
        | "openapi"
        | "metrics"
        | "adminSites"
        | "adminTokens"
        | "imports";
    }
  | { readonly kind: "product" | "adminToken" | "importRecord" | "importProblems"; readonly rawId: string }
  | { readonly kind: "adminSite"; readonly rawType: string; readonly rawId: string };

/** What the handler does for a request: look a product up, change or delete it, import, or answer a fixed resource. */
export type Action =
  | "get"
  | "patch"
  | "delete"
  | "list"
  | "export"
  | "single"
  | "bulk"
  | "csv"
  | "health"
  | "openapi"
  | "metrics"
  | "createSite"
  | "listSites"
  | "deleteSite"
  | "createToken"
  | "listTokens"
  | "revokeToken"
  | "listImports"
  | "getImport"
  | "importProblems";

type Method = "GET" | "PATCH" | "DELETE" | "POST";

/** A resource of the table: its path (an OpenAPI path template) and its operations by method. */
export interface Route {
  readonly path: string;
  readonly methods: Readonly<Partial<Record<Method, Operation>>>;
}

const IMPORT_QUERY = [DRY_RUN, MODE, MISSING, ALLOW_EMPTY, IMPORT_SITE_ID, IMPORT_SITE_TYPE, ...READING];
const EXPORT_QUERY = [SITE_ID, SITE_TYPE, EXPORT_PROFILE, EXPORT_CURRENCY];
const IMPORTED = {
  description: "Products imported (or, with dryRun, checked and counted)",
  schema: ref("ImportSummary"),
  example: EXAMPLES.importSummary,
};

/** The route table. Its methods, in order, make the `Allow` header of a 405; HEAD is GET. */
export const ROUTES: Readonly<Record<Resource["kind"], Route>> = {
  single: {
    path: API_PREFIX,
    methods: {
      GET: operation({
        action: "list",
        token: true,
        scope: "read",
        query: [SITE_ID, SITE_TYPE, LIMIT, CURSOR],
        // Served for the clients written before /bulk/export; published there only, so that the
        // list's answer has one type for a client generated from the document.
        exports: { types: EXPORT_TYPES, query: [SITE_ID, SITE_TYPE] },
        serve: serveList,
        doc: {
          operationId: "listProducts",
          summary: "List a site's products, a page at a time",
          description: LIST,
          tag: "Products",
          answer: { description: "A page", schema: ref("ProductPage"), example: EXAMPLES.productPage },
          storage: true,
        },
      }),
      POST: operation({
        action: "single",
        token: true,
        scope: "import",
        query: [DRY_RUN, IMPORT_SITE_ID, IMPORT_SITE_TYPE],
        body: { field: "product" },
        serve: serveImport,
        doc: {
          operationId: "importProduct",
          summary: "Import or modify one product",
          description: importing("one product"),
          tag: "Import",
          answer: IMPORTED,
          request: { schema: "SingleImportRequest", example: EXAMPLES.importProduct },
          storage: true,
        },
      }),
    },
  },
  bulk: {
    path: `${API_PREFIX}/bulk`,
    methods: {
      ...lookups("Bulk", "the product whose id or sku is bulk", '"bulk"'),
      POST: operation({
        action: "bulk",
        token: true,
        scope: "import",
        query: IMPORT_QUERY,
        body: { field: "products", raw: BULK_BODY },
        serve: serveImport,
        doc: {
          operationId: "importProducts",
          summary: "Import or modify a list of products",
          description: importing((l) => `a list of products (at most ${l.maxProductsPerRequest})`, BULK_BODY),
          tag: "Import",
          answer: IMPORTED,
          request: { schema: "BulkImportRequest", example: EXAMPLES.importProducts },
          storage: true,
        },
      }),
    },
  },
  csv: {
    path: `${API_PREFIX}/bulk/csv`,
    methods: {
      POST: operation({
        action: "csv",
        token: true,
        scope: "import",
        query: IMPORT_QUERY,
        body: { field: "csvContent", raw: CSV_BODY },
        serve: serveImport,
        doc: {
          operationId: "importCsv",
          summary: "Import or modify products given as CSV text",
          description: importing(
            (l) => `the products of a CSV document (at most ${l.maxProductsPerRequest} rows)`,
            CSV_BODY,
          ),
          tag: "Import",
          answer: IMPORTED,
          request: { schema: "CsvImportRequest", example: EXAMPLES.importCsv },
          storage: true,
        },
      }),
    },
  },
  export: {
    path: `${API_PREFIX}/bulk/export`,
    methods: {
      GET: operation({
        action: "export",
        token: true,
        scope: "read",
        query: EXPORT_QUERY,
        exports: { types: FEED_TYPES, query: EXPORT_QUERY, only: "csv" },
        serve: serveList,
        doc: {
          operationId: "exportProducts",
          summary: "Export a site's products as a CSV or NDJSON file, or a product feed",
          description: EXPORTS,
          tag: "Products",
          answer: {
            description: "The whole site as a CSV or NDJSON file, or (profile=google or meta) a TSV feed",
            schema: { type: "string" },
          },
          storage: true,
        },
      }),
    },
  },
  product: {
    path: `${API_PREFIX}/{productId}`,
    methods: lookups("", "a product by reference id or sku", "`productId`"),
  },
  health: {
    path: "/healthz",
    methods: {
      GET: operation({
        action: "health",
        token: false,
        serve: serveHealth,
        doc: {
          operationId: "health",
          summary: "Whether the storage answers",
          description: "200 when the storage answers, 503 when it does not. Needs no token.",
          tag: "Service",
          answer: {
            description: "Healthy",
            schema: { type: "object", properties: { status: { const: "ok" } } },
            example: EXAMPLES.health,
          },
          storage: true,
        },
      }),
    },
  },
  openapi: {
    path: "/openapi.json",
    methods: {
      GET: operation({
        action: "openapi",
        token: false,
        serve: serveOpenApi,
        doc: {
          operationId: "openapi",
          summary: "This document",
          description: "The OpenAPI 3.1 document of this server, with its configured limits. Needs no token.",
          tag: "Service",
          answer: { description: "OpenAPI 3.1", schema: { type: "object" }, example: EXAMPLES.openapi },
          storage: false,
        },
      }),
    },
  },
  // Not published: it may live on an address of its own, and it is the operator's, not the API's.
  metrics: { path: "/metrics", methods: { GET: operation({ action: "metrics", token: false, serve: serveMetrics }) } },
  ...HISTORY_ROUTES,
  ...ADMIN_ROUTES,
};

const KINDS = Object.keys(ROUTES) as Resource["kind"][];

/** The `Allow` header of each resource, for 405 answers. */
export const ALLOW = Object.fromEntries(
  KINDS.map((kind) => [
    kind,
    Object.keys(ROUTES[kind].methods)
      .flatMap((method) => (method === "GET" ? ["GET", "HEAD"] : [method]))
      .join(", "),
  ]),
) as Readonly<Record<Resource["kind"], string>>;

/** The operation of a method on a resource; `undefined` is 405. */
export function operationOf(kind: Resource["kind"], method: string | undefined): Operation | undefined {
  const methods = ROUTES[kind].methods as Readonly<Record<string, Operation>>;
  const name = method === "HEAD" ? "GET" : method;
  return name !== undefined && Object.hasOwn(methods, name) ? methods[name] : undefined;
}

/** The action of a method on a resource; `undefined` is 405. */
export function actionOf(kind: Resource["kind"], method: string | undefined): Action | undefined {
  return operationOf(kind, method)?.action;
}

// The paths without a parameter are found whole, those with (a product id, an admin site or token)
// by their parameters as the last segments under their prefix: no pattern to run per request, and
// one resource object per fixed path.
const FIXED = new Map<string, Resource>(
  KINDS.filter((kind) => !ROUTES[kind].path.includes("{")).map((kind) => [ROUTES[kind].path, { kind } as Resource]),
);
const PRODUCT_PREFIX = ROUTES.product.path.slice(0, ROUTES.product.path.indexOf("{"));
const SITE_PREFIX = `${ADMIN_PREFIX}/sites/`;
const TOKEN_PREFIX = `${ADMIN_PREFIX}/tokens/`;
const IMPORT_PREFIX = `${IMPORTS_PATH}/`;
const PROBLEMS_SUFFIX = "/problems";

// The one segment after `prefix`, non-empty, or `undefined`.
function lastSegment(path: string, prefix: string): string | undefined {
  if (path.length === prefix.length || !path.startsWith(prefix)) return undefined;
  return path.indexOf("/", prefix.length) === -1 ? path.slice(prefix.length) : undefined;
}

// An admin path with parameters: /admin/v1/sites/{siteType}/{siteId} or /admin/v1/tokens/{id}.
function adminResource(path: string): Resource | undefined {
  const id = lastSegment(path, TOKEN_PREFIX);
  if (id !== undefined) return { kind: "adminToken", rawId: id };
  if (!path.startsWith(SITE_PREFIX)) return undefined;
  const slash = path.indexOf("/", SITE_PREFIX.length);
  if (slash === -1 || slash === SITE_PREFIX.length || slash === path.length - 1) return undefined;
  if (path.indexOf("/", slash + 1) !== -1) return undefined;
  return { kind: "adminSite", rawType: path.slice(SITE_PREFIX.length, slash), rawId: path.slice(slash + 1) };
}

// An import's path: /external/product/v1/imports/{importId}, or its report's, .../problems.
function historyResource(path: string): Resource | undefined {
  const rawId = lastSegment(path, IMPORT_PREFIX);
  if (rawId !== undefined) return { kind: "importRecord", rawId };
  if (!path.endsWith(PROBLEMS_SUFFIX)) return undefined;
  const id = lastSegment(path.slice(0, -PROBLEMS_SUFFIX.length), IMPORT_PREFIX);
  return id === undefined ? undefined : { kind: "importProblems", rawId: id };
}

/**
 * Finds the resource of a path, still percent-encoded: a fixed path whole, else its parameters
 * under their prefix; `undefined` is 404. So `/imports` is the history and `/%69mports` the product "imports".
 */
export function matchRoute(path: string): Resource | undefined {
  const fixed = FIXED.get(path);
  if (fixed !== undefined) return fixed;
  if (path.startsWith(IMPORT_PREFIX)) return historyResource(path);
  const rawId = lastSegment(path, PRODUCT_PREFIX);
  if (rawId !== undefined) return { kind: "product", rawId };
  return path.startsWith(ADMIN_PREFIX) ? adminResource(path) : undefined;
}
