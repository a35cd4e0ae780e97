// A site's import history as the catalog keeps it: its options and their defaults, the ids of
// imports, and records read back from the store (one whose server stopped answered as failed),
// a page at a time or one by one, with their problem reports.
import { randomBytes } from "node:crypto";
import { pageLimit } from "./cursor.ts";
import { CatalogError, invalidOption, type Problem } from "./errors.ts";
import { IMPORT_STATES, type ImportRecord, type ImportState } from "./import-record.ts";
import type { Site } from "./site.ts";
import type { CatalogStore, Delivery } from "./store.ts";

/** How a catalog keeps the history of each site's imports (`CatalogOptions.history`). */
export interface HistoryOptions {
  /** Records kept per site, newest first; default 1,000. */
  readonly keep?: number;
  /** How long a record is kept, in milliseconds; default 30 days. */
  readonly maxAgeMs?: number;
  /** Problems an import's report keeps, beside the count of all; default 10,000. */
  readonly maxReportProblems?: number;
  /**
   * Deliveries enqueued with an import's final record, in the same store call (a server's
   * webhooks). It must not throw: an error it throws drops that record's deliveries.
   */
  readonly deliveries?: (record: ImportRecord) => readonly Delivery[];
  /**
   * Called once per import, with its final record, once that record is saved or given up (the
   * store was down when the catalog closed, or 64 MiB of records waited for it). Errors it throws
   * are caught and ignored: it must handle its own.
   */
  readonly onImportEnd?: (record: ImportRecord) => void;
}

/** Defaults of `HistoryOptions`. */
export const HISTORY_DEFAULTS = {
  keep: 1_000,
  maxAgeMs: 30 * 24 * 60 * 60 * 1000,
  maxReportProblems: 10_000,
} as const;

/** `HistoryOptions` with their defaults applied. */
export interface HistoryPolicy extends Required<Pick<HistoryOptions, "keep" | "maxAgeMs" | "maxReportProblems">> {
  readonly deliveries: HistoryOptions["deliveries"];
  readonly onImportEnd: HistoryOptions["onImportEnd"];
}

/** The policy of `options` (`undefined`: no history); a `RangeError` names a bad number. */
export function historyPolicy(options: HistoryOptions | false | undefined): HistoryPolicy | undefined {
  if (options === false) return undefined;
  const policy = { ...HISTORY_DEFAULTS, ...options };
  for (const name of ["keep", "maxAgeMs", "maxReportProblems"] as const) {
    const value = policy[name];
    if (!Number.isSafeInteger(value) || value < 1)
      throw new RangeError(`history.${name} must be a positive integer; got ${value}`);
  }
  return { ...policy, deliveries: options?.deliveries, onImportEnd: options?.onImportEnd };
}

/** After this long without a write, a running import's record is its server's that stopped. */
export const INTERRUPTED_AFTER_MS = 30_000;

const ID = /^[A-Za-z0-9]{1,64}$/;

/** The start of the ids of imports begun at `ms` (milliseconds since the epoch): 12 hex digits. */
export const idPrefixAt = (ms: number): string => Math.max(0, Math.floor(ms)).toString(16).padStart(12, "0");

// The last id made in this process: one made in the same millisecond (or while the clock went
// back) follows it, its random part plus one, so that the ids of one process sort by start.
let lastMs = -1;
let lastTail = 0n;

/**
 * A new import's id: the time in 12 hex digits, then 16 random ones (ULID's monotonic way), so
 * that ids sort by start (across processes, to the millisecond).
 */
export function newImportId(now = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    // Half the range, so that the ids of a millisecond have room to count up.
    lastTail = randomBytes(8).readBigUInt64BE() >> 1n;
  } else lastTail += 1n;
  return idPrefixAt(lastMs) + lastTail.toString(16).padStart(16, "0");
}

/** The `IMPORT_NOT_FOUND` error of an id. */
export function importNotFound(id: string): CatalogError {
  const shown = id.length > 64 ? `${id.slice(0, 64)}…` : id;
  return new CatalogError("IMPORT_NOT_FOUND", `No import "${shown}" in this site's history`);
}

const interrupted = (state: ImportState) =>
  state === "committing"
    ? "The server running this import stopped while it committed: its products may have been written. Read them, or send the import again under its idempotency key"
    : "The server running this import stopped before its commit: nothing was written. Send it again";

