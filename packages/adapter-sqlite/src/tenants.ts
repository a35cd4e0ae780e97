// The tenants registry and usage counters in the database file. The registry's version is one row
// written in the same transaction as the entry (the writer thread's), so every process on the file
// reads them alike; the main thread reads the version alone while it is unchanged, and else every
// entry with the version in one statement, one snapshot. Counters end at a time of this machine's
// clock in milliseconds, as idempotency keys do.
import type { TenantEntries, TenantWrite, UsageCount } from "@catalog-kit/catalog-core";
import type { Connection } from "./connection.ts";

const VERSION = "SELECT version FROM tenants_version";
// One statement is one read snapshot: the version and the entries of one moment.
const EVERYTHING =
  "SELECT v.version AS version, t.key AS key, t.value AS value FROM tenants_version v LEFT JOIN tenants t ON 1";
// A counter that ended restarts at the amount, with a new end: no sweep needs to come first.
const ADD = `INSERT INTO usage_counters (key, total, expires) VALUES (?, ?, ?)
  ON CONFLICT (key) DO UPDATE SET
    total = CASE WHEN expires <= ?4 THEN excluded.total ELSE total + excluded.total END,
    expires = CASE WHEN expires <= ?4 THEN excluded.expires ELSE expires END
  RETURNING total`;

/** `CatalogStore.readTenants` on a reading connection. */
export function readTenants(connection: Connection, since: number | undefined): TenantEntries | undefined {
  if (since !== undefined && (connection.statement(VERSION).get() as { version: number }).version === since) {
    return undefined;
  }
  const rows = connection.statement(EVERYTHING).all() as { version: number; key: string | null; value: string }[];
  const version = rows[0]?.version ?? 0;
  const entries = rows.flatMap(({ key, value }) => (key === null ? [] : [{ key, value }]));
  return { version, entries };
}

/** `CatalogStore.writeTenant` in one write transaction: the condition, the entry and the version. */
export function writeTenant(connection: Connection, { key, value, when }: TenantWrite): boolean {
  return connection.transaction(() => {
    const exists = connection.statement("SELECT 1 AS found FROM tenants WHERE key = ?").get(key) !== undefined;
    if (exists !== (when === "present")) return false;
    if (value === null) connection.statement("DELETE FROM tenants WHERE key = ?").run(key);
    else connection.statement("INSERT OR REPLACE INTO tenants (key, value) VALUES (?, ?)").run(key, value);
    connection.statement("UPDATE tenants_version SET version = version + 1").run();
    return true;
  });
}

/**
 * `CatalogStore.countUsage` in one write transaction; counters that ended go by their expiry
 * index, a range that is empty on most calls.
 */
export function countUsage(connection: Connection, counts: readonly UsageCount[], ttlMs: number): number[] {
  return connection.transaction(() => {
    const now = Date.now();
    connection.statement("DELETE FROM usage_counters WHERE expires <= ?").run(now);
    return counts.map(({ key, amount }) => {
      const row = connection.statement(ADD).get(key, amount, now + ttlMs, now) as { total: number };
      return row.total;
    });
  });
}
