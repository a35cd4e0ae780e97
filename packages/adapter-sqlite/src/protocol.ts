// The messages between the store (main thread) and its writer thread: a request with an id, and
// one answer with the same id. Everything in them survives a structured clone: products as
// plain objects, bodies as strings, an error as its code, message and cause's fields.
import type {
  ClaimedDelivery,
  CommitResult,
  HistoryEntry,
  ImportSave,
  KeyField,
  KeyRecord,
  KeyToRecord,
  TenantWrite,
  UsageCount,
  WriteOptions,
} from "@catalog-kit/catalog-core";

/** What the store opens its writer thread with (`workerData`). */
export interface WriterOptions {
  readonly path: string;
  readonly busyTimeoutMs: number;
}

/** A call of the writer thread; `site` is a `siteKey`. */
export type WriterRequest =
  | { readonly op: "begin"; readonly site: string; readonly options: WriteOptions }
  | {
      readonly op: "add";
      readonly import: number;
      /** Each product's id, sku and `encodeProduct` body, one after another. */
      readonly rows: readonly string[];
      readonly positions: readonly number[];
      /** The bases' bodies as `find` read them (`null`: no product), when the add gave bases. */
      readonly bases: readonly (string | null)[] | undefined;
    }
  | { readonly op: "commit"; readonly import: number; readonly key: KeyToRecord | undefined }
  | { readonly op: "abort"; readonly import: number }
  | {
      readonly op: "remove";
      readonly site: string;
      readonly key: string;
      readonly by: KeyField | undefined;
      /** The body of the product the caller expects, when it gave one. */
      readonly expected: string | undefined;
    }
  | { readonly op: "claim"; readonly site: string; readonly key: string; readonly leaseMs: number }
  | { readonly op: "release"; readonly site: string; readonly key: string; readonly token: string }
  | { readonly op: "tenant"; readonly change: TenantWrite }
  | { readonly op: "usage"; readonly counts: readonly UsageCount[]; readonly ttlMs: number }
  | { readonly op: "saveImport"; readonly site: string; readonly entry: HistoryEntry; readonly save: ImportSave }
  | { readonly op: "claimDeliveries"; readonly now: number; readonly leaseMs: number; readonly limit: number }
  | {
      readonly op: "settleDelivery";
      readonly id: string;
      readonly lease: string;
      readonly next: { readonly dueAt: number; readonly value: string } | undefined;
    }
  | { readonly op: "close" };

/** What each request answers. */
export interface WriterAnswers {
  begin: number;
  add: undefined;
  commit: CommitResult;
  abort: undefined;
  remove: string | undefined;
  claim: { state: "recorded"; record: KeyRecord } | { state: "busy" } | { state: "claimed"; token: string };
  release: undefined;
  tenant: boolean;
  usage: number[];
  saveImport: undefined;
  claimDeliveries: ClaimedDelivery[];
  settleDelivery: boolean;
  close: undefined;
}

/** A failure, as the main thread rebuilds it into a `CatalogError`. */
export interface WriterFailure {
  readonly code: string;
  readonly message: string;
  /** The fields of the original error (SQLite's `errcode` among them), for the operator's log. */
  readonly cause: Readonly<Record<string, unknown>> | undefined;
}

/** The message to the writer thread. */
export interface WriterMessage {
  readonly id: number;
  readonly request: WriterRequest;
}

/** The answer of the writer thread to the message `id`. */
export type WriterReply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly failure: WriterFailure };
