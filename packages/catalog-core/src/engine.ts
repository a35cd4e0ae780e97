// The import engine: every import, whatever its channel and size, is a source of located records
// (sources.ts) run through this one loop, which validates, applies the limits and stages chunks
// into the store while the records arrive, then commits all-or-nothing.

import type { MissingPolicy } from "./catalog-options.ts";
import { CatalogError, emptyReplace, type Problem } from "./errors.ts";
import { type ImportKey, keyInUse, replayOf } from "./idempotency.ts";
import { concurrentUpdate, type Looking, MERGE_ATTEMPTS, type MergedChunk, MergeStage, pause } from "./merge-stage.ts";
import { checkProducts, Problems } from "./parse.ts";
import type { Product } from "./product.ts";
import type { Site } from "./site.ts";
import type { RecordSource } from "./sources.ts";
import type { CatalogStore, ImportCounts, SkuConflict, StagedImport, WriteOptions } from "./store.ts";

/** What an import did: `total` distinct ids, of which `created + updated + unchanged == total`. */
export interface ImportSummary extends ImportCounts {
  readonly total: number;
  readonly dryRun: boolean;
  /** True when an import with the same idempotency key had committed: nothing was applied again, and the counts are that import's. */
  readonly replayed?: true;
  /** The profile a document was read with (`"native"`, `"shopify"`, ...), when the call named one. */
  readonly profile?: string;
  /** The columns of the file the catalog does not keep, in the order met, with `profile`. */
  readonly ignoredColumns?: readonly string[];
  /** A merge's records that named no product, with `missing: "skip"` (0 otherwise); merges only. */
  readonly skipped?: number;
  /** The ids or skus of the first 100 records skipped, in request order; merges only. */
  readonly skippedKeys?: readonly string[];
  /** The import's id in its site's history (`Catalog.getImport`); absent when the catalog keeps none. */
  readonly importId?: string;
}

/** How far a running import got, as the engine tells it while it runs: what its record shows. */
export interface ImportProgress {
  /** Records read so far, refused ones included. */
  productsRead: number;
  state: "receiving" | "committing";
}

/** The options of one run of the engine. */
export interface EngineOptions extends WriteOptions {
  /** Most records the import may carry. */
  readonly limit: number;
  /** A replace with no products is refused unless this is true. */
  readonly allowEmpty?: boolean;
  /**
   * The idempotency key the commit records (a dry run records none), kept `retainMs`; with a
   * `claim` (the key's, asked while the records are checked), nothing is written before it resolves.
   */
  readonly key?: ImportKey & { readonly retainMs: number; readonly claim?: Promise<void> };
  /** A merge: each record changes the fields it carries of the product it names. */
  readonly merge?: MergeOptions;
  /** Told the records read and the commit's start, when the import is recorded. */
  readonly progress?: ImportProgress;
  /** Problems an error keeps for the import's report, past the `MAX_PROBLEMS` it lists. */
  readonly reportProblems?: number;
}

// Products handed to the store at once: a few megabytes in memory, and several of a networked
// store's calls, which it may have in flight together while the next chunk is decoded (measured:
// 3,000 took a 1 GiB NDJSON import into Redis from 0.92x to 1.0x the buffered import's rate).
const CHUNK = 3_000;

// Records a merge reads and merges at a time (its products are staged MERGE_CHUNK at a time): the
// stored products it reads stay alive until merged, and 3,000 of them at once, decoded, outlived
// the young generation's collections. 500, one batch of the stores' lookups, took a merge of
// 300,000 products into PostgreSQL from peaks of 336-382 MB to 275-293, at the same rate.
const MERGE_STEP = 500;

// Products a merge hands to the store at once: each waits with its base (the stored product it
// was merged onto, decoded) until its chunk is staged, and CHUNK of them at once outlived the
// young generation's collections. A million products merged through the server with 1,000 instead
// of 3,000 peaked at 350-363 MB instead of 410-446 on PostgreSQL, 337-338 instead of 364-379 on
// Redis, at the same rate or better.
const MERGE_CHUNK = 1_000;

// Steps of a merge whose lookups are out while an earlier one is merged, so that the store reads
// while the catalog merges: with 2, a merge of 200,000 products into Redis waited about 4 s on its
// lookups before the commit, against 6.7 s of 8.7 s one step at a time.
const LOOK_AHEAD = 2;

