// The storage contract: what a catalog asks of the store that keeps its products, and what it answers.
import type { Product } from "./product.ts";
import type { Site } from "./site.ts";

/** What an upsert did; `created + updated + unchanged` equals the batch size. */
export interface UpsertCounts {
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
  /** With `replace`: the products of the site the batch did not name, deleted (or, in a dry run, to delete). */
  readonly deleted?: number;
}

/** A sku that the batch gives to `id` while another product of the site, `heldBy`, keeps it. */
export interface SkuConflict {
  readonly sku: string;
  readonly id: string;
  readonly heldBy: string;
  /** In a staged import's answer: the position `add` was last given with `id`. */
  readonly position?: number;
}

/** The outcome of `CatalogStore.upsert`: applied with its counts, or refused whole. */
export type UpsertResult =
  | { readonly applied: true; readonly counts: UpsertCounts }
  | { readonly applied: false; readonly conflicts: readonly SkuConflict[] };

/** Whether an import writes, or only checks and counts; and whether it is the site's whole catalog. */
export interface WriteOptions {
  readonly dryRun: boolean;
  /**
   * The batch is the site's whole catalog: in the same atomic step, every product of the site
   * whose id the batch does not name is deleted and its sku freed (so a product of the batch
   * may take it, and no sku of the site is then a conflict), and the counts say how many in
   * `deleted`. Without it, `deleted` is absent.
   */
  readonly replace?: boolean;
}

/**
 * An import too large to hold at once, staged out of sight chunk by chunk, then committed (or
 * aborted) as one atomic step. Begun by `CatalogStore.beginImport`; the catalog never calls one
 * method before the previous one resolved.
 */
export interface StagedImport {
  /**
   * Stages a chunk; nothing becomes visible to readers. Ids and skus may repeat, within the
   * chunk and across chunks: a product whose id was staged before (earlier in this chunk or in
   * an earlier one) replaces it (the later wins, and counts once), and skus are judged at
   * `commit`, on the state after the import. `positions[i]` is where `products[i]` stands in the request (a line or a row);
   * positions increase over the whole import, and a conflict answers with the position of its id.
   * A store may check the site while staging, but the site may change until `commit`, which
   * must judge the import against the state it replaces.
   */
  add(products: readonly Product[], positions: readonly number[]): Promise<void>;

  /**
   * Applies every staged product (the last of each id) as `upsert` applies a batch: all or
   * nothing, the same counts, the same conflicts with the site, each with the `position` of its
   * id. When staged ids claim one sku among themselves, only those conflicts are answered: every
   * claimer but the one first staged (smallest first position), `heldBy` that first claimer.
   * With `dryRun`, the same answer and nothing written. With `replace`, the site's other
   * products go in the same step (see `WriteOptions.replace`). The staging is released either way.
   */
  commit(): Promise<UpsertResult>;

  /** Drops the staging: nothing becomes visible. Safe at any time, twice, and after `commit`. */
  abort(): Promise<void>;
}

/** Which field `find` and `remove` match the key against; `undefined` means id, then sku. */
export type KeyField = "id" | "sku";

/**
 * Where a catalog keeps its products: the contract every storage adapter implements.
 * Implementations prove it by running `testCatalogStore` from `@catalog-kit/catalog-core/testing`.
 *
 * The catalog validates and dedupes before calling a store, so a store holds no business rules
 * beyond the atomic steps below. Sites are opaque: a store never lists or creates them, and
 * products of one site are never visible through another (sites differing only in `siteType`
 * included). Infrastructure failures reject with `CatalogError` code `STORAGE_UNAVAILABLE`
 * (with the original error as `cause`); a store never leaves a batch half-written.
 */
export interface CatalogStore {
  /**
   * Applies a batch to a site as one atomic step: every product or none, even against
   * concurrent upserts from other processes (a Lua script, a SQL transaction, no `await`
   * between check and write in memory).
   *
   * `products` have distinct ids and distinct skus (the catalog guarantees it). Each replaces
   * the stored product with its id whole; a product whose sku changed frees its old sku.
   * SKU uniqueness is judged on the state after the batch: a sku is in conflict when a stored
   * product of the site holds it and that product's id is not in the batch (a product in the
   * batch gets its new sku, so two products may swap skus). With any conflict, nothing is written and
   * every conflict is returned. Otherwise counts compare each product with the one it replaces:
   * `created` (no product with that id), `unchanged` (`encodeProduct` equal), else `updated`.
   *
   * With `dryRun`, the same checks and counts, and nothing written.
   *
   * The store may keep the objects of `products` as they are: the catalog hands every upsert
   * objects of its own and never touches them again, so a memory store need not copy them.
   */
  upsert(site: Site, products: readonly Product[], options: WriteOptions): Promise<UpsertResult>;

  /**
   * Begins a staged import into `site` (see `StagedImport`): the same rules as `upsert`, for a
   * batch that arrives in chunks and need never be held whole, neither by the catalog nor by the
   * store's client. An import that is neither committed nor aborted (its process died) must
   * never become visible, and its staging must not outlive it for long.
   */
  beginImport(site: Site, options: WriteOptions): Promise<StagedImport>;

  /**
   * The product whose id is `key`, else (when `by` is not `"id"`) the one whose sku is `key`;
   * `undefined` when there is none. With `by: "sku"`, only the sku is matched. The result is
   * the caller's to keep: later writes never change it, and changing it never changes the store.
   */
  find(site: Site, key: string, by?: KeyField): Promise<Product | undefined>;

  /**
   * Atomically removes what `find(site, key, by)` would return, and frees its sku;
   * returns the removed product, or `undefined` when nothing matched.
   */
  remove(site: Site, key: string, by?: KeyField): Promise<Product | undefined>;

  /**
   * A page of the site's products in id order (by code point, as `compareIds` orders them, which
   * is the order of their UTF-8 bytes): the first `limit` whose id comes after `after`, or from
   * the first when `after` is undefined. A walk from page to page, each starting after the last
   * id of the one before, returns every product that exists for the whole walk exactly once,
   * whatever is written meanwhile; a product written during the walk may or may not appear. The
   * products are the caller's to keep, as with `find`. A page costs the store about `limit`
   * products' work, not the site's size.
   */
  list(site: Site, after: string | undefined, limit: number): Promise<Product[]>;

  /** Resolves when the backing storage answers; rejects with `STORAGE_UNAVAILABLE` otherwise. */
  ping(): Promise<void>;

  /** Releases what the store opened itself (never a client it was given). Safe to call twice. */
  close(): Promise<void>;
}
