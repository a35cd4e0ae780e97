// beginImport, the store's one write path. An import that fits in one script call is held here
// and committed by one UPSERT call; a larger one (or a replace) is never held by this process:
// each chunk goes to keys in Redis named by the import's token, kept in the shape of a site
// (keys.ts, IncomingKeys), out of sight and without the site lock; commit judges them there and
// publishes them by renaming them (stream-commit.ts).
import {
  CatalogError,
  type CommitResult,
  combineConflicts,
  type ImportCounts,
  ImportStaging,
  type KeyRecord,
  type Product,
  type SkuConflict,
  type StagedImport,
  type WriteOptions,
} from "@catalog-kit/catalog-core";
import { type Chunk, chunksOf } from "./chunk.ts";
import type { StoreContext } from "./context.ts";
import type { Outcome } from "./errors.ts";
import { checkedKey, type KeyArgs } from "./idempotency.ts";
import { InFlight } from "./in-flight.ts";
import { incomingKeys, type SiteKeys } from "./keys.ts";
import { newToken } from "./lock.ts";
import type { Tally } from "./publish.ts";
import { ADD, ADD_BASED } from "./scripts/import-add.ts";
import type { Bases } from "./scripts/upsert.ts";
import { commitIncoming } from "./stream-commit.ts";

/**
 * How long an import's keys outlive its last call, at least: between two adds the catalog waits
 * for the client's next chunk (the server cuts off a body silent for 10 s by default), and an
 * import whose process died is gone after this. During commit, its calls renew them as they
 * renew the lock, so they are kept at twice the lock's life when that is longer.
 */
export const INCOMING_TTL_MS = 60_000;

/** The answer of one UPSERT call, its conflicts without positions, or its idempotency key's record. */
export type OneCall =
  | { readonly applied: true; readonly counts: ImportCounts }
  | { readonly applied: false; readonly conflicts: readonly Omit<SkuConflict, "position">[] }
  | { readonly applied: false; readonly conflicts: readonly []; readonly recorded: KeyRecord }
  | { readonly applied: false; readonly conflicts: readonly []; readonly busy: true }
  | { readonly applied: false; readonly conflicts: readonly []; readonly stale: true };

