// An import staged in a temporary table of the writer thread's connection: `add` writes each
// staged id's row in it, and `commit` answers one ordered query for `judgeStagedRows` to judge and
// applies it, all in one write transaction, synchronously on that thread (the main thread goes on
// serving meanwhile).
// A temporary table lives in a file of its own, cached a few megabytes at a time, so an import of
// any size takes little of this process's memory; it is dropped at the import's end, and by
// SQLite with the connection if the thread or the process dies first.

import type { StatementSync } from "node:sqlite";
import {
  type CommitResult,
  judgeStagedRows,
  type KeyToRecord,
  type RowJudgement,
  type StagedRow,
  type WriteOptions,
} from "@catalog-kit/catalog-core";
import type { Connection } from "./connection.ts";
import { keyRefusal, recordKey } from "./keys.ts";
import { type NewSite, openNewSite } from "./new-site.ts";
import { numberSite, siteNumber } from "./sites.ts";

/** An import on the writer thread: each method one synchronous run on its connection. */
export interface WriterImport {
  /** The number that names its staging tables, and names it in the store's messages. */
  readonly number: number;
  /** The products `add` was given so far. */
  readonly staged: number;
  /** The number it writes its products under while its site has none (new-site.ts). */
  readonly newSite: number | undefined;
  /**
   * Stages a chunk: `rows` each product's id, sku and body in turn; `bases`, when the add gave
   * bases, are their bodies as `find` read them.
   */
  add(rows: readonly string[], positions: readonly number[], bases: readonly (string | null)[] | undefined): void;
  /** Judges and applies the staging (`StagedImport.commit`); the staging is dropped either way. */
  commit(key: KeyToRecord | undefined): CommitResult;
  /** Drops the staging; safe twice. */
  abort(): void;
}

// Temporary tables are the connection's own: a number of this thread names each import's apart.
let imports = 0;

// The placeholder `judgeStagedRows` reads for a staged body (see `querySql`).
const SAME = "B";

// A row of the query, in its columns' order: as an array where the driver answers arrays (an
// object per row, its properties set one by one by the driver, cost the commit as much as the
// query), else as an object of those names.
const COLUMNS = ["id", "sku", "first", "last", "based", "base", "stored", "holder", "holderStaged"] as const;
type QueryRow = unknown[] | Record<(typeof COLUMNS)[number], unknown>;

// Made what `StagedRow` says: `based` 0 when the id's last add gave no bases (its base then
// `undefined`), `holderStaged` a boolean from SQLite's 0 or 1.
function* stagedRows(rows: Iterable<unknown>): Generator<StagedRow> {
  for (const row of rows as Iterable<QueryRow>) {
    const [id, sku, first, last, based, base, stored, holder, holderStaged] = Array.isArray(row)
      ? row
      : COLUMNS.map((column) => row[column]);
    yield {
      id: id as string,
      sku: sku as string,
      first: first as number,
      last: last as number,
      body: SAME,
      base: based === 0 ? undefined : (base as string | null),
      stored: stored as string | null,
      holder: holder as string | null,
      holderStaged: holderStaged === 1,
    };
  }
}

// The query's statement, answering arrays where the driver can (Node.js 22.16 and later).
function prepareQuery(db: Connection["db"], sql: string): StatementSync {
  const statement = db.prepare(sql);
  (statement as { setReturnArrays?: (enabled: boolean) => void }).setReturnArrays?.(true);
  return statement;
}

/**
 * The staging table of an import: a row per staged id, upserted as `add` gives it (its first
 * position kept, the rest from the id's last product), so that the commit finds each id once, in
 * id order, with no grouping, sort or join of its own. Keyed by id without a rowid: the rows are
 * the b-tree's, and a walk of it is in the order the products' key wants them written.
 */
export const stagingSql = (table: string): string =>
  `CREATE TABLE ${table} (id TEXT PRIMARY KEY NOT NULL, sku TEXT NOT NULL, first INTEGER NOT NULL,
     last INTEGER NOT NULL, body TEXT NOT NULL, base TEXT, based INTEGER NOT NULL) WITHOUT ROWID`;

/** A staged product: a new id's row, or the id's row again with the later product (its first position kept). */
export const stageSql = (table: string): string =>
  `INSERT INTO ${table} (id, sku, first, last, body, base, based) VALUES (?1, ?2, ?3, ?3, ?4, ?5, ?6)
   ON CONFLICT (id) DO UPDATE SET sku = excluded.sku, last = excluded.last, body = excluded.body,
     base = excluded.base, based = excluded.based`;

/**
 * The staged ids in the order `judgeStagedRows` reads them (by sku, then first position), with
 * what the query reads of every row, so that it walks this index alone: a seek of each row in the
 * staging cost as much again (the rows are in id order, the walk in sku order). Built once the
 * rows are in (faster than kept up to date row by row), before the commit's write lock.
 */
export const orderSql = (table: string): string =>
  `CREATE INDEX ${table}_sku ON ${table.slice("temp.".length)} (sku, first, last, based)`;

// What `judgeStagedRows` compares, compared here where both bodies lie: it reads a placeholder
// for each body, equal where the bodies are equal, so that no body crosses into JavaScript: the
// staged body is 'B', the stored one 'B' when it is the same text and 'S' when not, a base the
// stored body's placeholder when it is that text (or both are none) and 'X' when not. The staged
// row is read (`b`) only where there is something to compare it with: into an empty site, never.
const STORED = `iif(stored.body IS NULL, NULL, iif(stored.body = b.body, '${SAME}', 'S'))`;