/** The `TOO_MANY_PRODUCTS` error; `exact` when every record was counted. */
export function tooMany(limit: number, received: number, exact: boolean): CatalogError {
  const has = exact ? `${received}` : `more (${received} so far)`;
  return new CatalogError("TOO_MANY_PRODUCTS", `An import may carry at most ${limit} products; this one has ${has}`, {
    limit,
    received,
  });
}

/** The `SKU_CONFLICT` error of a commit's conflicts, in the order of the import. */
export function conflictError(
  conflicts: readonly SkuConflict[],
  source: Pick<RecordSource, "locate">,
  keep?: number,
): CatalogError {
  const problems = new Problems(keep);
  const sorted = [...conflicts].sort((a, b) => a.position - b.position);
  for (const { sku, heldBy, position } of sorted) {
    problems.add({
      ...source.locate(position, ["sku"]),
      message: `sku "${sku}" is held by product "${heldBy}"`,
      sku,
      heldBy,
    });
  }
  return problems.toError("SKU_CONFLICT", "Conflicting skus");
}

const placeOf = (problem: Problem) => problem.row ?? problem.line ?? problem.item ?? 0;

// Problems of two lists as one, in the order of the import.
function joined(first: Problems, second: Problems): Problems {
  const all = new Problems(Math.max(first.keep, second.keep));
  for (const problem of [...first.list, ...second.list].sort((a, b) => placeOf(a) - placeOf(b))) all.add(problem);
  all.count = first.count + second.count;
  return all;
}

/**
 * The error of an import's problems: those of its structure first by code, all in the order of
 * the import; a merge's records that name no product alone are `PRODUCT_NOT_FOUND`.
 */
function problemError(source: RecordSource, checked: Problems, notFound: number): CatalogError {
  const invalid = source.values === undefined ? checked : joined(source.values, checked);
  const structure = source.structure;
  if (structure === undefined || structure.problems.count === 0) {
    if (notFound === invalid.count) return invalid.toError("PRODUCT_NOT_FOUND", "Records name no product");
    return invalid.toError("VALIDATION_FAILED", "Invalid products");
  }
  return joined(structure.problems, invalid).toError(structure.code, structure.what);
}

/** What a merge import needs: how it treats records that name no product. */
export interface MergeOptions {
  readonly missing: MissingPolicy;
}

/**
 * Imports the records of `source` into `site`: every problem located and reported (nothing
 * written then), at most `options.limit` records, then the store's commit, all-or-nothing.
 * Products go to the store in chunks as they are decoded, one `add` in flight while the next
 * chunk is read; once any problem is found, the staging is dropped and the rest is only
 * checked. A failure of the source (a client gone) or of the store aborts the staging. A merge
 * whose commit is stale is merged anew from its records, onto the products as they are then.
 */
export async function runImport(
  store: CatalogStore,
  site: Site,
  source: RecordSource,
  options: EngineOptions,
): Promise<ImportSummary> {
  const { merge } = options;
  let parts = source.parts;
  for (let attempt = 1; ; attempt++) {
    const stage = merge && new MergeStage(store, site, merge.missing);
    const summary = await runOnce(store, site, { ...source, parts }, options, stage);
    if (summary !== STALE) return summary;
    if (stage === undefined || !stage.replayable || attempt === MERGE_ATTEMPTS) throw concurrentUpdate();
    await pause(attempt);
    parts = stage.records();
  }
}

const STALE = Symbol("stale");

