// What /openapi.json says of the import history: the record's schema (generated from the
// catalog's own), a page of records, and an example of each answer, a problem report in both
// of its formats included.
import { type ImportRecord, importRecordJsonSchema } from "@catalog-kit/catalog-core";

// Made here, not from openapi-components.ts, which spreads these into the document's components.
const { $schema: _, ...RECORD } = importRecordJsonSchema() as Record<string, unknown>;

/** The history's schemas, among the document's components. */
export const HISTORY_SCHEMAS = {
  ImportRecord: {
    ...RECORD,
    description:
      "One import, from its start to its end. `state` is `receiving` (its body is read), `committing`, `succeeded` or `failed`; a record left running by a server that stopped is answered `failed`, `error.code` `IMPORT_INTERRUPTED`. `problems` holds the first 100 problems; the whole report is `GET .../imports/{importId}/problems`. `tokenName` names the token that sent it, never the token.",
  },
  ImportPage: {
    type: "object",
    properties: {
      imports: { type: "array", items: { $ref: "#/components/schemas/ImportRecord" }, description: "Newest first" },
      nextCursor: { type: ["string", "null"], description: "The `cursor` of the next page; null after the last" },
    },
    required: ["imports", "nextCursor"],
  },
};

const record: ImportRecord = {
  importId: "0192f3a4b5c6d7e8f9a0b1c2d3e4",
  siteId: "demo",
  siteType: "demo",
  channel: "stream",
  format: "csv",
  mode: "upsert",
  dryRun: false,
  state: "failed",
  startedAt: "2026-11-29T10:00:00.000Z",
  endedAt: "2026-11-29T10:00:02.512Z",
  updatedAt: "2026-11-29T10:00:02.512Z",
  bytesReceived: 48_213,
  productsRead: 310,
  error: { code: "VALIDATION_FAILED", message: "Invalid products: 1 problem found; nothing was written" },
  problemCount: 1,
  problems: [{ row: 12, column: "price", message: "Must be at least 0" }],
  idempotencyKey: "3f1c2d9e-6f0a-4d8b-9a57-2c1e8b7d4a10",
  requestId: "7c4e0a",
  tokenName: "erp",
};

/** The history's answers, as examples. */
export const HISTORY_EXAMPLES = {
  record,
  page: { imports: [record], nextCursor: null },
  report: {
    ndjson: '{"row":12,"column":"price","message":"Must be at least 0"}\n',
    csv: "row,column,line,pointer,item,element,sku,heldBy,code,message\n12,price,,,,,,,,Must be at least 0\n",
  },
};
