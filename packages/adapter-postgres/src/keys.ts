// Idempotency keys in PostgreSQL: a claim is a row that one statement takes only when no
// unexpired record and no unexpired claim holds the key; a record is written by the commit, in
// its transaction, under the site's lock. Expiry is judged by the server's clock, so that the
// servers sharing the database agree on it whatever their own clocks say.
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { ImportCounts, KeyClaim, KeyRecord, KeyToRecord, Site } from "@catalog-kit/catalog-core";
import type pg from "pg";
import { serverAnswered, unavailable } from "./errors.ts";
import { borrow, giveBack } from "./pool.ts";
import type { Tables } from "./schema.ts";

// `clock_timestamp()`, not `now()`: `now()` is the start of the transaction, which in a commit
// may be seconds before the lock was granted, longer than a short lease or retention.
const NOW = "clock_timestamp()";
const after = (ms: string) => `${NOW} + ${ms}::float8 * interval '1 millisecond'`;

interface RecordRow {
  readonly fingerprint: string;
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly deleted: number | null;
}

// The counts in the order the import answered them, `deleted` only for a replace.
function recordOf(row: RecordRow): KeyRecord {
  const counts: ImportCounts = { created: row.created, updated: row.updated, unchanged: row.unchanged };
  return { fingerprint: row.fingerprint, counts: row.deleted === null ? counts : { ...counts, deleted: row.deleted } };
}

/**
 * The site's number, its row created if missing (a claim may come before the site's first
 * write), without locking it: a claim does not wait for a commit of the site.
 */