async function runOnce(
  store: CatalogStore,
  site: Site,
  source: RecordSource,
  options: EngineOptions,
  merging: MergeStage | undefined,
): Promise<ImportSummary | typeof STALE> {
  const { limit, dryRun, replace = false, progress, reportProblems } = options;
  const write: WriteOptions = replace ? { dryRun, replace } : { dryRun };
  const invalid = new Problems(reportProblems);
  if (reportProblems !== undefined) {
    source.structure?.problems.keepUpTo(reportProblems);
    source.values?.keepUpTo(reportProblems);
  }
  const failed = () => invalid.count + (source.structure?.problems.count ?? 0) + (source.values?.count ?? 0) > 0;
  let staged: StagedImport | undefined;
  let pending: Promise<void> | undefined;
  let products: Product[] = [];
  let positions: number[] = [];
  let bases: (Product | null)[] = [];
  let count = 0;

  async function begin(): Promise<StagedImport> {
    await options.key?.claim;
    return store.beginImport(site, write);
  }

  // One add in flight while the next chunk is decoded; the catalog never calls the store twice at once.
  async function settle(): Promise<void> {
    const last = pending;
    pending = undefined;
    await last;
  }
  async function flush(): Promise<void> {
    await settle();
    staged ??= await begin();
    pending = merging ? staged.add(products, positions, bases) : staged.add(products, positions);
    pending.catch(() => {}); // awaited by the next settle()
    products = [];
    positions = [];
    bases = [];
  }
  async function drop(): Promise<void> {
    products = [];
    positions = [];
    bases = [];
    const dropping = staged;
    staged = undefined;
    await settle().catch(() => {});
    await dropping?.abort().catch(() => {});
  }
  function take(chunk: MergedChunk): void {
    for (let i = 0; i < chunk.products.length; i++) {
      products.push(chunk.products[i] as Product);
      positions.push(chunk.positions[i] as number);
      bases.push(chunk.bases[i] as Product | null);
    }
  }
  // A merge's steps whose stored products are being read, oldest first.
  const looking: Looking[] = [];
  // Merges the oldest step read, in request order.
  async function mergeNext(stage: MergeStage): Promise<void> {
    take(await stage.merged(looking.shift() as Looking, invalid));
    if (failed()) await drop();
    else if (products.length >= MERGE_CHUNK) await flush();
  }

  try {
    for await (const part of source.parts) {
      count += part.count ?? part.records.length;
      if (progress !== undefined) progress.productsRead = count;
      if (count > limit) {
        if (!source.buffered) throw tooMany(limit, count, false);
        if (source.reading) source.reading.counting = true;
        await drop();
        continue;
      }
      // A part of a buffered import may hold all of it: checked a chunk at a time, so that the
      // store stages each chunk while the next is checked.
      const { records, positions: at } = part;
      const locate = (i: number, path: readonly PropertyKey[]) => source.locate(at[i] as number, path);
      const step = merging ? MERGE_STEP : CHUNK;
      for (let from = 0; from < records.length; from += step) {
        const to = Math.min(records.length, from + step);
        if (merging) {
          const slice = (i: number, path: readonly PropertyKey[]) => locate(from + i, path);
          looking.push(merging.look(records.slice(from, to), at.slice(from, to), slice));
          if (looking.length > LOOK_AHEAD) await mergeNext(merging);
          continue;
        }
        const valid = checkProducts(records, locate, invalid, from, to);
        if (failed()) {
          await drop();
          continue;
        }
        for (let i = 0; i < valid.length; i++) {
          products.push(valid[i] as Product);
          positions.push(at[from + i] as number);
        }
        if (products.length >= CHUNK) await flush();
      }
    }
    if (count > limit) throw tooMany(limit, count, true);
    if (merging) {
      while (looking.length > 0) await mergeNext(merging);
      if (!failed()) take(await merging.finish(source.locate, invalid));
    }
    if (failed()) throw problemError(source, invalid, merging?.notFound ?? 0);
    if (count === 0 && replace && !options.allowEmpty) throw emptyReplace();
    if (products.length > 0) await flush();
    await settle();
    staged ??= await begin();
    if (progress !== undefined) progress.state = "committing";
    const { key } = options;
    const result = await staged.commit(
      key && !dryRun
        ? { key: key.key, fingerprint: key.fingerprint(), retainMs: key.retainMs, claimed: key.claim !== undefined }
        : undefined,
    );
    staged = undefined;
    if (!result.applied && result.stale) return STALE;
    if (!result.applied && result.recorded) return replayOf(result.recorded, key as ImportKey);
    if (!result.applied && result.busy) throw keyInUse(key as ImportKey);
    if (!result.applied) throw conflictError(result.conflicts, source, reportProblems);
    const { created, updated, unchanged } = result.counts;
    const { report } = source;
    const read = report && { profile: report.profile, ignoredColumns: [...report.ignoredColumns] };
    const merged = merging && { skipped: merging.skipped, skippedKeys: [...merging.skippedKeys] };
    return { total: created + updated + unchanged, ...result.counts, dryRun, ...read, ...merged };
  } catch (error) {
    await drop();
    throw error;
  }
}
