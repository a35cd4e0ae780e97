// An import's record in its site's history: what the history endpoints answer, what a webhook
// carries, and what the store keeps as JSON text. The schema is the one home of its shape.
import * as v from "valibot";

/** Where an import stands: still reading its body, committing, or ended one way or the other. */
export const IMPORT_STATES = ["receiving", "committing", "succeeded", "failed"] as const;

/** Where an import stands, see `IMPORT_STATES`. */
export type ImportState = (typeof IMPORT_STATES)[number];

/** How the products came: a value in memory (a JSON body, a library call) or a streamed body. */
export const IMPORT_CHANNELS = ["body", "stream"] as const;

/** What the products came as: a list, one product, CSV, TSV, NDJSON or an XML feed. */
export const IMPORT_FORMATS = ["products", "product", "csv", "tsv", "ndjson", "xml"] as const;

const Count = v.pipe(v.number(), v.safeInteger(), v.minValue(0));

/** One problem of an import, located as its error located it (pointer, row and column, line, item). */
export const ProblemSchema = v.object({
  message: v.string(),
  pointer: v.optional(v.string()),
  row: v.optional(Count),
  column: v.optional(v.string()),
  line: v.optional(Count),
  item: v.optional(Count),
  element: v.optional(v.string()),
  parameter: v.optional(v.string()),
  code: v.optional(v.literal("PRODUCT_NOT_FOUND")),
  sku: v.optional(v.string()),
  heldBy: v.optional(v.string()),
});

/** What an import did, once it succeeded: the summary's counts. */
export const ImportRecordCountsSchema = v.object({
  total: Count,
  created: Count,
  updated: Count,
  unchanged: Count,
  deleted: v.optional(Count),
  skipped: v.optional(Count),
});

/**
 * One import, from its start to its end: who sent what, how far it got, and how it ended. Never
 * a secret: `tokenName` is the name of the token that sent it.
 */
export const ImportRecordSchema = v.object({
  importId: v.string(),
  siteId: v.string(),
  siteType: v.string(),
  channel: v.picklist(IMPORT_CHANNELS),
  format: v.picklist(IMPORT_FORMATS),
  profile: v.optional(v.string()),
  mode: v.picklist(["upsert", "replace", "merge"]),
  missing: v.optional(v.picklist(["error", "skip", "create"])),
  dryRun: v.boolean(),
  state: v.picklist(IMPORT_STATES),
  /** ISO 8601: when the import began, when it ended, and when its record was last written. */
  startedAt: v.string(),
  endedAt: v.optional(v.string()),
  updatedAt: v.string(),
  bytesReceived: Count,
  productsRead: Count,
  counts: v.optional(ImportRecordCountsSchema),
  /** True when the import replayed an earlier one under its idempotency key: nothing was applied again. */
  replayed: v.optional(v.literal(true)),
  /** Why it failed: the error's code and message, as its answer gave them. */
  error: v.optional(v.object({ code: v.string(), message: v.string() })),
  problemCount: Count,
  /** The first 100 problems; the whole report (up to its cap) is downloaded apart. */
  problems: v.array(ProblemSchema),
  idempotencyKey: v.optional(v.string()),
  requestId: v.optional(v.string()),
  tokenName: v.optional(v.string()),
});

/** An import's record, see `ImportRecordSchema`. */
export type ImportRecord = Readonly<v.InferOutput<typeof ImportRecordSchema>>;
