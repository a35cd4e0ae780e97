// What the store's modules share: how to run a script on a site's keys, and the tuning.
import type { KeyName, ScriptKeys } from "./keys.ts";
import type { Script } from "./lua.ts";

/** What the store's parts share: how to reach Redis, and the tuning. */
export interface StoreContext {
  /** Runs a script on the keys it declares; waits (bounded) while the keys' slot migrates. */
  run<Name extends KeyName>(
    script: Script<Name>,
    keys: Pick<ScriptKeys, Name>,
    args: readonly (string | Buffer | number)[],
  ): Promise<unknown>;
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