/** What the store gives an import: its operation wrapper (closed store, eviction policy, errors), and WAIT. */
export interface StreamHost {
  operation<T>(what: string, body: () => Promise<T>, outcome?: Outcome): Promise<T>;
  /**
   * Applies products of distinct ids in one UPSERT call, checking `bases` and checking and
   * recording `key` with them; `undefined` when they do not fit in one.
   */
  upsertOnce(
    products: readonly Product[],
    dryRun: boolean,
    key: KeyArgs | undefined,
    bases: Bases | undefined,
  ): Promise<OneCall | undefined>;
  /** A base as ADD and UPSERT take it (`FoundProducts.digest`). */
  digest(base: Product | null): string;
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
 * `products` in runs of distinct ids, in order, as index ranges: the chunks of one run may be
 * staged at once, and an add that repeats an id (the contract allows it) has its runs staged
 * one after the other, so that the later product still wins and the first position is still the
 * first. Holds one add's ids at a time, never the import's.
 */
function* runs(products: readonly Product[]): Generator<[from: number, to: number]> {
  let ids = new Set<string>();
  let from = 0;
  for (let i = 0; i <= products.length; i++) {
    const id = products[i]?.id;
    if (i < products.length && !ids.has(id as string)) {
      ids.add(id as string);
      continue;
    }
    yield [from, i];
    ids = new Set([id as string]);
    from = i;
  }
}

// Each chunk of a run that starts at index `from` of its add, with the index range it carries.
function* chunksWith(run: readonly Product[], from: number, size: number): Generator<[Chunk, number, number]> {
  let at = from;
  for (const chunk of chunksOf(run, size)) {
    yield [chunk, at, at + chunk.count];
    at += chunk.count;
  }
}

/** A base as ADD takes it: `undefined` (none given) drops an earlier one of the id. */
function baseArg(host: StreamHost, base: Product | null | undefined): string {
  return base === undefined ? "-" : host.digest(base);
}

/** The bases of the ids whose last add gave one, as UPSERT takes them; `undefined` when none did. */
function lastBases(
  host: StreamHost,
  products: readonly Product[],
  bases: readonly (Product | null | undefined)[],
): Bases | undefined {
  const last = new Map<string, string>();
  products.forEach(({ id }, i) => {
    const base = bases[i];
    if (base === undefined) last.delete(id);
    else last.set(id, host.digest(base));
  });
  return last.size === 0 ? undefined : [...last].flat();
}

/**
 * Commits an import held in this process: its claims among its own ids, found here, with the
 * skus held in the site, found by one UPSERT call (a dry run when the claims refuse it anyway),
 * which answers `key`'s record instead when it has one. `undefined` when it does not fit in one call.
 */
async function commitHeld(
  host: StreamHost,
  held: ImportStaging,
  dryRun: boolean,
  key: KeyArgs | undefined,
  bases: Bases | undefined,
): Promise<CommitResult | undefined> {
  const claimed = held.claims();
  const reply = await host.upsertOnce([...held.byId.values()], dryRun || claimed.length > 0, key, bases);
  if (reply === undefined) return undefined;
  if ("recorded" in reply || "busy" in reply || "stale" in reply || (reply.applied && claimed.length === 0)) {
    return reply;
  }
  const stored = reply.applied ? [] : reply.conflicts.map((c) => ({ ...c, position: held.positionOf(c.id) }));
  return { applied: false, conflicts: combineConflicts(stored, claimed) };
}

/**
 * A `StagedImport` into `site`. While the import fits in one script call (and does not replace
 * the site), `add` keeps it here and `commit` sends it in one UPSERT call. Past that, `add` runs
 * one ADD script per chunk (a few in flight, across adds) and keeps only the sums of their
 * replies; `commit` takes the site lock only once the import has no conflict of its own. Every
 * path ends with the import's keys dropped (renamed away when it was published), and they expire
 * anyway.
 */
export function beginStream(ctx: StoreContext, site: SiteKeys, options: WriteOptions, host: StreamHost): StagedImport {
  const { dryRun } = options;
  // Named once something is staged: a small import never needs them.
  let named: ReturnType<typeof incomingKeys> | undefined;
  const incoming = () => (named ??= incomingKeys(site, newToken()));
  const ttlMs = Math.max(INCOMING_TTL_MS, 2 * ctx.lockTtlMs);
  const tally: Tally = { ids: 0, claimed: 0, contested: 0, unheld: 0, chunks: 0, based: 0 };
  // The import while it fits in one call: what `add` was given, as given; `bases` once an add
  // gave some (`undefined` for a product given without).
  let held:
    | { products: Product[]; positions: number[]; bases: (Product | null | undefined)[] | undefined }
    | undefined = options.replace ? undefined : { products: [], positions: [], bases: undefined };
  // Whether an add sent bases to Redis: every later chunk then says which of its ids keep one.
  let based = false;
  // Numbers the chunks sent, each once (the fields of in:pos).
  let sent = 0;
  // "broken" once an add may have been applied in part: the tally no longer describes the staging.
  let state: "open" | "broken" | "settled" = "open";
  // Nothing to drop while nothing was sent: a small import costs its one call.
  const drop = async () => {
    if (sent === 0) return;
    const keys = incoming();
    await ctx
      .drop([keys.inProducts, keys.inSkuOf, keys.inSkus, keys.inIds, keys.inPositions, keys.inSpans, keys.inBases])
      .catch(() => {});
  };

  // ADD calls outlive the add that sent them: Redis stages a chunk while the catalog checks the next.
  const flying = new InFlight();
  // Every call in flight landed, or the first failure among them thrown.
  async function allLanded(): Promise<void> {
    await flying.landed();
    flying.raise();
  }

  // Stages products in Redis, one ADD call per chunk, at most `ctx.window` in flight.
  async function stage(
    products: readonly Product[],
    positions: readonly number[],
    bases: readonly (Product | null | undefined)[] | undefined,
  ): Promise<void> {
    if (state === "broken") throw brokenByAdd();
    based ||= bases !== undefined;
    try {
      flying.raise();
      for (const [from, to] of runs(products)) {
        const run = products.slice(from, to);
        if (flying.meets(run)) await flying.landed();
        for (const [chunk, start, end] of chunksWith(run, from, ctx.chunkSize)) {
          await flying.landed(ctx.window);
          if (flying.failed) break;
          const staged = products.slice(start, end);
          const call = ctx.call(based ? ADD_BASED : ADD, incoming(), {
            ttlMs,
            chunkNumber: ++sent,
            positions: positions.slice(start, end),
            products: chunk,
            bases: based ? staged.map((_, i) => baseArg(host, bases?.[start + i])) : undefined,
          });
          flying.track(
            call.then((added) => {
              tally.ids += added.ids;
              tally.claimed += added.claimed;
              tally.contested += added.contested;
              tally.unheld += added.unheld;
              tally.chunks += 1;
              tally.based += added.based;
            }),
            staged,
          );
        }
        flying.raise();
      }
    } catch (error) {
      // Some of the products may be staged: the tally no longer describes the staging.
      state = "broken";
      throw error;
    }
  }

  // The held products go to Redis once the import outgrows one call.
  async function release(): Promise<void> {
    const given = held;
    held = undefined;
    if (given !== undefined && given.products.length > 0) await stage(given.products, given.positions, given.bases);
  }

  async function commitStaged(key: KeyArgs | undefined): Promise<CommitResult> {
    if (held !== undefined) {
      const staging = new ImportStaging();
      staging.add(held.products, held.positions);
      const bases = held.bases && lastBases(host, held.products, held.bases);
      const result = await commitHeld(host, staging, dryRun, key, bases);
      if (result !== undefined) return result;
      await release();
    }
    await allLanded();
    if (state === "broken") throw brokenByAdd();
    return commitIncoming(ctx, site, incoming(), tally, options, ttlMs, key);
  }

  return {
    async add(products, positions, bases) {
      if (positions.length !== products.length) {
        throw new TypeError(`add: ${products.length} products, but ${positions.length} positions`);
      }
      if (bases !== undefined && bases.length !== products.length) {
        throw new TypeError(`add: ${products.length} products, but ${bases.length} bases`);
      }
      if (state === "settled") throw settled();
      if (products.length === 0) return;
      if (held !== undefined && held.products.length + products.length <= ctx.chunkSize) {
        if (bases !== undefined) held.bases ??= held.products.map(() => undefined);
        for (let i = 0; i < products.length; i++) {
          held.products.push(products[i] as Product);
          held.positions.push(positions[i] as number);
          held.bases?.push(bases?.[i]);
        }
        return;
      }
      await host.operation(
        "import",
        async () => {
          await release();
          await stage(products, positions, bases);
        },
        "nothing written",
      );
    },

    async commit(given) {
      if (state === "settled") throw settled();
      try {
        // A dry run records nothing (the contract never gives it a key).
        const key = given && !dryRun ? checkedKey(given) : undefined;
        // The last chunks land first: one that fails has published nothing.
        if (!flying.idle) await host.operation("import", allLanded, "nothing written");
        return await host.operation(
          "commit of the import",
          async () => {
            const result = await commitStaged(key);
            // Even a commit that changed nothing waits, and one answered by its key's record: it may
            // be the retry of one whose wait failed.
            if ((result.applied || result.recorded) && !dryRun) await host.afterWrite();
            return result;
          },
          "unknown",
        );
      } finally {
        state = "settled";
        held = undefined;
        await drop();
      }
    },

    async abort() {
      state = "settled";
      held = undefined;
      await flying.landed();
      // A closed store sends nothing more; the keys expire.
      if (!host.isClosed()) await drop();
    },
  };
}
