// beginImport: an import that arrives in chunks and is never held by this process. Each chunk goes
// to keys in Redis named by the import's token, kept in the shape of a site (keys.ts,
// IncomingKeys), out of sight and without the site lock; commit judges them there and publishes
// them by renaming them (stream-commit.ts).
import type { Product, StagedImport, WriteOptions } from "@catalog-kit/catalog-core";
import { CatalogError } from "@catalog-kit/catalog-core";
import { type Chunk, chunksOf } from "./chunk.ts";
import type { StoreContext } from "./context.ts";
import type { Outcome } from "./errors.ts";
import { incomingKeys, type SiteKeys } from "./keys.ts";
import { newToken } from "./lock.ts";
import { ADD } from "./scripts.ts";
import { commitIncoming, type Tally } from "./stream-commit.ts";
import { windowed } from "./windowed.ts";

/**
 * How long an import's keys outlive its last call, at least: between two adds the catalog waits
 * for the client's next chunk (the server cuts off a body silent for 10 s by default), and an
 * import whose process died is gone after this. During commit, its calls renew them as they
 * renew the lock, so they are kept at twice the lock's life when that is longer.
 */
export const INCOMING_TTL_MS = 60_000;

/** What the store gives an import: its operation wrapper (closed store, eviction policy, errors), and WAIT. */
export interface StreamHost {
  operation<T>(what: string, body: () => Promise<T>, outcome?: Outcome): Promise<T>;
  /** Waits for replicas after a written commit (`waitForReplicas`), when configured. */
  afterWrite(): Promise<void> | undefined;
  isClosed(): boolean;
}

function settled(): Error {
  return new Error("This import was already committed or aborted");
}

function brokenByAdd(): CatalogError {
  return new CatalogError(
    "STORAGE_UNAVAILABLE",
    "An earlier chunk of this import failed to reach Redis, so its staging is incomplete; nothing was written",
  );
}

/**
 * `products` (with their positions) in runs of distinct ids, in order: the chunks of one run may
 * be staged at once, and an add that repeats an id (the contract allows it) has its runs staged
 * one after the other, so that the later product still wins and the first position is still the
 * first. Holds one add's ids at a time, never the import's.
 */
function* runs(products: readonly Product[], positions: readonly number[]): Generator<[Product[], number[]]> {
  let ids = new Set<string>();
  let from = 0;
  for (let i = 0; i <= products.length; i++) {
    const id = products[i]?.id;
    if (i < products.length && !ids.has(id as string)) {
      ids.add(id as string);
      continue;
    }
    yield [products.slice(from, i), positions.slice(from, i)];
    ids = new Set([id as string]);
    from = i;
  }
}

// Each chunk with the positions of its products, as one argument ("3 4 9").
function* withPositions(chunks: Iterable<Chunk>, positions: readonly number[]): Generator<[Chunk, string]> {
  let from = 0;
  for (const chunk of chunks) {
    yield [chunk, positions.slice(from, from + chunk.count).join(" ")];
    from += chunk.count;
  }
}

/**
 * A `StagedImport` into `site`. `add` runs one ADD script per chunk (a few in flight) and keeps
 * only the sums of their replies; `commit` takes the site lock only once the import has no
 * conflict of its own. Every path ends with the import's keys dropped (renamed away when it was
 * published), and they expire anyway.
 */
export function beginStream(ctx: StoreContext, site: SiteKeys, options: WriteOptions, host: StreamHost): StagedImport {
  const { dryRun } = options;
  const keys = incomingKeys(site, newToken());
  const ttlMs = Math.max(INCOMING_TTL_MS, 2 * ctx.lockTtlMs);
  const tally: Tally = { ids: 0, claimed: 0, contested: 0, unheld: 0, chunks: 0 };
  // Numbers the chunks sent, each once (the fields of in:pos).
  let sent = 0;
  // "broken" once an add may have been applied in part: the tally no longer describes the staging.
  let state: "open" | "broken" | "settled" = "open";
  const drop = () =>
    ctx.drop([keys.inProducts, keys.inSkuOf, keys.inSkus, keys.inIds, keys.inPositions, keys.inSpans]).catch(() => {});

  return {
    async add(products, positions) {
      if (positions.length !== products.length) {
        throw new TypeError(`add: ${products.length} products, but ${positions.length} positions`);
      }
      if (state === "settled") throw settled();
      if (products.length === 0) return;
      await host.operation(
        "import",
        async () => {
          if (state === "broken") throw brokenByAdd();
          try {
            for (const [run, at] of runs(products, positions)) {
              await windowed(withPositions(chunksOf(run, ctx.chunkSize), at), ctx.window, async ([chunk, where]) => {
                const reply = (await ctx.run(ADD, keys, [ttlMs, ++sent, where, ...chunk.args])) as number[];
                tally.ids += reply[0] as number;
                tally.claimed += reply[1] as number;
                tally.contested += reply[2] as number;
                tally.unheld += reply[3] as number;
                tally.chunks += 1;
              });
            }
          } catch (error) {
            state = "broken";
            throw error;
          }
        },
        "nothing written",
      );
    },

    async commit() {
      if (state === "settled") throw settled();
      const broken = state === "broken";
      state = "settled";
      try {
        return await host.operation(
          "commit of the import",
          async () => {
            if (broken) throw brokenByAdd();
            const result = await commitIncoming(ctx, site, keys, tally, options, ttlMs);
            // Even a commit that changed nothing waits: it may be the retry of one whose wait failed.
            if (result.applied && !dryRun) await host.afterWrite();
            return result;
          },
          "unknown",
        );
      } finally {
        await drop();
      }
    },

    async abort() {
      state = "settled";
      // A closed store sends nothing more; the keys expire.
      if (!host.isClosed()) await drop();
    },
  };
}
