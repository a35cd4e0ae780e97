// The tenants registry and usage counters in PostgreSQL. Each write is one statement, so one
// transaction: the entry changed under its condition (ON CONFLICT DO NOTHING, or an UPDATE or
// DELETE that finds the row), and the version row counted up only if it was. A read is one
// statement, one snapshot, whose join with the entries is empty while the version is the
// reader's: a poll is one round trip that reads one row. Counters are upserts that restart a
// counter that ended; the store's sweep deletes ended ones now and then (sweep.ts).
import { checkUsageCounts, type TenantEntries, type TenantWrite, type UsageCount } from "@catalog-kit/catalog-core";
import type { Tables } from "./schema.ts";
import { unholdable } from "./unholdable.ts";

/** Runs one statement and answers its rows; failures already worded for the call. */
export type Statement = <R extends object>(sql: string, args: unknown[]) => Promise<R[]>;

const NOW = "clock_timestamp()";

const readSql = (t: Tables) => `
  SELECT v.version, e.key, e.value FROM ${t.tenantsVersion} v
  LEFT JOIN ${t.tenants} e ON $1::bigint IS NULL OR v.version <> $1::bigint`;

// The change, then the version if the change found its condition; one statement, one transaction.
function writeSql(t: Tables, { value, when }: TenantWrite): string {
  const change =
    when === "absent"
      ? value === null
        ? `SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM ${t.tenants} WHERE key = $1::text)`
        : `INSERT INTO ${t.tenants} (key, value) VALUES ($1::text, $2::text) ON CONFLICT DO NOTHING RETURNING 1`
      : value === null
        ? `DELETE FROM ${t.tenants} WHERE key = $1::text RETURNING 1`
        : `UPDATE ${t.tenants} SET value = $2::text WHERE key = $1::text RETURNING 1`;
  return `WITH changed AS (${change})
    UPDATE ${t.tenantsVersion} SET version = version + 1 WHERE EXISTS (SELECT 1 FROM changed) RETURNING version`;
}

// Keys in one order for every caller, so that two calls on the same counters lock them alike.
const countSql = (t: Tables) => `
  INSERT INTO ${t.usage} AS u (key, total, expires_at)
  SELECT key, amount, ${NOW} + $3::float8 * interval '1 millisecond'
  FROM unnest($1::text[], $2::bigint[]) AS c (key, amount) ORDER BY key
  ON CONFLICT (key) DO UPDATE SET
    total = CASE WHEN u.expires_at <= ${NOW} THEN excluded.total ELSE u.total + excluded.total END,
    expires_at = CASE WHEN u.expires_at <= ${NOW} THEN excluded.expires_at ELSE u.expires_at END
  RETURNING key, total`;

/** `CatalogStore.readTenants` in one statement. */
export async function readTenants(
  read: Statement,
  t: Tables,
  since: number | undefined,
): Promise<TenantEntries | undefined> {
  // A version no store gives (not a whole number) is no version: the registry is read.
  const known = since !== undefined && Number.isSafeInteger(since) ? since : null;
  const rows = await read<{ version: string; key: string | null; value: string | null }>(readSql(t), [known]);
  const version = Number(rows[0]?.version ?? 0);
  if (version === since) return undefined;
  const entries = rows.flatMap(({ key, value }) => (key === null ? [] : [{ key, value: value as string }]));
  return { version, entries };
}

/** `CatalogStore.writeTenant` in one statement; a key or value PostgreSQL cannot hold is a TypeError, never sent. */
export async function writeTenant(write: Statement, t: Tables, change: TenantWrite): Promise<boolean> {
  if (unholdable(change.key) || (change.value !== null && unholdable(change.value))) {
    throw new TypeError("writeTenant: keys and values must be well-formed Unicode without NUL");
  }
  const rows = await write(writeSql(t, change), change.value === null ? [change.key] : [change.key, change.value]);
  return rows.length > 0;
}

/**
 * `CatalogStore.countUsage` in one statement: a key given twice is added once, its sum, and each
 * of its places answered the total as it stood after that place's add.
 */
export async function countUsage(
  write: Statement,
  t: Tables,
  counts: readonly UsageCount[],
  ttlMs: number,
): Promise<number[]> {
  checkUsageCounts(counts, ttlMs);
  if (counts.length === 0) return [];
  const sums = new Map<string, number>();
  for (const { key, amount } of counts) {
    if (unholdable(key)) throw new TypeError("countUsage: keys must be well-formed Unicode without NUL");
    sums.set(key, (sums.get(key) ?? 0) + amount);
  }
  const keys = [...sums.keys()];
  const rows = await write<{ key: string; total: string }>(countSql(t), [
    keys,
    keys.map((key) => sums.get(key)),
    ttlMs,
  ]);
  // The total after the last add of each key, counted back for its earlier places.
  const after = new Map(rows.map(({ key, total }) => [key, Number(total)]));
  const answers = new Array<number>(counts.length);
  for (let i = counts.length - 1; i >= 0; i--) {
    const { key, amount } = counts[i] as UsageCount;
    const total = after.get(key) as number;
    answers[i] = total;
    after.set(key, total - amount);
  }
  return answers;
}