export async function siteNumber(db: pg.Pool | pg.ClientBase, t: Tables, site: Site): Promise<number> {
  const select = `SELECT site FROM ${t.sites} WHERE site_type = $1 AND site_id = $2`;
  const args = [site.siteType, site.siteId];
  let found = await db.query<{ site: number }>(select, args);
  // Inserted only when missing: a conflicting insert would still use up a number of the identity.
  if (found.rows.length === 0) {
    await db.query(`INSERT INTO ${t.sites} (site_type, site_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, args);
    found = await db.query<{ site: number }>(select, args);
  }
  const row = found.rows[0];
  if (row === undefined) throw new Error("the site's row was not found after it was created");
  return row.site;
}

// The record wins over any claim (a claim left by a process that died after its commit must not
// hide it); else the claim is inserted, or takes the place of an expired one. A claim racing
// this one waits on the row's lock and then sees it unexpired: exactly one of them returns a token.
const claimSql = (t: Tables) => `
  WITH recorded AS (
    SELECT fingerprint, created, updated, unchanged, deleted FROM ${t.importKeys}
    WHERE site = $1::int AND key = $2::text AND expires_at > ${NOW}
  ), claimed AS (
    INSERT INTO ${t.keyClaims} AS c (site, key, token, expires_at)
    SELECT $1::int, $2::text, $3::uuid, ${after("$4")}
    WHERE NOT EXISTS (SELECT 1 FROM recorded)
    ON CONFLICT (site, key) DO UPDATE SET token = EXCLUDED.token, expires_at = EXCLUDED.expires_at
    WHERE c.expires_at <= ${NOW}
    RETURNING token
  )
  SELECT r.*, (SELECT count(*) FROM claimed)::int AS claimed FROM (SELECT 1) one LEFT JOIN recorded r ON true`;

// The record's columns are null when there is none.
type ClaimRow = { readonly [K in keyof RecordRow]: RecordRow[K] | null } & { readonly claimed: number };

// Deletes the claim only while `token` holds it: one that lapsed and was taken by another import
// is not this one's to end.
const releaseSql = (t: Tables) => `DELETE FROM ${t.keyClaims} WHERE site = $1 AND key = $2 AND token = $3`;

/**
 * Gives back a claim whose COMMIT got no answer, so that it does not hold the key for its whole
 * lease with no one to own it: once now, then, while PostgreSQL cannot be reached, again in the
 * background until the lease would have ended or the pool is ended (as adapter-redis does).
 */
async function releaseUnanswered(pool: pg.Pool, t: Tables, args: unknown[], until: number): Promise<void> {
  const send = () => pool.query(releaseSql(t), args);
  try {
    await send();
  } catch {
    void (async () => {
      for (let pause = 50; Date.now() < until && !pool.ending; pause = Math.min(pause * 2, 5_000)) {
        await sleep(pause, undefined, { ref: false });
        try {
          await send();
          return;
        } catch {
          // Still unreachable: the next pass tries again.
        }
      }
    })();
  }
}

/**
 * `CatalogStore.claimKey` on `pool`: the site's number and the claim's statement in one
 * transaction. A failure before COMMIT leaves nothing (the connection is closed, and its open
 * transaction with it), so "nothing was written" is true even when only the answer was lost; a
 * lost answer to COMMIT is the one unknown, answered as such, and the claim, if taken, given back.
 */
export async function claimKey(pool: pg.Pool, t: Tables, site: Site, key: string, leaseMs: number): Promise<KeyClaim> {
  const token = randomUUID();
  const until = Date.now() + leaseMs;
  let client: pg.PoolClient | undefined;
  let siteNo = 0;
  let row: ClaimRow | undefined;
  let committing = false;
  try {
    client = await borrow(pool);
    await client.query("BEGIN");
    siteNo = await siteNumber(client, t, site);
    row = (await client.query<ClaimRow>(claimSql(t), [siteNo, key, token, leaseMs])).rows[0];
    committing = true;
    await client.query("COMMIT");
    giveBack(client);
  } catch (error) {
    if (client !== undefined) giveBack(client, error as Error);
    if (!committing || serverAnswered(error)) throw unavailable(error, "idempotency key claim", "nothing written");
    // A COMMIT that reaches the server after the give-back leaves the claim until its lease ends:
    // the answer says the outcome is unknown, never that nothing was written.
    if (row?.claimed === 1) await releaseUnanswered(pool, t, [siteNo, key, token], until);
    throw unavailable(error, "idempotency key claim", "unknown");
  }
  if (row !== undefined && row.fingerprint !== null) return { state: "recorded", record: recordOf(row as RecordRow) };
  if (row?.claimed !== 1) return { state: "busy" };
  return {
    state: "claimed",
    async release() {
      try {
        await pool.query(releaseSql(t), [siteNo, key, token]);
      } catch (error) {
        throw unavailable(error, "idempotency key release");
      }
    },
  };
}

/**
 * The unexpired record of `key` in site `siteNo`, read by the commit once it holds the site's
 * lock; else, for an import without the key's claim, "claimed" while another holds it.
 */
export async function recordedKey(
  client: pg.ClientBase,
  t: Tables,
  siteNo: number,
  { key, claimed }: KeyToRecord,
): Promise<KeyRecord | "claimed" | undefined> {
  const { rows } = await client.query<ClaimRow>(
    `SELECT r.fingerprint, r.created, r.updated, r.unchanged, r.deleted,
       (NOT $3::bool AND EXISTS (SELECT 1 FROM ${t.keyClaims}
         WHERE site = $1 AND key = $2 AND expires_at > ${NOW}))::int AS claimed
     FROM (SELECT 1) one LEFT JOIN ${t.importKeys} r ON r.site = $1 AND r.key = $2 AND r.expires_at > ${NOW}`,
    [siteNo, key, claimed],
  );
  const row = rows[0];
  if (row !== undefined && row.fingerprint !== null) return recordOf(row as RecordRow);
  return row?.claimed === 1 ? "claimed" : undefined;
}

/** Writes the record of `key` in the commit's transaction, in place of an expired one the sweep has not removed yet. */
export async function recordKey(
  client: pg.ClientBase,
  t: Tables,
  siteNo: number,
  { key, fingerprint, retainMs }: KeyToRecord,
  counts: ImportCounts,
): Promise<void> {
  await client.query(
    `INSERT INTO ${t.importKeys} (site, key, fingerprint, created, updated, unchanged, deleted, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, ${after("$8")})
     ON CONFLICT (site, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, created = EXCLUDED.created,
       updated = EXCLUDED.updated, unchanged = EXCLUDED.unchanged, deleted = EXCLUDED.deleted,
       expires_at = EXCLUDED.expires_at`,
    [siteNo, key, fingerprint, counts.created, counts.updated, counts.unchanged, counts.deleted ?? null, retainMs],
  );
}
