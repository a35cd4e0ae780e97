// The storage contract: what a catalog asks of the store that keeps its products, and what it
// answers. ADAPTERS.md walks through it clause by clause; `testCatalogStore` proves it.
import type { Product } from "./product.ts";
import type { Site } from "./site.ts";

/** What a commit did; `created + updated + unchanged` is the number of distinct ids imported. */
export interface ImportCounts {
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
  /** With `replace`: the products of the site the import did not name, deleted (or, in a dry run, to delete). */
  readonly deleted?: number;
}

/** A sku that the import gives to `id` while `heldBy` keeps it (a product of the site, or an earlier claimer in the import). */
export interface SkuConflict {
  readonly sku: string;
  readonly id: string;
  readonly heldBy: string;
  /** The position `add` was last given with `id`. */
  readonly position: number;
}

/**
 * The outcome of `StagedImport.commit`: applied with its counts, or refused whole: because a
 * product changed since the catalog read it (`stale`), for its conflicts, or (with no conflicts
 * then) because its idempotency key was `recorded` already or another import holds its claim (`busy`).
 */
export type CommitResult =
  | { readonly applied: true; readonly counts: ImportCounts }
  | {
      readonly applied: false;
      readonly conflicts: readonly SkuConflict[];
      readonly recorded?: KeyRecord;
      readonly busy?: true;
      readonly stale?: true;
    };

/** What a commit recorded under an idempotency key: the import's fingerprint and its counts. */
export interface KeyRecord {
  readonly fingerprint: string;
  readonly counts: ImportCounts;
}

/** An idempotency key for `StagedImport.commit` to record with the import, kept `retainMs`. */
export interface KeyToRecord {
  /** 1 to 255 visible ASCII characters; a key of one site is unrelated to the same key of another. */
  readonly key: string;
  readonly fingerprint: string;
  readonly retainMs: number;
  /**
   * Whether the import holds the key's claim (`CatalogStore.claimKey`). An import whose body is
   * in memory does not claim it: a round trip saved, the claim of another import is checked at
   * its commit instead.
   */
  readonly claimed: boolean;
}

/**
 * The answer of `CatalogStore.claimKey`: the key's record (a commit recorded it), another claim
 * holding it, or this claim, which `release` ends (a no-op once it lapsed or another took it).
 */
export type KeyClaim =
  | { readonly state: "recorded"; readonly record: KeyRecord }
  | { readonly state: "busy" }
  | { readonly state: "claimed"; release(): Promise<void> };

/** Whether an import writes, or only checks and counts; and whether it is the site's whole catalog. */
export interface WriteOptions {
  readonly dryRun: boolean;
  /**
   * The import is the site's whole catalog: in the same atomic step, every product of the site
   * whose id the import does not name is deleted and its sku freed (so that no sku of the site
   * is then a conflict), and the counts say how many in `deleted`. Without it, `deleted` is absent.
   */
  readonly replace?: boolean;
}

/**
 * An import, staged out of sight chunk by chunk, then committed (or aborted) as one atomic step.
 * Begun by `CatalogStore.beginImport`; the catalog never calls one method before the previous
 * one resolved, and never touches the products, or the arrays, it handed over again (a store may
 * keep them).
 */
export interface StagedImport {
  /**
   * Stages a chunk; nothing becomes visible. `positions[i]` is where `products[i]` stands in
   * the request (an index, a line, a row); positions increase over the whole import. Products
   * are valid, but ids and skus may repeat, within a chunk and across chunks: judged at `commit`.
   * `bases[i]`, when `bases` is given, is the stored product `products[i]` was made from, as the
   * catalog read it (`null`: no product had its id then): a precondition `commit` checks (clause 7).
   */
  add(products: readonly Product[], positions: readonly number[], bases?: readonly (Product | null)[]): Promise<void>;