/**
 * Each staged id joined with what the site (parameter 1: its number, or NULL when it has none)
 * holds under its id and its sku, and whether the staging names that holder.
 */
export const querySql = (table: string): string => `
  SELECT s.id, s.sku, s.first, s.last, s.based,
    iif(s.based = 0, NULL, (SELECT iif(b.base IS stored.body, ${STORED}, 'X') FROM ${table} b WHERE b.id = s.id)) AS base,
    iif(stored.body IS NULL, NULL, (SELECT ${STORED} FROM ${table} b WHERE b.id = s.id)) AS stored,
    holder.id AS holder, EXISTS (SELECT 1 FROM ${table} x WHERE x.id = holder.id) AS holderStaged
  FROM ${table} s INDEXED BY ${table.slice("temp.".length)}_sku
  LEFT JOIN main.products stored ON stored.site = ?1 AND stored.id = s.id
  LEFT JOIN main.products holder ON holder.site = ?1 AND holder.sku = s.sku
  ORDER BY s.sku, s.first`;

/** Each staged id in id order (the order of the products' key), written under the site's number only where its body differs from the stored one. */
export const upsertSql = (table: string): string => `
  INSERT INTO main.products (site, id, sku, body) SELECT ?1, id, sku, body FROM ${table} WHERE true
  ON CONFLICT (site, id) DO UPDATE SET sku = excluded.sku, body = excluded.body
  WHERE products.body IS NOT excluded.body`;

const deleteUnstagedSql = (table: string) =>
  `DELETE FROM main.products WHERE site = ?1 AND id NOT IN (SELECT id FROM ${table})`;

/** Creates an import's staging table; its commit applies it to `site` (a `siteKey`). */
export function beginStagedImport(
  connection: Connection,
  site: string,
  { dryRun, replace = false }: WriteOptions,
): WriterImport {
  const number = ++imports;
  const table = `temp.staged_${number}`;
  const { db } = connection;
  db.exec(stagingSql(table));
  const insert = db.prepare(stageSql(table));
  // Written as it comes, under a number of its own, while the site has none (new-site.ts).
  let newSite = dryRun ? undefined : openNewSite(connection, site, number);
  let ended = false;
  let staged = 0;

  function toStaging(): void {
    newSite?.moveTo(table);
    newSite = undefined;
  }

  // Never throws: a commit is answered by its transaction, whatever becomes of its staging.
  function end(): void {
    if (ended) return;
    ended = true;
    newSite?.end();
    try {
      if (!connection.isClosed) db.exec(`DROP TABLE IF EXISTS ${table}`);
    } catch {
      // Left to go with the connection.
    }
  }
  function live(): void {
    if (ended) throw new Error("the import was already ended");
  }

  function judgeAndApply(key: KeyToRecord | undefined): CommitResult {
    const now = Date.now();
    const refused = key && keyRefusal(connection, site, key, now);
    if (refused !== undefined) return refused;
    const siteNo = siteNumber(connection, site) ?? null;
    const count = () =>
      (connection.statement("SELECT count(*) AS n FROM products WHERE site = ?").get(siteNo) as { n: number }).n;
    const judged = judgeStagedRows(stagedRows(prepareQuery(db, querySql(table)).iterate(siteNo)), replace, count);
    if (!judged.applied || dryRun) return judged;
    // In either order: the judgement has read the site's count, and the sku index, not unique,
    // refuses no intermediate state.
    if (replace && siteNo !== null) db.prepare(deleteUnstagedSql(table)).run(siteNo);
    db.prepare(upsertSql(table)).run(siteNo ?? numberSite(connection, site));
    if (key) recordKey(connection, site, key, judged.counts, now);
    return judged;
  }

  // The commit of an import written under its own number: the key's refusal, else the site's
  // number given, else undefined with everything moved into the staging.
  function publish(into: NewSite, key: KeyToRecord | undefined): RowJudgement | undefined {
    return connection.transaction(() => {
      const now = Date.now();
      const refused = key && keyRefusal(connection, site, key, now);
      if (refused !== undefined) return refused;
      const judged = into.publish(site, replace);
      if (judged === undefined) {
        toStaging();
        return undefined;
      }
      if (key && judged.applied) recordKey(connection, site, key, judged.counts, now);
      return judged;
    });
  }

  return {
    number,
    get staged() {
      return staged;
    },
    get newSite() {
      return newSite?.number;
    },

    add(rows, positions, bases) {
      live();
      staged += rows.length / 3;
      if (newSite !== undefined) {
        if (bases === undefined && newSite.write(rows, positions)) return;
        connection.transaction(toStaging);
      }
      // One transaction per chunk: a statement of its own each would be a transaction each.
      connection.transaction(() => {
        for (let i = 0; i < positions.length; i++) {
          const base = bases?.[i] ?? null;
          insert.run(
            rows[3 * i] ?? "",
            rows[3 * i + 1] ?? "",
            positions[i] ?? 0,
            rows[3 * i + 2] ?? "",
            base,
            bases ? 1 : 0,
          );
        }
      }, "deferred");
    },

    commit(key) {
      live();
      try {
        const published = newSite && publish(newSite, key);
        if (published !== undefined) return published;
        db.exec(orderSql(table));
        return connection.transaction(() => judgeAndApply(key), dryRun ? "deferred" : "immediate");
      } finally {
        end();
      }
    },

    abort: end,
  };
}
