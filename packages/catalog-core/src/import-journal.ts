// An import's record while it runs and once it ends. A running import is saved at most once a
// second, only when something changed, or every few seconds as a heartbeat (so that any server
// can tell a running import from one whose server stopped); an import that ends within a second
// is saved once, at its end, with its problem report, its deliveries and its site's retention.
// Never two saves of one import are in flight at once.
import type { ImportOptions } from "./catalog-options.ts";
import type { EngineOptions, ImportProgress, ImportSummary } from "./engine.ts";
import { CatalogError, isCatalogError, MAX_PROBLEMS, type Problem } from "./errors.ts";
import type { FinalSaves } from "./final-saves.ts";
import { type HistoryPolicy, idPrefixAt, newImportId } from "./import-history.ts";
import type { ImportRecord } from "./import-record.ts";
import { reportOf } from "./parse.ts";
import type { Site } from "./site.ts";
import type { CatalogStore, Delivery, ImportSave } from "./store.ts";
import type { ByteSource } from "./text.ts";

/** What an import's record says of it from its start: how it came, and its options as given (checked later). */
export interface ImportStart {
  readonly channel: ImportRecord["channel"];
  readonly format: ImportRecord["format"];
  readonly options: ImportOptions & { readonly mode?: unknown; readonly missing?: unknown; readonly profile?: unknown };
}

const TICK_MS = 1_000;
/** A running import's record is written at least this often, changed or not. */
export const HEARTBEAT_MS = 5_000;
// How long an import's answer waits for its final record: enough for any store that answers,
// short enough that a store down (the final save retried behind) does not hold the answer long.
const FINAL_WAIT_MS = 1_000;
// A record holds at most 1 MiB and a report 16 MiB: the strings a problem quotes from the
// request are clipped, and a report stops short of its limit.
const MAX_TEXT = 1_000;
const MAX_REPORT_BYTES = 15 * 1024 * 1024;

const MODES: readonly unknown[] = ["upsert", "replace", "merge"];
const MISSING: readonly unknown[] = ["error", "skip", "create"];

// Resolves when `promise` settles or `ms` passed, whichever comes first, and leaves no timer.
function bounded(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms).unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function clipped(problem: Problem): Problem {
  let copy: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(problem)) {
    if (typeof value === "string" && value.length > MAX_TEXT)
      (copy ??= { ...problem })[key] = `${value.slice(0, MAX_TEXT)}…`;
  }
  return (copy as Problem | undefined) ?? problem;
}

/** The problem report of `problems` as saved: NDJSON, one problem a line, short of 16 MiB. */
export function reportText(problems: readonly Problem[]): string {
  let text = "";
  let bytes = 0;
  for (const problem of problems) {
    const line = `${JSON.stringify(clipped(problem))}\n`;
    bytes += Buffer.byteLength(line);
    if (bytes > MAX_REPORT_BYTES) break;
    text += line;
  }
  return text;
}

// Ids of imports that failed with an error that is no CatalogError (the body's own), which cannot carry it.
const IMPORT_IDS = new WeakMap<object, string>();

/** The id of the import that failed with `error`, when it was recorded. */
export function importIdOf(error: unknown): string | undefined {
  if (error instanceof CatalogError && error.importId !== undefined) return error.importId;
  if (typeof error !== "object" || error === null) return undefined;
  return IMPORT_IDS.get(error);
}

// `error`, carrying the import's id: a CatalogError on itself, any other error noted beside it.
function withImportId(error: unknown, importId: string): unknown {
  if (error instanceof CatalogError) error.importId = importId;
  else if (typeof error === "object" && error !== null) IMPORT_IDS.set(error, importId);
  return error;
}

