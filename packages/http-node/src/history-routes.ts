// The import history's rows of the route table: a site's imports, one import, and one import's
// problem report, each needing the `read` scope, with what /openapi.json says of them. The list's
// path is also where a product whose id is "imports" would be: its PATCH and DELETE stay that
// product's, and its GET is reached with a letter of its id percent-encoded (`/%69mports`).
import { IMPORT_LIST_LIMIT, IMPORT_STATES } from "@catalog-kit/catalog-core";
import { PROBLEM_COLUMNS, serveImportList, serveImportProblems, serveImportRecord } from "./history.ts";
import { ref } from "./openapi-components.ts";
import { HISTORY_EXAMPLES } from "./openapi-history.ts";
import { operation } from "./operation.ts";
import { lookups } from "./product-routes.ts";
import { type QueryParam, SITE_ID, SITE_TYPE } from "./query-params.ts";

const query = (name: string, schema: object, description: string): QueryParam => ({
  name,
  doc: { name, in: "query", required: false, schema, description },
});

const LIST_QUERY = [
  SITE_ID,
  SITE_TYPE,
  query(
    "limit",
    { type: "integer", minimum: 1, maximum: IMPORT_LIST_LIMIT.max, default: IMPORT_LIST_LIMIT.default },
    "Imports per page (of those the filters keep)",
  ),
  query("cursor", { type: "string", pattern: "^[A-Za-z0-9]{1,64}$" }, "The `nextCursor` of the page before"),
  query("state", { type: "string", enum: [...IMPORT_STATES] }, "Only the imports in this state"),
  query(
    "idempotencyKey",
    { type: "string", minLength: 1, maxLength: 255 },
    "Only the imports sent with this `Idempotency-Key`: how a client finds the import it sent, running or ended",
  ),
  query(
    "requestId",
    { type: "string", minLength: 1, maxLength: 255 },
    "Only the imports of the request with this `X-Request-Id`",
  ),
];
const IMPORT_ID = {
  name: "importId",
  in: "path",
  required: true,
  schema: { type: "string", pattern: "^[A-Za-z0-9]{1,64}$" },
  description: "The `importId` an import's answer (or its problem body) carried",
  example: HISTORY_EXAMPLES.record.importId,
};
const SITE_PROBLEMS =
  "`SITE_REQUIRED`, `SITE_NOT_FOUND` (404 where the server answers a site that is not there so: `notFoundStatus`)";
const NOT_FOUND = {
  "400": `${SITE_PROBLEMS}`,
  "404": "`IMPORT_NOT_FOUND`: the site's history holds no import with this id (never made, or past its retention)",
};
const KEPT =
  "A site's history keeps its newest imports (1,000 by default) for 30 days (by default), whatever their outcome: every channel, dry runs, replays and refused imports included.";

/** Where the history lives. */
export const IMPORTS_PATH = "/external/product/v1/imports";

/** The history's route rows. */
export const HISTORY_ROUTES = {
  imports: {
    path: IMPORTS_PATH,
    methods: {
      GET: operation({
        action: "listImports",
        token: true,
        scope: "read",
        query: LIST_QUERY,
        serve: serveImportList,
        doc: {
          operationId: "listImports",
          summary: "List a site's imports, newest first, a page at a time",
          description: `${KEPT} A running import's record shows its progress (\`bytesReceived\`, \`productsRead\`), written at least once a second while it changes, whichever server runs it. (A product whose id is \`imports\` is read at \`/external/product/v1/%69mports\`; PATCH and DELETE on this path are that product's.)`,
          tag: "Import",
          answer: { description: "A page of imports", schema: ref("ImportPage"), example: HISTORY_EXAMPLES.page },
          problems: {
            "400": `\`VALIDATION_FAILED\` (the query parameter named in \`errors[0].parameter\`), ${SITE_PROBLEMS}`,
          },
          storage: true,
        },
      }),
      ...(({ PATCH, DELETE }) => ({ PATCH, DELETE }))(
        lookups("Imports", "the product whose id or sku is imports", '"imports"'),
      ),
    },
  },
  importRecord: {
    path: `${IMPORTS_PATH}/{importId}`,
    methods: {
      GET: operation({
        action: "getImport",
        token: true,
        scope: "read",
        query: [SITE_ID, SITE_TYPE],
        serve: serveImportRecord,
        doc: {
          operationId: "getImport",
          summary: "Retrieve an import's record",
          description: `How the import stands or ended: its progress while it runs, its counts or its error and first 100 problems once ended. The record is there when the import's answer is. ${KEPT}`,
          tag: "Import",
          answer: { description: "The import's record", schema: ref("ImportRecord"), example: HISTORY_EXAMPLES.record },
          pathParams: [IMPORT_ID],
          problems: NOT_FOUND,
          storage: true,
        },
      }),
    },
  },
  importProblems: {
    path: `${IMPORTS_PATH}/{importId}/problems`,
    methods: {
      GET: operation({
        action: "importProblems",
        token: true,
        scope: "read",
        query: [SITE_ID, SITE_TYPE],
        exports: {
          types: { "application/x-ndjson": "ndjson", "text/csv": "csv" },
          query: [SITE_ID, SITE_TYPE],
          only: "ndjson",
        },
        serve: serveImportProblems,
        doc: {
          operationId: "getImportProblems",
          summary: "Download an import's problem report",
          description: `Every problem the import met, located as its error located them (CSV row and column, NDJSON line, JSON pointer, XML item, the sku of a conflict), up to the history's cap (10,000 by default); \`X-Problem-Count\` tells how many were found in all. NDJSON (one problem a line) unless \`Accept\` asks for \`text/csv\` (columns ${PROBLEM_COLUMNS.join(", ")}; a cell a spreadsheet would run as a formula, one that starts with \`=\`, \`+\`, \`-\`, \`@\`, a tab or CR, starts with \`'\`, which shows it as text). An import with no problems has an empty report.`,
          tag: "Import",
          answer: {
            description: "The report",
            schema: { type: "string" },
            texts: { "application/x-ndjson": HISTORY_EXAMPLES.report.ndjson, "text/csv": HISTORY_EXAMPLES.report.csv },
            headers: {
              "X-Problem-Count": {
                description: "The problems the import met in all; the report lists up to the history's cap",
                schema: { type: "integer", minimum: 0 },
              },
            },
          },
          pathParams: [IMPORT_ID],
          problems: NOT_FOUND,
          storage: true,
        },
      }),
    },
  },
};
