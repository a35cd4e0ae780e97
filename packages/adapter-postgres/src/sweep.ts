// The removal of expired idempotency records and claims, of ended usage counters, and of the
// products of imports into a new site whose process died (new-site.ts): a timer of each store
// deletes them in batches found by the expiry indexes and `new_sites`, so that no request ever
// pays for it and no statement holds many row locks. Lookups and counters ignore what expired
// anyway: the sweep only keeps the tables small.
import type pg from "pg";
import { lockTag } from "./new-site.ts";
import type { Tables } from "./schema.ts";

/** How often a store sweeps when `sweepIntervalMs` is not given. */
export const DEFAULT_SWEEP_INTERVAL_MS = 60_000;

/** Rows deleted by one statement of the sweep. */
export const SWEEP_BATCH = 1_000;

// `now()` is stable, so the expiry index can serve the range. SKIP LOCKED: another store sweeping
// at once takes other rows, and a row a commit or a claim is rewriting is left for the next sweep;
// FOR UPDATE rechecks the expiry of a row that changed since the statement began.
/** The sweep's statement for `table` (`import_keys` or `import_key_claims`): one batch of `$1` rows. */
export const sweepStatement = (table: string): string => `
  DELETE FROM ${table} d USING (
    SELECT site, key FROM ${table} WHERE expires_at <= now() ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED
  ) old
  WHERE d.site = old.site AND d.key = old.key`;

/**
 * Deletes every expired record and claim, a batch at a time (until `stopped()`); resolves with
 * how many rows went.
 */
export async function sweepExpiredKeys(
  pool: pg.Pool,
  t: Tables,
  batch = SWEEP_BATCH,
  stopped: () => boolean = () => false,
): Promise<number> {
  let deleted = 0;
  for (const table of [t.importKeys, t.keyClaims]) {
    while (!stopped()) {
      const { rowCount } = await pool.query(sweepStatement(table), [batch]);
      deleted += rowCount ?? 0;
      if ((rowCount ?? 0) < batch) break;
    }
  }
  return deleted;
}

/** Deletes every usage counter that ended, a batch at a time (until `stopped()`); resolves with how many went. */
export async function sweepEndedCounters(
  pool: pg.Pool,
  t: Tables,
  batch = SWEEP_BATCH,
  stopped: () => boolean = () => false,
): Promise<number> {
  const statement = `DELETE FROM ${t.usage} d USING (
      SELECT key FROM ${t.usage} WHERE expires_at <= now() ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED
    ) old WHERE d.key = old.key`;
  let deleted = 0;
  while (!stopped()) {
    const { rowCount } = await pool.query(statement, [batch]);
    deleted += rowCount ?? 0;
    if ((rowCount ?? 0) < batch) break;
  }
  return deleted;
}

// One number at a time whose lock no import holds: its row and every product written under it.
// The try-lock lasts until the statement's transaction ends; SKIP LOCKED leaves a number another
// store is sweeping.
const abandonedStatement = (t: Tables) => `
  WITH abandoned AS (
    DELETE FROM ${t.newSites} WHERE site = (
      SELECT site FROM ${t.newSites} WHERE pg_try_advisory_xact_lock(hashtext($1), site)
      ORDER BY site LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING site
  ), gone AS (
    DELETE FROM ${t.products} WHERE site IN (SELECT site FROM abandoned) RETURNING 1
  )
  SELECT (SELECT count(*) FROM abandoned)::int AS sites, (SELECT count(*) FROM gone)::int AS products`;

/** Deletes what imports into new sites wrote before their process died; resolves with how many products went. */
export async function sweepAbandonedSites(
  pool: pg.Pool,
  t: Tables,
  stopped: () => boolean = () => false,
): Promise<number> {
  let deleted = 0;
  while (!stopped()) {
    const { rows } = await pool.query<{ sites: number; products: number }>(abandonedStatement(t), [lockTag(t)]);
    if ((rows[0]?.sites ?? 0) === 0) break;
    deleted += rows[0]?.products ?? 0;
  }
  return deleted;
}

/** The sweep's timer; `stop` ends it and waits for a sweep under way. */
export interface Sweep {
  stop(): Promise<void>;
}

// Only once `ready()`: a store never called does not create its tables for a sweep. The timer is
// unref'd, so it does not keep the process alive; a failed sweep (PostgreSQL away) waits for the next tick.
/** Sweeps every `intervalMs` (0: never) once `ready()` says the tables exist; `stop` ends it. */
export function startSweep(pool: pg.Pool, t: Tables, intervalMs: number, ready: () => boolean): Sweep {
  let running: Promise<unknown> | undefined;
  let stopped = false;
  const timer =
    intervalMs > 0
      ? setInterval(() => {
          if (running !== undefined || !ready()) return;
          running = sweepExpiredKeys(pool, t, SWEEP_BATCH, () => stopped)
            .then(() => sweepEndedCounters(pool, t, SWEEP_BATCH, () => stopped))
            .then(() => sweepAbandonedSites(pool, t, () => stopped))
            .catch(() => {})
            .finally(() => {
              running = undefined;
            });
        }, intervalMs).unref()
      : undefined;
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