// What a record says of an error: its code and message when it has a stable code, else nothing of it.
function failure(error: unknown): { code: string; message: string } {
  if (typeof error === "object" && error !== null) {
    const { code, message, name } = error as { code?: unknown; message?: unknown; name?: unknown };
    if (typeof code === "string" && /^[A-Z][A-Z_]*$/.test(code) && typeof message === "string")
      return { code, message: message.slice(0, MAX_TEXT) };
    if (typeof name === "string" && /^\w{1,64}$/.test(name))
      return { code: "INTERNAL_ERROR", message: `The import stopped on an unexpected error (${name})` };
  }
  return { code: "INTERNAL_ERROR", message: "The import stopped on an unexpected error" };
}

const iso = (ms: number) => new Date(ms).toISOString();
const text = (value: unknown) => (typeof value === "string" ? value.slice(0, MAX_TEXT) : undefined);

/** The record of one running import: the engine's progress, saved as it goes, and its end. */
export class ImportJournal implements ImportProgress {
  readonly id: string;
  productsRead = 0;
  bytesReceived: number;
  state: ImportProgress["state"] = "receiving";
  private readonly base: Omit<ImportRecord, "state" | "updatedAt" | "bytesReceived" | "productsRead">;
  private readonly store: CatalogStore;
  private readonly site: Site;
  private readonly policy: HistoryPolicy;
  private saved = "";
  private savedAt = 0;
  private saving: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly finals: FinalSaves;

  constructor(store: CatalogStore, site: Site, policy: HistoryPolicy, start: ImportStart, finals: FinalSaves) {
    const now = Date.now();
    this.id = newImportId(now);
    this.store = store;
    this.site = site;
    this.policy = policy;
    this.finals = finals;
    const { options } = start;
    const { mode, missing } = options;
    const profile =
      typeof options.profile === "string" ? options.profile : (options.profile as { name?: unknown })?.name;
    const given = {
      idempotencyKey: options.idempotencyKey,
      requestId: options.requestId,
      tokenName: options.tokenName,
    };
    this.bytesReceived = Number.isSafeInteger(options.bytesReceived) ? Math.max(0, options.bytesReceived as number) : 0;
    this.base = {
      importId: this.id,
      siteId: site.siteId,
      siteType: site.siteType,
      channel: start.channel,
      format: start.format,
      ...(text(profile) === undefined ? {} : { profile: text(profile) as string }),
      // Refused for its options, an import is recorded with the default it would have had.
      mode: MODES.includes(mode) ? (mode as ImportRecord["mode"]) : "upsert",
      ...(MISSING.includes(missing) ? { missing: missing as NonNullable<ImportRecord["missing"]> } : {}),
      dryRun: options.dryRun === true,
      startedAt: iso(now),
      problemCount: 0,
      problems: [],
      ...Object.fromEntries(Object.entries(given).flatMap(([k, v]) => (text(v) === undefined ? [] : [[k, text(v)]]))),
    };
    this.timer = setInterval(() => this.tick(), TICK_MS).unref();
  }

  /** The record as it stands at `now`, with what its end adds. */
  record(now: number, end: Partial<ImportRecord> = {}): ImportRecord {
    const { state, bytesReceived, productsRead } = this;
    return { ...this.base, state, updatedAt: iso(now), bytesReceived, productsRead, ...end };
  }

  /** A body that counts its bytes into the record as the engine reads them. */
  counted(body: ByteSource): ByteSource {
    const journal = this;
    return (async function* counting() {
      for await (const chunk of body) {
        journal.bytesReceived += typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.byteLength;
        yield chunk;
      }
    })();
  }

  // A second's check: saves the record when it changed, or when the heartbeat is due.
  private tick(): void {
    if (this.saving !== undefined) return;
    const now = Date.now();
    const mark = `${this.bytesReceived} ${this.productsRead} ${this.state}`;
    if (mark === this.saved && now - this.savedAt < HEARTBEAT_MS) return;
    const value = JSON.stringify(this.record(now));
    // Called from a promise, so that a store that throws (not rejects) cannot throw in a timer.
    this.saving = Promise.resolve({ id: this.id, value })
      .then((entry) => this.store.saveImport(this.site, entry))
      .then(
        () => {
          this.saved = mark;
          this.savedAt = now;
          this.saving = undefined;
        },
        // A lost progress save is made again at the next tick.
        () => {
          this.saving = undefined;
        },
      );
  }

