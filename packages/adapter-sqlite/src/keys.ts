// Idempotency keys in the database file: a claim is a row taken under SQLite's write lock only
// when no live record and no live claim holds the key; a record is written by the commit in its
// own transaction. Expiry is this machine's clock in milliseconds, which every process sharing a
// file (on this machine: SQLite's locks do not cross hosts) reads alike.
import { randomUUID } from "node:crypto";
import type { CommitResult, ImportCounts, KeyRecord, KeyToRecord } from "@catalog-kit/catalog-core";
import type { Connection } from "./connection.ts";
import type { WriterAnswers } from "./protocol.ts";

const RECORD = "SELECT fingerprint, counts FROM import_keys WHERE site = ? AND key = ? AND expires > ?";
const CLAIM = "SELECT 1 AS live FROM key_claims WHERE site = ? AND key = ? AND expires > ?";

interface RecordRow {
  readonly fingerprint: string;
  readonly counts: string;
}

function recordOf(connection: Connection, site: string, key: string, now: number): KeyRecord | undefined {
  const row = connection.statement(RECORD).get(site, key, now) as RecordRow | undefined;
  return row && { fingerprint: row.fingerprint, counts: JSON.parse(row.counts) as ImportCounts };
}

const claimed = (connection: Connection, site: string, key: string, now: number): boolean =>
  connection.statement(CLAIM).get(site, key, now) !== undefined;

// Deletes what expired, by the expiry indexes: a range that is empty on most calls, never a scan
// of a site. Run by the writes that add rows to these tables, so that they do not grow unbounded.
function sweep(connection: Connection, now: number): void {
  connection.statement("DELETE FROM import_keys WHERE expires <= ?").run(now);
  connection.statement("DELETE FROM key_claims WHERE expires <= ?").run(now);
}

/**
 * `CatalogStore.claimKey` in one write transaction: the record, else busy, else a claim of this
 * call's own, answered with its token for `releaseClaim`.
 */
export function claimKey(connection: Connection, site: string, key: string, leaseMs: number): WriterAnswers["claim"] {
  const token = randomUUID();
  return connection.transaction(() => {
    const now = Date.now();
    sweep(connection, now);
    const record = recordOf(connection, site, key, now);
    if (record !== undefined) return { state: "recorded" as const, record };
    if (claimed(connection, site, key, now)) return { state: "busy" as const };
    connection
      .statement("INSERT INTO key_claims (site, key, token, expires) VALUES (?, ?, ?, ?)")
      .run(site, key, token, now + leaseMs);
    return { state: "claimed" as const, token };
  });
}

/** Ends a claim: only its own row, as one that lapsed and was taken by another import is not its to end. */
export function releaseClaim(connection: Connection, site: string, key: string, token: string): void {
  connection.statement("DELETE FROM key_claims WHERE site = ? AND key = ? AND token = ?").run(site, key, token);
}

/**
 * Clause 6 of a commit, read inside its write transaction: the key's live record, else busy
 * while another import holds the key's claim and this one does not; else `undefined`.
 */
export function keyRefusal(
  connection: Connection,
  site: string,
  key: KeyToRecord,
  now: number,
): CommitResult | undefined {
  const recorded = recordOf(connection, site, key.key, now);
  if (recorded !== undefined) return { applied: false, conflicts: [], recorded };
  if (!key.claimed && claimed(connection, site, key.key, now)) return { applied: false, conflicts: [], busy: true };
  return undefined;
}

/** Writes the record of a committed import, in its transaction, in place of an expired one. */
export function recordKey(
  connection: Connection,
  site: string,
  { key, fingerprint, retainMs }: KeyToRecord,
  counts: ImportCounts,
  now: number,
): void {
  sweep(connection, now);
  connection
    .statement("INSERT OR REPLACE INTO import_keys (site, key, fingerprint, counts, expires) VALUES (?, ?, ?, ?, ?)")
    .run(site, key, fingerprint, JSON.stringify(counts), now + retainMs);
}
