// Exactly-once imports: an idempotency key claimed in the store while its import runs, recorded
// with the commit (store.ts, clause 6 of `commit`), and answered again, not applied again, when
// the same request comes back with it.
import { createHash, type Hash } from "node:crypto";
import { CatalogError } from "./errors.ts";
import type { Site } from "./site.ts";
import type { CatalogStore, ImportCounts, KeyRecord } from "./store.ts";
import type { ByteSource } from "./text.ts";

/** Defaults of `CatalogOptions.idempotency`. */
export const IDEMPOTENCY_DEFAULTS = {
  /** How long a committed import's key is remembered: 24 hours. */
  retentionMs: 24 * 60 * 60 * 1000,
  /** How long a claim outlives a process that died while holding it: 10 minutes. */
  leaseMs: 10 * 60 * 1000,
} as const;

/** How long a client should wait before sending a key again that is in use, in seconds. */
export const KEY_IN_USE_RETRY_SECONDS = 1;

/** What an import's summary carries once its counts are known. */
export interface SummaryCounts extends ImportCounts {
  readonly total: number;
  readonly dryRun: boolean;
}

/** Why `key` cannot be an idempotency key (1 to 255 visible ASCII characters), or `undefined`. */
export function keyProblem(key: string): string | undefined {
  if (key.length === 0 || key.length > 255) return "Must be 1 to 255 characters";
  if (!/^[\x21-\x7e]+$/.test(key)) return "Must be visible ASCII characters (no space or control character)";
  return undefined;
}

/** An incremental SHA-256 of parts, each told apart from the next, so that no two lists of parts collide. */
export class Fingerprint {
  private readonly hash: Hash = createHash("sha256");

  /** Adds a part: its length first, so that ("ab", "c") and ("a", "bc") differ. */
  part(value: string | Uint8Array): this {
    const bytes = typeof value === "string" ? Buffer.from(value, "utf8") : value;
    this.hash.update(`${bytes.byteLength}:`);
    this.hash.update(bytes);
    return this;
  }

  /** The fingerprint, in hex; the object is spent. */
  digest(): string {
    return this.hash.digest("hex");
  }
}

/** An import's key, and its fingerprint (a function when known only once the body has been read). */
export interface ImportKey {
  readonly key: string;
  readonly fingerprint: () => string;
}

/** How a keyed import runs: how long its key is claimed and kept. */
export interface KeyPolicy {
  readonly retentionMs: number;
  readonly leaseMs: number;
}

/** The summary of a recorded import, as its commit answered it, marked as a replay. */
export function replayOf(record: KeyRecord, key: ImportKey): SummaryCounts & { replayed: true } {
  if (record.fingerprint !== key.fingerprint()) {
    throw new CatalogError(
      "IDEMPOTENCY_KEY_REUSED",
      `Idempotency key "${key.key}" was used for another request; use a new key for a new import`,
    );
  }
  const { created, updated, unchanged } = record.counts;
  return { total: created + updated + unchanged, ...record.counts, dryRun: false, replayed: true };
}

/** The `IDEMPOTENCY_KEY_IN_USE` error of `key`. */
export const keyInUse = (key: ImportKey) =>
  new CatalogError(
    "IDEMPOTENCY_KEY_IN_USE",
    `A request with idempotency key "${key.key}" is still running; send it again once it has ended`,
  );

/**
 * Runs `run` with `key` claimed: refused with `IDEMPOTENCY_KEY_IN_USE` while another request
 * holds it, answered from the record (after `drain` has read the body, for its fingerprint) once
 * an import committed with it, else run, and the claim let go however it ends. A body already in
 * memory (`drain` undefined: a dry run, which its commit does not check) is checked while the
 * claim is on its way: `run` is given the claim's promise, which it awaits before its first write.
 */
export async function runClaimed<T extends SummaryCounts>(
  store: CatalogStore,
  site: Site,
  key: ImportKey,
  policy: KeyPolicy,
  drain: (() => Promise<void>) | undefined,
  run: (claimed: Promise<void>) => Promise<T>,
): Promise<T | (SummaryCounts & { replayed: true })> {
  const claiming = store.claimKey(site, key.key, policy.leaseMs);
  if (drain !== undefined) {
    // A stream is read once: it waits for the claim before a byte of it is read.
    const claim = await claiming;
    if (claim.state === "busy") throw keyInUse(key);
    if (claim.state === "recorded") {
      await drain();
      return replayOf(claim.record, key);
    }
  }
  const claimed = claiming.then((claim) => {
    if (claim.state !== "claimed") throw keyInUse(key);
  });
  claimed.catch(() => {});
  let result: T;
  try {
    result = await run(claimed);
  } catch (error) {
    const claim = await claiming;
    // The key decides first: a request that is another's retry gets that import's answer.
    if (claim.state === "busy") throw keyInUse(key);
    if (claim.state === "recorded") return replayOf(claim.record, key);
    await claim.release().catch(() => {});
    throw error;
  }
  // The commit recorded the key, which every claim reads first: the claim no longer decides any
  // answer, so the import is answered without waiting for it to be let go (a round trip that
  // queues behind other imports' writes).
  const claim = await claiming;
  if (claim.state !== "claimed") throw new TypeError("an import ran without its key's claim");
  const release = claim.release().catch(() => {});
  if (result.dryRun !== false) await release;
  return result;
}

/** How a call tells its fingerprint, and reads the rest of a streamed body when it is answered from a record. */
export interface CallPrint {
  readonly fingerprint: () => string;
  /** Absent for a body already in memory. */
  readonly drain?: () => Promise<void>;
}

/** A fingerprint computed once, when first asked for (a hash can be read only once). */
export function once(compute: () => string): () => string {
  let value: string | undefined;
  return () => {
    value ??= compute();
    return value;
  };
}

/** The fingerprint of a call whose body is a value in memory (`parts` name the call and its options). */
export function valuePrint(parts: readonly string[], body: unknown): CallPrint {
  return {
    fingerprint: once(() => {
      const print = new Fingerprint();
      for (const part of parts) print.part(part);
      let text: string;
      try {
        text = typeof body === "string" ? body : (JSON.stringify(body) ?? "");
      } catch {
        // No JSON (a cycle, a bigint): no import could have committed it, so it matches no record.
        text = `unencodable ${Math.random()}`;
      }
      return print.part(text).digest();
    }),
  };
}

/**
 * A streamed body hashed as it passes (unless the caller has `fingerprinted` it), and the
 * fingerprint of the call (named by `parts`) once it has been read.
 */
export function streamPrint(
  parts: readonly string[],
  body: ByteSource,
  fingerprinted: boolean,
): CallPrint & { readonly body: ByteSource } {
  const hash = fingerprinted ? undefined : createHash("sha256");
  async function* tapped(): AsyncGenerator<Uint8Array | string> {
    for await (const chunk of body) {
      hash?.update(chunk);
      yield chunk;
    }
  }
  const source = tapped();
  const fingerprint = once(() => {
    const print = new Fingerprint();
    for (const part of parts) print.part(part);
    return print.part((hash as Hash).digest()).digest();
  });
  return {
    body: source,
    fingerprint,
    drain: async () => {
      for await (const _ of source);
    },
  };
}
