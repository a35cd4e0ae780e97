// What the store's modules share: how to call a script on a site's keys, and the tuning.
import type { Outcome } from "./errors.ts";
import type { KeyName, ScriptKeys } from "./keys.ts";
import type { Script } from "./lua.ts";

/** What the store's parts share: how to reach Redis, and the tuning. */
export interface StoreContext {
  /**
   * Calls a script on the keys it declares with its named arguments, and decodes its reply;
   * waits (bounded) while the keys' slot migrates.
   */
  call<Name extends KeyName, Args, Reply>(
    script: Script<Name, Args, Reply>,
    keys: Pick<ScriptKeys, Name>,
    args: NoInfer<Args>,
  ): Promise<Reply>;
  /** One HSCAN step (ZSCAN for a sorted set): the next cursor and the fields (members) it found. */
  scanFields(
    key: string,
    cursor: string,
    count: number,
    kind?: "hash" | "zset",
  ): Promise<[cursor: string, fields: string[]]>;
  /** Deletes keys, one command each (so a migrating slot never refuses them as a group). */
  drop(keys: readonly string[]): Promise<void>;
  /** Most products per script call. */
  readonly chunkSize: number;
  /** Calls in flight at once during a chunked import. */
  readonly window: number;
  readonly lockTtlMs: number;
  readonly busyTimeoutMs: number;
}

/** The store's wrapper of a call: a closed store, the eviction policy, errors as STORAGE_UNAVAILABLE. */
export type Operation = <T>(what: string, body: () => Promise<T>, outcome?: Outcome) => Promise<T>;

/** With `waitForReplicas`, waits until the replicas have every write made on the primary holding `key`. */
export type AfterWrite = (key: string) => Promise<void> | undefined;