  /** Records the import's success and answers its summary with its id. */
  async succeeded<T extends ImportSummary>(summary: T): Promise<T & { importId: string }> {
    const { total, created, updated, unchanged, deleted, skipped } = summary;
    const counts = {
      total,
      created,
      updated,
      unchanged,
      ...(deleted === undefined ? {} : { deleted }),
      ...(skipped === undefined ? {} : { skipped }),
    };
    await this.finish({ state: "succeeded", counts, ...(summary.replayed ? { replayed: true } : {}) }, []);
    return { ...summary, importId: this.id };
  }

  /** Records the import's failure, with its problem report, and throws its error carrying the import's id. */
  async failed(error: unknown): Promise<never> {
    const report = error instanceof CatalogError ? reportOf(error).slice(0, this.policy.maxReportProblems) : [];
    const problemCount = error instanceof CatalogError ? Math.max(error.errorCount, report.length) : 0;
    const problems = report.slice(0, MAX_PROBLEMS).map(clipped);
    // An import the store failed is answered at once: its record is saved behind the answer, when the store is back.
    const wait = isCatalogError(error, "STORAGE_UNAVAILABLE") ? 0 : FINAL_WAIT_MS;
    await this.finish({ state: "failed", error: failure(error), problemCount, problems }, report, wait);
    throw withImportId(error, this.id);
  }

  // The final record, saved after any save in flight, retried behind the answer while the store
  // is unavailable; the answer waits for it a bounded time, so that the record is there to read
  // when the answer arrives, whatever the store.
  private async finish(end: Partial<ImportRecord>, report: readonly Problem[], wait = FINAL_WAIT_MS): Promise<void> {
    clearInterval(this.timer);
    const now = Date.now();
    const record = this.record(now, { ...end, endedAt: iso(now) });
    let deliveries: readonly Delivery[] = [];
    try {
      deliveries = this.policy.deliveries?.(record) ?? [];
    } catch {
      // Documented: a deliveries function that throws drops that record's deliveries.
    }
    const save: ImportSave = {
      ...(report.length === 0 ? {} : { problems: reportText(report) }),
      ...(deliveries.length === 0 ? {} : { deliveries }),
      trim: { keep: this.policy.keep, before: idPrefixAt(now - this.policy.maxAgeMs) },
    };
    const saved = this.saveFinal(record, save);
    if (wait > 0) await bounded(saved, wait);
  }

  private async saveFinal(record: ImportRecord, save: ImportSave): Promise<void> {
    await this.saving;
    await this.finals.save(this.store, this.site, { id: this.id, value: JSON.stringify(record) }, save);
    try {
      this.policy.onImportEnd?.(record);
    } catch {
      // Documented: the library user's callback handles its own errors.
    }
  }
}

/**
 * Runs imports under records of their own when the catalog keeps a history (`policy`), their
 * final saves in `finals`: `run` is given the import's journal and what makes its engine's
 * options tell it; its summary, or its error, then carries the import's id.
 */
export function importRecorder(store: CatalogStore, policy: HistoryPolicy | undefined, finals: FinalSaves) {
  const tell = (journal: ImportJournal | undefined) => (engine: EngineOptions) =>
    journal === undefined || policy === undefined
      ? engine
      : { ...engine, progress: journal, reportProblems: policy.maxReportProblems };
  return async <T extends ImportSummary>(
    site: Site,
    start: ImportStart,
    run: (journal: ImportJournal | undefined, told: (engine: EngineOptions) => EngineOptions) => Promise<T>,
  ): Promise<T> => {
    if (policy === undefined) return run(undefined, tell(undefined));
    const journal = new ImportJournal(store, site, policy, start, finals);
    let summary: T;
    try {
      summary = await run(journal, tell(journal));
    } catch (error) {
      return journal.failed(error);
    }
    return journal.succeeded(summary);
  };
}
