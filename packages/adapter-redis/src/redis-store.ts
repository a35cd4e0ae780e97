import {
  CatalogError,
  type CatalogStore,
  decodeProduct,
  type SkuConflict,
  type UpsertResult,
} from "@catalog-kit/catalog-core";
import { type Chunk, chunksOf } from "./chunk.ts";
import { chunkedUpsert } from "./chunked-upsert.ts";
import { bounded, connect, type RedisConnection, unavailable, whenReady } from "./connection.ts";
import { checkKeyPrefix, DEFAULT_KEY_PREFIX, type SiteKeys, siteKeys } from "./keys.ts";
import { FIND, REMOVE, runScript, type Script, UPSERT } from "./scripts.ts";
import { type StoreContext, whenFree } from "./site-lock.ts";

/** Tuning of a Redis store; the defaults suit a server. */
export interface RedisStoreTuning {
  /** Prefix of every key; must not contain `{` or `}`. Default `"catalog"`. */
  readonly keyPrefix?: string;
  /** Most products per script call; larger batches are imported in chunks. Default 1,000. */
  readonly chunkSize?: number;
  /** How long a chunked import's site lock lives without being renewed. Default 10,000 ms. */
  readonly lockTtlMs?: number;
  /** How long a write waits for a site that another import holds. Default 15,000 ms. */
  readonly busyTimeoutMs?: number;
}

/** Options of `createRedisStore`: a client the caller owns, a URL, or Cluster node URLs. */
export type RedisStoreOptions = RedisStoreTuning & RedisConnection;

// Script calls per chunk stay in the low milliseconds at this size (see the README's figures),
// and chunks of unusually large products are kept as short by their JSON size (`chunk.ts`).
const DEFAULT_CHUNK_SIZE = 1_000;
const WINDOW = 3;

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new TypeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

type Reply = (string | number)[];

const isBusy = (reply: Reply) => reply[0] === "busy";

/**
 * A `CatalogStore` in Redis or Redis Cluster. Each site's keys share one hash tag (see
 * `keys.ts`), and every step the contract calls atomic is one Lua script, except for imports
 * larger than one chunk, which are staged and then published in one O(1) step (see
 * `chunked-upsert.ts`). Errors and lost connections reject with `STORAGE_UNAVAILABLE`.
 */
export function createRedisStore(options: RedisStoreOptions): CatalogStore {
  const prefix = checkKeyPrefix(options.keyPrefix ?? DEFAULT_KEY_PREFIX);
  const chunkSize = positive("chunkSize", options.chunkSize, DEFAULT_CHUNK_SIZE);
  const lockTtlMs = positive("lockTtlMs", options.lockTtlMs, 10_000);
  const busyTimeoutMs = positive("busyTimeoutMs", options.busyTimeoutMs, 15_000);
  const connection = connect(options);
  const { client } = connection;
  let closed = false;

  const ctx: StoreContext = {
    run: (script, keys, args) => bounded(connection, runScript(client, script, keys, args)),
    async scanFields(key, cursor, count) {
      const [next, flat] = await bounded(connection, client.hscan(key, cursor, "COUNT", count));
      return [next, flat.filter((_, i) => i % 2 === 0)];
    },
    countKeys: (keys) => bounded(connection, client.exists(...keys)),
    chunkSize,
    window: WINDOW,
    lockTtlMs,
    busyTimeoutMs,
  };

  async function operation<T>(what: string, body: () => Promise<T>): Promise<T> {
    if (closed) throw new CatalogError("STORAGE_UNAVAILABLE", "The Redis store is closed");
    try {
      await whenReady(connection);
      return await body();
    } catch (error) {
      throw unavailable(error, what);
    }
  }

  // The one-call writes share their keys and wait out a chunked import the same way.
  function writeWhenFree(script: Script, keys: SiteKeys, args: readonly (string | Buffer)[]): Promise<Reply> {
    const scriptKeys = [keys.products, keys.skus, keys.skuOf, keys.lock, keys.merging.products];
    return whenFree(ctx, keys, async () => (await ctx.run(script, scriptKeys, args)) as Reply, isBusy);
  }

  async function upsertOnce(keys: SiteKeys, chunk: Chunk, dryRun: boolean): Promise<UpsertResult> {
    const reply = await writeWhenFree(UPSERT, keys, [dryRun ? "1" : "0", ...chunk.args]);
    if (reply[0] === "conflict") {
      const conflicts: SkuConflict[] = [];
      for (let i = 1; i < reply.length; i += 3) {
        conflicts.push({ sku: reply[i] as string, id: reply[i + 1] as string, heldBy: reply[i + 2] as string });
      }
      return { applied: false, conflicts };
    }
    const created = reply[1] as number;
    const unchanged = reply[2] as number;
    return { applied: true, counts: { created, updated: chunk.count - created - unchanged, unchanged } };
  }

  return {
    upsert: (site, products, { dryRun }) =>
      operation("upsert", async () => {
        const keys = siteKeys(prefix, site);
        if (products.length === 0) return { applied: true, counts: { created: 0, updated: 0, unchanged: 0 } };
        if (products.length <= chunkSize) {
          const chunks = [...chunksOf(products, chunkSize)];
          if (chunks.length === 1) return upsertOnce(keys, chunks[0] as Chunk, dryRun);
          return chunkedUpsert(ctx, keys, () => chunks, products, dryRun);
        }
        return chunkedUpsert(ctx, keys, () => chunksOf(products, chunkSize), products, dryRun);
      }),

    find: (site, key, by) =>
      operation("find", async () => {
        const keys = siteKeys(prefix, site);
        const json = (await ctx.run(
          FIND,
          [keys.products, keys.skus, keys.merging.products, keys.merging.skus],
          [key, by ?? ""],
        )) as string | null;
        return json === null ? undefined : decodeProduct(json);
      }),

    remove: (site, key, by) =>
      operation("remove", async () => {
        const keys = siteKeys(prefix, site);
        const reply = await writeWhenFree(REMOVE, keys, [key, by ?? ""]);
        return reply.length > 1 ? decodeProduct(reply[1] as string) : undefined;
      }),

    ping: () =>
      operation("ping", async () => {
        await bounded(connection, client.ping());
      }),

    async close() {
      if (closed) return;
      closed = true;
      connection.detach();
      if (!connection.owned) return;
      try {
        await Promise.race([client.quit(), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
      } catch {
        // Already disconnected: nothing to say goodbye to.
      } finally {
        client.disconnect();
      }
    },
  };
}