  /**
   * Applies the staged products as one atomic step, against the state of the site at that
   * moment (even with other processes writing), or refuses them whole:
   *
   * 1. The same id staged again: the later product wins, and the id counts once.
   * 2. Each product replaces the stored product with its id whole; a changed sku frees the old one.
   * 3. Skus are unique in the site after the import: a sku goes to the product of the site that
   *    holds it if that product stays (the import does not name it, and does not `replace`),
   *    else to the first of the import's ids claiming it (smallest first position). Every other
   *    claimer is a conflict `{ sku, id, heldBy, position }`, `position` the last one given with
   *    `id`. So two products may swap skus, and a sku freed by a product of the import may be
   *    taken. With any conflict, nothing is written and every conflict is returned.
   * 4. Counts compare each product with the one it replaces: `created` (none), `unchanged`
   *    (`encodeProduct` equal), else `updated`; with `replace`, `deleted` too.
   * 5. With `dryRun`, the same answer, and nothing written.
   * 6. With `key` (never given in a dry run): if the site holds a record of `key.key` that has
   *    not expired, nothing is written and the answer is `{ applied: false, conflicts: [], recorded }`. Else,
   *    when `key.claimed` is false and a claim of the key lives (another import runs under it),
   *    nothing is written and the answer is `{ applied: false, conflicts: [], busy: true }`. Else,
   *    when the import applies, the record `{ fingerprint, counts }` is written in the same
   *    atomic step as the products (never one without the other), and expires after
   *    `key.retainMs`. A refused import records nothing. The record is checked in that atomic
   *    step; the claim may be checked before it (a claim taken later meets the record).
   * 7. Preconditions, judged before conflicts: for each id whose last `add` gave it a base, the
   *    stored product with that id must still be its base (`encodeProduct` equal; a `null` base:
   *    no product has the id). If any is not, nothing is written and the answer is
   *    `{ applied: false, conflicts: [], stale: true }`, in a dry run too: the catalog reads the
   *    products again and retries. This is how a merge never loses a concurrent update. Whether
   *    the key's record (6) is judged before or after is the store's choice: a retry meets it.
   *
   * The staging is released either way. An import neither committed nor aborted (its process
   * died) never becomes visible, and its staging does not outlive it for long.
   */
  commit(key?: KeyToRecord): Promise<CommitResult>;

  /** Drops the staging: nothing becomes visible. Safe at any time, twice, and after `commit`. */
  abort(): Promise<void>;
}

/** Which field `find` and `remove` match the key against; `undefined` means id, then sku. */
export type KeyField = "id" | "sku";

/** One entry of the tenants registry: a key (`site:…`, `token:…`) and its JSON text, neither read by a store. */
export interface TenantEntry {
  readonly key: string;
  readonly value: string;
}

/** The tenants registry at one moment: every entry, and that moment's version. */
export interface TenantEntries {
  readonly version: number;
  readonly entries: readonly TenantEntry[];
}

/**
 * One change to the tenants registry, applied only when its condition holds: `absent` (no entry
 * has the key: a creation) or `present` (one has: a change or, with `value` null, a deletion).
 * An applied write grows the version even when it leaves the entries as they were (`absent` with null).
 */
export interface TenantWrite {
  readonly key: string;
  readonly value: string | null;
  readonly when: "absent" | "present";
}

/** An amount to add to a usage counter: a whole number (0 reads it). */
export interface UsageCount {
  readonly key: string;
  readonly amount: number;
}

/**
 * Throws a `TypeError` unless every amount is a whole number and `ttlMs` a positive number: a
 * caller's mistake that every store refuses alike in `countUsage`, before anything is counted.
 */
export function checkUsageCounts(counts: readonly UsageCount[], ttlMs: number): void {
  if (!(ttlMs > 0) || !Number.isFinite(ttlMs))
    throw new TypeError(`countUsage: ttlMs must be a positive number of milliseconds, got ${ttlMs}`);
  for (const { amount } of counts) {
    if (!Number.isSafeInteger(amount))
      throw new TypeError(`countUsage: an amount must be a whole number, got ${amount}`);
  }
}

/**
 * One record of a site's import history: its id (ordered by time) and JSON text no store reads
 * (well-formed Unicode without NUL, up to 1 MiB, as are a delivery's value and a problem report).
 */
export interface HistoryEntry {
  /** 1 to 64 ASCII letters and digits; ids compare as strings, a later import's id greater. */
  readonly id: string;
  readonly value: string;
}

/**
 * A job a store keeps until a process settles it (a webhook delivery): an id unique in the
 * store, when it is due (milliseconds since the epoch), and JSON text no store reads.
 */
export interface Delivery {
  readonly id: string;
  readonly dueAt: number;
  readonly value: string;
}

/** A delivery `claimDeliveries` handed out, held by its `lease` until settled or `leaseMs` passed. */
export interface ClaimedDelivery extends Delivery {
  readonly lease: string;
}

/** What `saveImport` writes besides the record, in the same call. */
export interface ImportSave {
  /** The import's whole problem report (text, up to 16 MiB), in place of any it had. */
  readonly problems?: string;
  /** Deliveries to keep until settled; one whose id the store holds already is left as it is. */
  readonly deliveries?: readonly Delivery[];
  /**
   * Retention: once the record is written, only the site's `keep` records of greatest id stay,
   * and none whose id is below `before`, but for the record just saved, which always stays (an
   * import that ran long, started before others that ended, keeps its record); a record goes
   * with its problem report.
   */
  readonly trim?: { readonly keep: number; readonly before: string };
}

