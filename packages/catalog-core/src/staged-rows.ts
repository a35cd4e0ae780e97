// The judgement of `StagedImport.commit` for a store that keeps an import's staged products
// itself (an embedded database): the store answers one ordered query, the catalog applies every
// rule of the commit to it in one pass, holding one sku's claimers at a time, so that a store
// holds no rule of an import and its memory does not grow with the import.
import type { CommitResult, ImportCounts, SkuConflict } from "./store.ts";

/**
 * A staged id as `judgeStagedRows` reads it: the last product the import gave with the id,
 * joined with what the site holds at the moment of the commit. Its bodies are only compared with
 * one another: a store may hand placeholders equal exactly where the bodies are.
 */
export interface StagedRow {
  readonly id: string;
  readonly sku: string;
  /** The first and the last position the id was staged at. */
  readonly first: number;
  readonly last: number;
  /** `encodeProduct` of the last product staged with the id. */
  readonly body: string;
  /**
   * `encodeProduct` of the base the last `add` of the id gave (clause 7), `null` for a `null`
   * base; `undefined` when that add gave no bases.
   */
  readonly base?: string | null | undefined;
  /** `encodeProduct` of the site's product with the id, or `null`. */
  readonly stored: string | null;
  /** The id of the site's product holding `sku`, or `null`. */
  readonly holder: string | null;
  /** Whether the import stages `holder` too (so the holder does not stay as it is). */
  readonly holderStaged: boolean;
}

/** How a store's rows answer: applied with counts, or refused as `StagedImport.commit` refuses. */
export type RowJudgement =
  | { readonly applied: true; readonly counts: ImportCounts }
  | Extract<CommitResult, { applied: false }>;

/**
 * `StagedImport.commit`'s judgement (clauses 1-5 and 7) over `rows`: each staged id once, ordered
 * by sku, then by first position. `siteSize` is read by a replace only, for `deleted`: the site's
 * product count before the import. Synchronous, so that a store on a synchronous driver judges
 * and writes inside one transaction with nothing else run on its connection between.
 */
export function judgeStagedRows(rows: Iterable<StagedRow>, replace: boolean, siteSize: () => number): RowJudgement {
  const conflicts: SkuConflict[] = [];
  let total = 0;
  let created = 0;
  let unchanged = 0;
  let sku: string | undefined;
  // The id a sku goes to (its first claimer, or a holder that stays) and the first position seen.
  let owner = "";
  let previousFirst = 0;
  for (const row of rows) {
    if (row.base !== undefined && row.base !== row.stored) return { applied: false, conflicts: [], stale: true };
    total++;
    if (row.stored === null) created++;
    else if (row.stored === row.body) unchanged++;
    if (row.sku !== sku) {
      sku = row.sku;
      owner = !replace && row.holder !== null && !row.holderStaged ? row.holder : row.id;
    } else if (row.first < previousFirst) throw new Error(`Staged rows out of position order at ${row.id}`);
    previousFirst = row.first;
    if (row.id !== owner) conflicts.push({ sku: row.sku, id: row.id, heldBy: owner, position: row.last });
  }
  if (conflicts.length > 0) return { applied: false, conflicts };
  const counts = { created, updated: total - created - unchanged, unchanged };
  return replace
    ? { applied: true, counts: { ...counts, deleted: siteSize() - (total - created) } }
    : { applied: true, counts };
}

/**
 * The judgement of an import that names each id and each sku once, into a site that holds no
 * product: every product created, nothing to compare. A store that can tell both cheaply (its
 * unique keys, or one walk of an index) answers this without `judgeStagedRows`' pass.
 */
export function judgeNewSite(total: number, replace: boolean): Extract<RowJudgement, { applied: true }> {
  const counts = { created: total, updated: 0, unchanged: 0 };
  return { applied: true, counts: replace ? { ...counts, deleted: 0 } : counts };
}
