// The import history of each site and the delivery queue in the database file. Records and
// reports are written by the writer thread, each save one transaction, and read by the main
// thread's connection, one statement each (no read cache: a read after a save resolved sees it).
// A report lives in a table of its own: in the record's row, each save of the record that changed
// its length rewrote the whole report (8 MiB of log for an 8 MiB report). A save repeated whole
// writes no page (SQLite leaves a row set to what it holds as it is), so a retried save does not
// drop the read cache of products, which any change of the file drops.
import { randomUUID } from "node:crypto";
import type { ClaimedDelivery, HistoryEntry, ImportSave } from "@catalog-kit/catalog-core";
import type { Connection } from "./connection.ts";

/** `readImport`: a record's value. */
export const READ_RECORD = "SELECT value AS text FROM import_history WHERE site = ? AND id = ?";
/** `readImportProblems`: a record's report. */
export const READ_PROBLEMS = "SELECT problems AS text FROM import_problems WHERE site = ? AND id = ?";
/** A page of `listImports` from the site's greatest id. */
export const LIST_NEWEST = "SELECT id, value FROM import_history WHERE site = ? ORDER BY id DESC LIMIT ?";
/** A page of `listImports` below an id. */
export const LIST_BEFORE = "SELECT id, value FROM import_history WHERE site = ? AND id < ? ORDER BY id DESC LIMIT ?";
/** The `keep`-th greatest id of a site (`?2` is `keep - 1`): trim deletes every id below it. */
export const KEPT_LAST = "SELECT id FROM import_history WHERE site = ? ORDER BY id DESC LIMIT 1 OFFSET ?";
/** Trim: a site's records below an id, but the one saved. */
export const TRIM_RECORDS = "DELETE FROM import_history WHERE site = ? AND id < ? AND id <> ?";
/** Trim: a site's reports below an id, but the one saved. */
export const TRIM_PROBLEMS = "DELETE FROM import_problems WHERE site = ? AND id < ? AND id <> ?";
/** `claimDeliveries`: the due deliveries no live lease holds, earliest first. */
export const DUE = `SELECT id, due_at AS dueAt, value FROM deliveries
  WHERE due_at <= ?1 AND leased_until <= ?1 ORDER BY due_at LIMIT ?2`;

const ENQUEUE = "INSERT OR IGNORE INTO deliveries (id, due_at, value, lease, leased_until) VALUES (?, ?, ?, NULL, 0)";
const SAVE_RECORD = `INSERT INTO import_history (site, id, value) VALUES (?, ?, ?)
  ON CONFLICT (site, id) DO UPDATE SET value = excluded.value`;
const SAVE_PROBLEMS = `INSERT INTO import_problems (site, id, problems) VALUES (?, ?, ?)
  ON CONFLICT (site, id) DO UPDATE SET problems = excluded.problems`;
/** `claimDeliveries`: a lease taken. */
export const LEASE = "UPDATE deliveries SET lease = ?, leased_until = ? WHERE id = ?";
/** `settleDelivery` without `next`. */
export const SETTLE = "DELETE FROM deliveries WHERE id = ? AND lease = ?";
/** `settleDelivery` with `next`. */
export const RESCHEDULE =
  "UPDATE deliveries SET due_at = ?, value = ?, lease = NULL, leased_until = 0 WHERE id = ? AND lease = ?";

/** A delivery rescheduled by `settleDelivery`. */
export interface NextDelivery {
  readonly dueAt: number;
  readonly value: string;
}

// Retention: every record of the site below `floor` goes, with its report, but the one just
// saved (`saved`); two ranges of the primary keys. `keep` below 1 keeps only that one.
function trim(connection: Connection, site: string, saved: string, { keep, before }: NonNullable<ImportSave["trim"]>) {
  const kept =
    keep < 1 ? undefined : (connection.statement(KEPT_LAST).get(site, keep - 1) as { id: string } | undefined);
  // With `keep` below 1 every id is below the floor: one past the greatest an id may be.
  const floor = keep < 1 ? "\u{10FFFF}" : kept !== undefined && kept.id > before ? kept.id : before;
  connection.statement(TRIM_RECORDS).run(site, floor, saved);
  connection.statement(TRIM_PROBLEMS).run(site, floor, saved);
}

/**
 * `CatalogStore.saveImport` in one write transaction: the deliveries first (an id held already is
 * left as it is), the record, its report when given, then the trim.
 */
export function saveImport(connection: Connection, site: string, entry: HistoryEntry, save: ImportSave): void {
  connection.transaction(() => {
    for (const { id, dueAt, value } of save.deliveries ?? []) connection.statement(ENQUEUE).run(id, dueAt, value);
    connection.statement(SAVE_RECORD).run(site, entry.id, entry.value);
    if (save.problems !== undefined) connection.statement(SAVE_PROBLEMS).run(site, entry.id, save.problems);
    if (save.trim !== undefined) trim(connection, site, entry.id, save.trim);
  });
}

/** `CatalogStore.readImport` or `readImportProblems` on a reading connection. */
export function readText(
  connection: Connection,
  sql: typeof READ_RECORD | typeof READ_PROBLEMS,
  site: string,
  id: string,
): string | undefined {
  return (connection.statement(sql).get(site, id) as { text: string } | undefined)?.text;
}

/** `CatalogStore.listImports` on a reading connection. */
export function listImports(
  connection: Connection,
  site: string,
  before: string | undefined,
  limit: number,
): HistoryEntry[] {
  const rows =
    before === undefined
      ? connection.statement(LIST_NEWEST).all(site, limit)
      : connection.statement(LIST_BEFORE).all(site, before, limit);
  return (rows as { id: string; value: string }[]).map(({ id, value }) => ({ id, value }));
}

/**
 * `CatalogStore.claimDeliveries` in one write transaction: SQLite's write lock keeps every other
 * connection's claim out between the read of what is due and the leases, each a random token.
 */
export function claimDeliveries(
  connection: Connection,
  now: number,
  leaseMs: number,
  limit: number,
): ClaimedDelivery[] {
  return connection.transaction(() => {
    const due = connection.statement(DUE).all(now, limit) as { id: string; dueAt: number; value: string }[];
    return due.map(({ id, dueAt, value }) => {
      const lease = randomUUID();
      connection.statement(LEASE).run(lease, now + leaseMs, id);
      return { id, dueAt, value, lease };
    });
  });
}

/** `CatalogStore.settleDelivery`: one statement, which changes a row only while `lease` holds it. */
export function settleDelivery(
  connection: Connection,
  id: string,
  lease: string,
  next: NextDelivery | undefined,
): boolean {
  const { changes } =
    next === undefined
      ? connection.statement(SETTLE).run(id, lease)
      : connection.statement(RESCHEDULE).run(next.dueAt, next.value, id, lease);
  return Number(changes) > 0;
}