/**
 * Where a catalog keeps its products: the contract every storage adapter implements, proven by
 * `testCatalogStore` from `@catalog-kit/catalog-core/testing`.
 *
 * The catalog validates products before a store sees them; a store holds no rule of an import
 * beyond `StagedImport.commit`. Sites are opaque: a store never lists or creates them, and
 * products of one site are never visible through another (sites differing only in `siteType`
 * included). Infrastructure failures reject with `CatalogError` code `STORAGE_UNAVAILABLE`
 * (with the original error as `cause`); a store never leaves an import half-written.
 */
export interface CatalogStore {
  /**
   * Begins an import into `site`, the one way products are written (see `StagedImport`). A
   * store may commit a small import in one call: that is its business, not the contract's.
   */
  beginImport(site: Site, options: WriteOptions): Promise<StagedImport>;

  /**
   * The product whose id is `key`, else (when `by` is not `"id"`) the one whose sku is `key`;
   * `undefined` when there is none. With `by: "sku"`, only the sku is matched. The result is
   * the caller's to keep: later writes never change it, and changing it never changes the store.
   */
  find(site: Site, key: string, by?: KeyField): Promise<Product | undefined>;

  /**
   * Atomically removes what `find(site, key, by)` would return, and frees its sku; returns the
   * removed product, or `undefined` when nothing matched. With `expected`, removes it only when it
   * is `expected` (`encodeProduct` equal), and returns it either way: the caller compares.
   */
  remove(site: Site, key: string, by?: KeyField, expected?: Product): Promise<Product | undefined>;

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

  /**
   * Claims the idempotency key `key` of `site` for an import about to run, in one atomic step
   * seen alike by every process on this storage: `recorded` while a commit's record of the key
   * has not expired, else `busy` while another claim holds it, else `claimed`. A claim lapses
   * by itself after `leaseMs`, so that a process that died does not hold a key for long; expired
   * records and claims are removed by the store, never by a scan of the site on a call.
   */
  claimKey(site: Site, key: string, leaseMs: number): Promise<KeyClaim>;

  /**
   * The tenants registry (the sites and tokens made at run time), every entry and the version of
   * the same moment; `undefined` when the version is still `since`. The version is 0 before the
   * first write and grows with each applied write, as every process on this storage sees it.
   */
  readTenants(since?: number): Promise<TenantEntries | undefined>;

  /**
   * Applies `change` to the registry in one atomic step seen alike by every process on this
   * storage, when its condition holds then; answers whether it did. Keys are 1 to 1,024
   * characters, values up to 64 KiB of text, both well-formed Unicode without NUL (as JSON text
   * is), and a registry holds tens of thousands of entries.
   */
  writeTenant(change: TenantWrite): Promise<boolean>;

  /**
   * Adds each amount to its counter, atomically and alike for every process on this storage,
   * and answers each counter's total after the add, in order. A counter starts at 0 and is
   * removed by the store `ttlMs` after its first add (its next add starts again at 0).
   */
  countUsage(counts: readonly UsageCount[], ttlMs: number): Promise<number[]>;

  /**
   * Writes the record `entry.id` of the site's import history (in place of the one it had), with
   * what `save` carries. Its deliveries are durable before the record or with it, never after, so
   * that no record is seen ended without them. Saving the same call again writes nothing new: a
   * caller retries a save whose answer was lost.
   */
  saveImport(site: Site, entry: HistoryEntry, save?: ImportSave): Promise<void>;

  /** The value of the site's history record `id`; `undefined` when there is none. */
  readImport(site: Site, id: string): Promise<string | undefined>;

  /**
   * A page of the site's history, newest first: the first `limit` records (1 to 1,000) in
   * decreasing id order whose id is below `before`, or from the greatest when it is undefined.
   */
  listImports(site: Site, before: string | undefined, limit: number): Promise<HistoryEntry[]>;

  /** The problem report saved with the site's record `id`; `undefined` when it has none. */
  readImportProblems(site: Site, id: string): Promise<string | undefined>;

  /**
   * Leases up to `limit` deliveries due at `now` (milliseconds since the epoch, the caller's
   * clock) that no live lease holds, earliest `dueAt` first, each until `now + leaseMs` under a
   * lease of its own; atomically, so that two processes never hold one delivery at once.
   */
  claimDeliveries(now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]>;

  /**
   * Ends a lease: removes the delivery, or with `next` keeps it due at `next.dueAt` with
   * `next.value`, unleased. Answers false, changing nothing, when `lease` no longer holds it
   * (it lapsed and another process claimed it, or it was settled).
   */
  settleDelivery(
    id: string,
    lease: string,
    next?: { readonly dueAt: number; readonly value: string },
  ): Promise<boolean>;

  /** Resolves when the backing storage answers; rejects with `STORAGE_UNAVAILABLE` otherwise. */
  ping(): Promise<void>;

  /** Releases what the store opened itself (never a client it was given). Safe to call twice. */
  close(): Promise<void>;
}
