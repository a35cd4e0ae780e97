// createRedisStore: the CatalogStore facade over the scripts, the staged import and the client.
import { setTimeout as sleep } from "node:timers/promises";
import { CatalogError, type CatalogStore, type Product } from "@catalog-kit/catalog-core";
import { chunksOf } from "./chunk.ts";
import { bounded, connect, type RedisConnection, whenReady } from "./connection.ts";
import type { StoreContext } from "./context.ts";
import { deliveryCalls } from "./deliveries.ts";
import { type Outcome, slotMoving, unavailable } from "./errors.ts";
import { FoundProducts } from "./found.ts";
import { checkEviction, probe } from "./health.ts";
import { historyCalls } from "./history.ts";
import { claimKey, type KeyArgs, wholeMs } from "./idempotency.ts";
import { checkKeyPrefix, DEFAULT_KEY_PREFIX, idempotencyKeys, lastSiteKeys, type SiteKeys } from "./keys.ts";
import { listPage } from "./list.ts";
import { removeWhenFree, whenFree } from "./lock.ts";
import { holderLookupBatcher, lookupBatcher, skuLookupBatcher } from "./lookup-batch.ts";
import { runScript } from "./lua.ts";
import { type Replication, replicated } from "./replication.ts";
import { FIND_MERGING } from "./scripts/find-merging.ts";
import { type Bases, UPSERT, UPSERT_KEYED } from "./scripts/upsert.ts";
import { beginStream, type OneCall } from "./staged-stream.ts";
import { tenantCalls } from "./tenants.ts";

