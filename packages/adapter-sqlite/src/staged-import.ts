// An import staged in a temporary table of the writer thread's connection: `add` appends rows to
// it, and `commit` answers one ordered query for `judgeStagedRows` to judge and applies it, all in
// one write transaction, synchronously on that thread (the main thread goes on serving meanwhile).
// A temporary table lives in a file of its own, cached a few megabytes at a time, so an import of
// any size takes little of this process's memory; it is dropped at the import's end, and by
// SQLite with the connection if the thread or the process dies first.
import {
  type CommitResult,
  encodeProduct,
  judgeStagedRows,
  type KeyToRecord,
  type Product,
  type StagedRow,
  type WriteOptions,
} from "@catalog-kit/catalog-core";
import type { Connection } from "./connection.ts";
import { keyRefusal, recordKey } from "./keys.ts";

/** An import on the writer thread: each method one synchronous run on its connection. */
export interface WriterImport {
  /** The number that names its staging tables, and names it in the store's messages. */
  readonly number: number;
  /** Stages a chunk; `bases`, when the add gave bases, are their bodies as `find` read them. */
  add(products: readonly Product[], positions: readonly number[], bases: readonly (string | null)[] | undefined): void;
  /** Judges and applies the staging (`StagedImport.commit`); the staging is dropped either way. */
  commit(key: KeyToRecord | undefined): CommitResult;
  /** Drops the staging; safe twice. */
  abort(): void;
}

// Temporary tables are the connection's own: a number of this thread names each import's apart.
let imports = 0;

// A staged row as the query answers it: `based` 0 when the id's last add gave no bases, and
// `holderStaged` as 0 or 1, both made what `StagedRow` says as the rows are judged.
type QueryRow = Omit<StagedRow, "base" | "holderStaged"> & {
  base: string | null | undefined;
  based?: number;
  holderStaged: boolean | number;
};

function* stagedRows(rows: Iterable<unknown>): Generator<StagedRow> {
  for (const row of rows as Iterable<QueryRow>) {
    if (row.based === 0) row.base = undefined;
    row.holderStaged = row.holderStaged === 1;
    yield row as StagedRow;
  }
}

/** The staging table of an import: a row per product `add` was given, in the order given. */
export const stagingSql = (table: string): string =>
  `CREATE TABLE ${table} (position INTEGER NOT NULL, id TEXT NOT NULL, sku TEXT NOT NULL, body TEXT NOT NULL, base TEXT, based INTEGER NOT NULL)`;

/**
 * Each staged id once, in the order `judgeStagedRows` reads them (by sku, then first position):
 * its last row (the largest rowid: rows are appended in the order added) and its first position,
 * in a table of their own indexed in that order. Built before the commit's write lock, from the
 * staging alone; the query under the lock then walks that index rather than sorting every body
 * (a third less time at 300,000 products of a stored site).
 */
export const orderSql = (table: string, order: string): string => `
  CREATE INDEX ${table}_id ON ${table.slice("temp.".length)} (id, position);
  CREATE TABLE ${order} (seq INTEGER PRIMARY KEY, sku TEXT NOT NULL, first INTEGER NOT NULL);
  INSERT INTO ${order} SELECT last.seq, s.sku, last.first
    FROM (SELECT min(position) AS first, max(rowid) AS seq FROM ${table} GROUP BY id) last
    JOIN ${table} s ON s.rowid = last.seq;
  CREATE INDEX ${order}_sku ON ${order.slice("temp.".length)} (sku, first);`;

/** Each staged id's row joined with what the site holds under its id and its sku, and whether the staging names that holder. */
export const querySql = (table: string, order: string): string => `
  SELECT s.id, s.sku, o.first, s.position AS last, s.body, s.base, s.based,
    stored.body AS stored, holder.id AS holder,
    EXISTS (SELECT 1 FROM ${table} x WHERE x.id = holder.id) AS holderStaged
  FROM ${order} o JOIN ${table} s ON s.rowid = o.seq
  LEFT JOIN main.products stored ON stored.site = ?1 AND stored.id = s.id
  LEFT JOIN main.products holder ON holder.site = ?1 AND holder.sku = s.sku
  ORDER BY o.sku, o.first`;

/** The last row of each staged id, in id order (the order of the products' key), written only where its body differs from the stored one. */
export const upsertSql = (table: string): string => `
  INSERT INTO main.products (site, id, sku, body)
  SELECT ?1, s.id, s.sku, s.body FROM (SELECT max(rowid) AS seq FROM ${table} GROUP BY id) last
  JOIN ${table} s ON s.rowid = last.seq WHERE true
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
  const order = `temp.staged_order_${number}`;
  const { db } = connection;
  db.exec(stagingSql(table));
  const insert = db.prepare(`INSERT INTO ${table} (position, id, sku, body, base, based) VALUES (?, ?, ?, ?, ?, ?)`);
  let ended = false;

  // Never throws: a commit is answered by its transaction, whatever becomes of its staging.
  function end(): void {
    if (ended) return;
    ended = true;
    try {
      if (!connection.isClosed) db.exec(`DROP TABLE IF EXISTS ${table}; DROP TABLE IF EXISTS ${order}`);
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
    const count = () =>
      (connection.statement("SELECT count(*) AS n FROM products WHERE site = ?").get(site) as { n: number }).n;
    const judged = judgeStagedRows(stagedRows(db.prepare(querySql(table, order)).iterate(site)), replace, count);
    if (!judged.applied || dryRun) return judged;
    // In either order: the judgement has read the site's count, and the sku index, not unique,
    // refuses no intermediate state.
    if (replace) db.prepare(deleteUnstagedSql(table)).run(site);
    db.prepare(upsertSql(table)).run(site);
    if (key) recordKey(connection, site, key, judged.counts, now);
    return judged;
  }

  return {
    number,

    add(products, positions, bases) {
      live();
      // One transaction per chunk: a statement of its own each would be a transaction each.
      connection.transaction(() => {
        for (let i = 0; i < products.length; i++) {
          const product = products[i];
          if (product === undefined) continue;
          const base = bases?.[i] ?? null;
          insert.run(positions[i] ?? 0, product.id, product.sku, encodeProduct(product), base, bases ? 1 : 0);
        }
      }, "deferred");
    },

    commit(key) {
      live();
      try {
        // Indexes built once the rows are in: faster than kept up to date row by row.
        db.exec(orderSql(table, order));
        return connection.transaction(() => judgeAndApply(key), dryRun ? "deferred" : "immediate");
      } finally {
        end();
      }
    },

    abort: end,
  };
}