/** A stored record as it is answered: one still running that was not written for long is `failed`, `IMPORT_INTERRUPTED`. */
export function readRecord(value: string, now: number): ImportRecord {
  const record = JSON.parse(value) as ImportRecord;
  const { state } = record;
  if (state !== "receiving" && state !== "committing") return record;
  if (now - Date.parse(record.updatedAt) <= INTERRUPTED_AFTER_MS) return record;
  return { ...record, state: "failed", error: { code: "IMPORT_INTERRUPTED", message: interrupted(state) } };
}

/** Options of `Catalog.listImports`: a page size, where it starts, and filters. */
export interface ImportListOptions {
  /** Records per page, 1 to 1,000; default 100. */
  readonly limit?: number;
  /** The `nextCursor` of the page before; absent for the first page. */
  readonly cursor?: string;
  /** Only the imports in this state (one interrupted is `failed`). */
  readonly state?: ImportState;
  /** Only the imports sent with this idempotency key. */
  readonly idempotencyKey?: string;
  /** Only the imports of this request id. */
  readonly requestId?: string;
}

/** A page of a site's imports, newest first, and the cursor of the next (`undefined` after the last). */
export interface ImportPage {
  readonly imports: ImportRecord[];
  readonly nextCursor: string | undefined;
}

/** An import's problem report: every problem up to the history's cap, and the count of all found. */
export interface ImportProblems {
  readonly problems: Problem[];
  readonly total: number;
}

// Records asked of the store at a time while a filter skips some.
const SCAN = 200;
/** Records a page of `listImports` holds: `limit` is 1 to `max`, `default` when absent. */
export const IMPORT_LIST_LIMIT = { default: 100, max: 1_000 } as const;

function checkText(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.length === 0 || value.length > 255)
    throw invalidOption(name, "Must be a string of 1 to 255 characters");
  return value;
}

// The filter of a list's options, checked, each bad one naming its parameter.
function listFilter(options: ImportListOptions): (record: ImportRecord) => boolean {
  const { state } = options;
  if (state !== undefined && !(IMPORT_STATES as readonly unknown[]).includes(state))
    throw invalidOption("state", `Must be one of ${IMPORT_STATES.join(", ")}`);
  const key = checkText("idempotencyKey", options.idempotencyKey);
  const requestId = checkText("requestId", options.requestId);
  return (record) =>
    (state === undefined || record.state === state) &&
    (key === undefined || record.idempotencyKey === key) &&
    (requestId === undefined || record.requestId === requestId);
}

/** The history reads of a catalog: one record, a page of them, and a record's problem report. */
export function historyReader(store: CatalogStore, policy: HistoryPolicy | undefined) {
  const maxAgeMs = policy?.maxAgeMs ?? HISTORY_DEFAULTS.maxAgeMs;
  async function get(site: Site, id: string): Promise<ImportRecord> {
    if (typeof id !== "string" || !ID.test(id)) throw importNotFound(String(id));
    const value = await store.readImport(site, id);
    if (value === undefined) throw importNotFound(id);
    return readRecord(value, Date.now());
  }
  return {
    get,
    async list(site: Site, options: ImportListOptions = {}): Promise<ImportPage> {
      const { limit = IMPORT_LIST_LIMIT.default, cursor } = options;
      pageLimit(limit, IMPORT_LIST_LIMIT.max);
      if (cursor !== undefined && (typeof cursor !== "string" || !ID.test(cursor)))
        throw invalidOption("cursor", "Must be the nextCursor of a page before (letters and digits)");
      const keeps = listFilter(options);
      const now = Date.now();
      // Records past their age that no save has trimmed yet are not answered either.
      const oldest = idPrefixAt(now - maxAgeMs);
      const imports: ImportRecord[] = [];
      let before = cursor;
      for (;;) {
        const size = Math.min(Math.max(limit - imports.length, SCAN), IMPORT_LIST_LIMIT.max);
        const batch = await store.listImports(site, before, size);
        for (const { id, value } of batch) {
          if (id < oldest) return { imports, nextCursor: undefined };
          const record = readRecord(value, now);
          if (keeps(record)) imports.push(record);
          if (imports.length === limit) return { imports, nextCursor: id };
        }
        if (batch.length < size) return { imports, nextCursor: undefined };
        before = batch[batch.length - 1]?.id;
      }
    },
    async problems(site: Site, id: string): Promise<ImportProblems> {
      const record = await get(site, id);
      const text = (await store.readImportProblems(site, id)) ?? "";
      const problems: Problem[] = [];
      for (const line of text.split("\n")) if (line !== "") problems.push(JSON.parse(line) as Problem);
      return { problems, total: Math.max(record.problemCount, problems.length) };
    },
  };
}