/** Tuning of a Redis store; the defaults suit a server. */
export interface RedisStoreTuning {
  /** Prefix of every key; must not contain `{` or `}`. Default `"catalog"`. */
  readonly keyPrefix?: string;
  /** Most products per script call; larger batches are imported in chunks. Default 1,000. */
  readonly chunkSize?: number;
  /** How long an import's site lock lives without being renewed. Default 10,000 ms. */
  readonly lockTtlMs?: number;
  /** How long a write waits for a site that another import holds, or whose slot migrates. Default 15,000 ms. */
  readonly busyTimeoutMs?: number;
  /**
   * After each write, wait until this many replicas have it (Redis `WAIT`), so that a failover
   * right after cannot lose it; a write they do not confirm in `timeoutMs` fails with
   * `STORAGE_UNAVAILABLE` (it is applied on the primary; retrying is safe). Off by default.
   */
  readonly waitForReplicas?: Replication;
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

/**
 * A `CatalogStore` in Redis or Redis Cluster. Each site's keys share one hash tag (`keys.ts`),
 * every step the contract calls atomic is one Lua script (`scripts/`); an import that fits in
 * one call is one UPSERT, and a larger one, or a replace, waits in Redis, never in this process,
 * until its commit publishes it in one O(1) step (`staged-stream.ts`,
 * `stream-commit.ts`); `list` reads pages from each site's id index
 * (`list.ts`); the import history and the delivery queue are `history.ts` and `deliveries.ts`.
 * No command is ever sent twice (`connection.ts`); failures reject with `STORAGE_UNAVAILABLE`.
 */
export function createRedisStore(options: RedisStoreOptions): CatalogStore {
  const prefix = checkKeyPrefix(options.keyPrefix ?? DEFAULT_KEY_PREFIX);
  const chunkSize = positive("chunkSize", options.chunkSize, DEFAULT_CHUNK_SIZE);
  const lockTtlMs = positive("lockTtlMs", options.lockTtlMs, 10_000);
  const busyTimeoutMs = positive("busyTimeoutMs", options.busyTimeoutMs, 15_000);
  const replication = options.waitForReplicas;
  if (replication) {
    positive("waitForReplicas.replicas", replication.replicas, 1);
    positive("waitForReplicas.timeoutMs", replication.timeoutMs, 1);
  }
  const connection = connect(options);
  const { client } = connection;
  const lookup = lookupBatcher(client);
  const lookupByHolder = holderLookupBatcher(client);
  const found = new FoundProducts();
  const siteKeys = lastSiteKeys(prefix);
  let closed = false;

  // The eviction policy is checked once per connection, and again after a refusal.
  let evictionChecked: Promise<void> | undefined;
  // Whether the current check passed: then a call on a ready client awaits nothing before its
  // body (a merge makes a lookup per record).
  let evictionOk = false;
  const recheck = () => {
    evictionChecked = undefined;
    evictionOk = false;
  };
  client.on("ready", recheck);

  const ctx: StoreContext = {
    // While a slot migrates, Redis refuses scripts whose keys are not all on one node yet
    // (TRYAGAIN) before running anything: those are sent again until `busyTimeoutMs`.
    async call(script, keys, args) {
      const argv = script.encode(args);
      const deadline = Date.now() + busyTimeoutMs;
      for (let pause = 20; ; pause = Math.min(pause * 2, 200)) {
        let raw: unknown;
        try {
          raw = await bounded(connection, runScript(client, script, keys, argv));
        } catch (error) {
          if (!slotMoving(error) || Date.now() + pause > deadline) throw error;
          await sleep(pause);
          continue;
        }
        return script.decode(raw);
      }
    },
    async scanFields(key, cursor, count, kind = "hash") {
      const scan =
        kind === "zset" ? client.zscan(key, cursor, "COUNT", count) : client.hscan(key, cursor, "COUNT", count);
      const [next, flat] = await bounded(connection, scan);
      // Field, value (member, score), field, value...
      return [next, flat.filter((_, i) => i % 2 === 0)];
    },
    async drop(keys) {
      await Promise.all(keys.map((key) => bounded(connection, client.unlink(key))));
    },
    chunkSize,
    window: WINDOW,
    lockTtlMs,
    busyTimeoutMs,
  };

  async function operation<T>(what: string, body: () => Promise<T>, outcome?: Outcome): Promise<T> {
    if (closed) throw new CatalogError("STORAGE_UNAVAILABLE", "The Redis store is closed");
    if (!evictionOk || client.status !== "ready") {
      try {
        await whenReady(connection);
        if (evictionChecked === undefined) {
          const check: Promise<void> = checkEviction(connection).then(
            () => {
              // A check of an earlier connection says nothing of this one.
              if (evictionChecked === check) evictionOk = true;
            },
            (error: unknown) => {
              recheck();
              throw error;
            },
          );
          evictionChecked = check;
        }
        await evictionChecked;
      } catch (error) {
        throw unavailable(error, what, outcome && "nothing written");
      }
    }
    try {
      return await body();
    } catch (error) {
      throw unavailable(error, what, outcome);
    }
  }

  const lookupBySku = skuLookupBatcher(ctx);

  const afterWriteOn = (key: string) => (replication ? replicated(connection, replication, key) : undefined);
  const afterWrite = (keys: SiteKeys) => afterWriteOn(keys.products);

  // An import that fits in one script call: one UPSERT, the fast path of small imports. Under an
  // idempotency key, even an empty one is sent: the call checks and records the key.
  async function upsertOnce(
    keys: SiteKeys,
    products: readonly Product[],
    dryRun: boolean,
    key: KeyArgs | undefined,
    bases: Bases | undefined,
  ): Promise<OneCall | undefined> {
    const chunks = chunksOf(products, chunkSize);
    const first = chunks.next();
    if (first.done && key === undefined) return { applied: true, counts: { created: 0, updated: 0, unchanged: 0 } };
    if (!first.done && !chunks.next().done) return undefined;
    const chunk = first.done ? undefined : first.value;
    const reply = await whenFree(ctx, keys, () =>
      key === undefined
        ? ctx.call(UPSERT, keys, { dryRun, products: chunk as NonNullable<typeof chunk>, bases })
        : ctx.call(
            UPSERT_KEYED,
            { ...keys, ...idempotencyKeys(keys, key.key) },
            { dryRun, products: chunk, record: key, claimed: key.claimed, bases },
          ),
    );
    if (reply.outcome === "stale") return { applied: false, conflicts: [], stale: true };
    if (reply.outcome === "recorded") return { applied: false, conflicts: [], recorded: reply.record };
    if (reply.outcome === "claimed") return { applied: false, conflicts: [], busy: true };
    if (reply.outcome === "conflicts") return { applied: false, conflicts: reply.conflicts };
    const { created, unchanged } = reply;
    const count = chunk?.count ?? 0;
    return { applied: true, counts: { created, updated: count - created - unchanged, unchanged } };
  }

  return {
    beginImport: (site, options) =>
      operation("import", async () => {
        const keys = siteKeys(site);
        return beginStream(ctx, keys, options, {
          operation,
          upsertOnce: (products, dryRun, key, bases) => upsertOnce(keys, products, dryRun, key, bases),
          afterWrite: () => afterWrite(keys),
          isClosed: () => closed,
          digest: (base) => found.digest(base),
        });
      }),

    find: (site, key, by) =>
      operation("find", async () => {
        const keys = siteKeys(site);
        // A lookup that may be by id starts with one plain HMGET (batched with others asked at
        // once, lookup-batch.ts), which Redis serves at a fraction of a script call's cost: the
        // product, and the mark of an import still merging (then the product may lie in the
        // merging import: FIND_MERGING reads through it). A state field's name is no id (ids hold
        // no control characters), so such a key matches nothing.
        if (key.charCodeAt(0) === 0) return undefined;
        if (by !== "sku") {
          const [merging, json] = await bounded(connection, lookup(keys.products, key));
          if (merging !== null) return (await ctx.call(FIND_MERGING, keys, { key, by })).product;
          if (json !== null) return found.decode(json);
          if (by === "id") return undefined;
        } else {
          // By sku only: the holder from the skus hash, then its product and the merging mark,
          // two plain HMGETs a batch in place of a script, which cost Redis about three times as
          // much (4.5 µs a lookup against 1.7, in batches of 500). The two reads are apart, so
          // their answer stands only when the product read second still has the sku, and no
          // import is merging: skus are unique at every moment, so that product held the sku
          // then. Anything else (no holder, a product moved on or gone) is asked of FIND_SKUS,
          // which reads one moment.
          const held = await bounded(connection, lookupByHolder(keys, key));
          if (held !== undefined) {
            const [merging, json] = held;
            if (merging !== null) return (await ctx.call(FIND_MERGING, keys, { key, by })).product;
            const product = json === null ? undefined : found.decode(json);
            if (product?.sku === key) return product;
          }
        }
        // By sku, or by id then sku after a miss by id: one script call for all those asked of
        // the site at once (FIND_SKUS reads the id again, in the same moment as the sku).
        const looked = await lookupBySku(keys, { key, by });
        if (looked !== "merging") return looked.json === undefined ? undefined : found.decode(looked.json);
        return (await ctx.call(FIND_MERGING, keys, { key, by })).product;
      }),

    list(site, after, limit) {
      // A caller's mistake, not Redis's: thrown as it is, never as STORAGE_UNAVAILABLE.
      if (!Number.isSafeInteger(limit) || limit < 0) {
        return Promise.reject(new TypeError(`list: limit must be a whole number, got ${limit}`));
      }
      return operation("list", () => listPage(ctx, siteKeys(site), after, limit));
    },

    remove: (site, key, by, expected) =>
      operation(
        "remove",
        async () => {
          const keys = siteKeys(site);
          const removed = await removeWhenFree(ctx, keys, {
            key,
            by,
            expected: expected && found.body(expected),
          });
          await afterWrite(keys);
          return removed.product;
        },
        "unknown",
      ),

    claimKey(site, key, leaseMs) {
      let lease: number;
      try {
        lease = wholeMs("leaseMs", leaseMs);
      } catch (error) {
        // A caller's mistake, not Redis's: thrown as it is.
        return Promise.reject(error);
      }
      const keys = siteKeys(site);
      return operation("claim of the idempotency key", async () => {
        const claim = await claimKey(ctx, keys, key, lease, () => closed);
        // A record answered is a write acknowledged again (its first wait may have failed).
        if (claim.state === "recorded") await afterWrite(keys);
        return claim;
      });
    },

    ...tenantCalls(ctx, prefix, operation),
    ...historyCalls(ctx, prefix, siteKeys, operation, afterWriteOn),
    ...deliveryCalls(ctx, prefix, operation, afterWriteOn),

    ping: () => operation("health check", () => probe(connection)),

    async close() {
      if (closed) return;
      closed = true;
      connection.detach();
      client.off("ready", recheck);
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
