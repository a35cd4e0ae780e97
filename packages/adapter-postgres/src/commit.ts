// The commit of a staged import, judged in SQL: the staging table (every chunk as it came) is
// reduced to the last product of each id, its conflicts and counts are read against the site
// under the site's lock, and its writes applied, all in one transaction on the import's
// connection. Nothing of the import crosses to this process but numbers and conflicts.
import {
  type CommitResult,
  combineConflicts,
  judgeNewSite,
  type KeyToRecord,
  type Site,
  type SkuConflict,
} from "@catalog-kit/catalog-core";
import type pg from "pg";
import { digestSql, NO_BASE } from "./base-digests.ts";
import { isUniqueViolation } from "./errors.ts";
import { recordedKey, recordKey } from "./keys.ts";
import { IDS, ORDER, reduceStaging, STAGING } from "./reduce.ts";
import type { Tables } from "./schema.ts";

/**
 * The statement that creates (once per connection) and empties the staging tables. A row's `base`
 * is the digest of the body its product was made from (base-digests.ts), `NO_BASE` when no
 * product had its id, NULL when none was given.
 */
export const PREPARE_STAGING = `
  CREATE TEMP TABLE IF NOT EXISTS catalog_import (
    seq bigint NOT NULL, position bigint NOT NULL, id text COLLATE "C" NOT NULL,
    sku text COLLATE "C" NOT NULL, body text NOT NULL, base text
  );
  CREATE TEMP TABLE IF NOT EXISTS catalog_import_order (
    seq bigint NOT NULL, position bigint NOT NULL, id text COLLATE "C" NOT NULL
  );
  TRUNCATE ${STAGING}, ${ORDER}`;

// Every claimer of a sku but its first claimer.
const CLAIMED = `
  SELECT sku, id, held_by, last_position FROM (
    SELECT sku, id, last_position, first_value(id) OVER (PARTITION BY sku ORDER BY first_position) AS held_by
    FROM ${IDS}) claims
  WHERE id <> held_by ORDER BY last_position`;

// The import's counts against the site, and whether a base is no longer the stored product.
interface CountsRow {
  readonly total: string;
  readonly existing: string;
  readonly unchanged: string;
  readonly size: string;
  readonly stale: boolean;
}

interface ConflictRow {
  readonly sku: string;
  readonly id: string;
  readonly held_by: string;
  readonly last_position: string;
}

function conflictsOf(rows: readonly ConflictRow[]): SkuConflict[] {
  return rows.map((r) => ({ sku: r.sku, id: r.id, heldBy: r.held_by, position: Number(r.last_position) }));
}

/**
 * How the commit goes: a dry run reads one snapshot and writes nothing; a replace deletes what it
 * does not name; with `key`, the import is refused if the key is recorded, else recorded with it;
 * `based` when an `add` gave bases, which are then checked before anything else.
 */
export interface CommitPlan {
  readonly dryRun: boolean;
  readonly replace: boolean;
  readonly key?: KeyToRecord | undefined;
  readonly based?: boolean;
}

// The site's number, locked against every other commit and remove of the site until this
// transaction ends; created at the first write. A dry run neither creates nor locks it.
async function lockSite(client: pg.ClientBase, t: Tables, site: Site, create: boolean): Promise<number | undefined> {
  const select = `SELECT site FROM ${t.sites} WHERE site_type = $1 AND site_id = $2${create ? " FOR UPDATE" : ""}`;
  const args = [site.siteType, site.siteId];
  let found = await client.query<{ site: number }>(select, args);
  if (found.rows.length === 0 && create) {
    await client.query(`INSERT INTO ${t.sites} (site_type, site_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, args);
    found = await client.query<{ site: number }>(select, args);
  }
  return found.rows[0]?.site;
}

/**
 * An import into a site that holds no product has nothing to compare, update or delete: under
 * the site's lock, every staged row is inserted in one statement, and the products' own unique
 * indexes tell whether an id or a sku repeats. Then nothing of it stays, and the general path
 * judges the import. Returns the commit's answer, or undefined when the general path must run.
 */
async function intoEmptySite(
  client: pg.ClientBase,
  t: Tables,
  site: Site,
  plan: CommitPlan,
): Promise<CommitResult | undefined> {
  // Read without the lock first, so that imports into sites with products never take it early.
  const { rows } = await client.query<{ empty: boolean }>(
    `SELECT NOT EXISTS (SELECT 1 FROM ${t.products} p JOIN ${t.sites} s ON s.site = p.site
       WHERE s.site_type = $1 AND s.site_id = $2) AS empty`,
    [site.siteType, site.siteId],
  );
  if (rows[0]?.empty !== true) return undefined;
  const siteNo = (await lockSite(client, t, site, true)) as number;
  const still = await client.query<{ empty: boolean }>(
    `SELECT NOT EXISTS (SELECT 1 FROM ${t.products} WHERE site = $1) AS empty`,
    [siteNo],
  );
  if (still.rows[0]?.empty !== true) return undefined;
  // As in the general path: read after the lock, so that a commit of the same key before it is seen.
  const recorded = plan.key && (await recordedKey(client, t, siteNo, plan.key));
  if (recorded === "claimed") return { applied: false, conflicts: [], busy: true };
  if (recorded) return { applied: false, conflicts: [], recorded };
  await client.query("SAVEPOINT catalog_empty_site");
  let created: number;
  try {
    const inserted = await client.query(
      `INSERT INTO ${t.products} (site, id, sku, body) SELECT $1, id, sku, body FROM ${STAGING}`,
      [siteNo],
    );
    await client.query("RELEASE SAVEPOINT catalog_empty_site");
    created = inserted.rowCount ?? 0;
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    await client.query("ROLLBACK TO SAVEPOINT catalog_empty_site");
    return undefined;
  }
  return allCreated(client, t, siteNo, plan, created);
}

/**
 * The answer of an import whose `created` products were all new to site `siteNo`, written in the
 * commit's transaction: its counts, recorded under its key if it has one.
 */
export async function allCreated(
  client: pg.ClientBase,
  t: Tables,
  siteNo: number,
  plan: CommitPlan,
  created: number,
): Promise<CommitResult> {
  const judged = judgeNewSite(created, plan.replace);
  if (plan.key) await recordKey(client, t, siteNo, plan.key, judged.counts);
  return judged;
}

/**
 * Judges and applies the staged import inside a transaction the caller has begun (and ends):
 * `StagedImport.commit`'s answer. With conflicts, or in a dry run, it writes nothing.
 */
export async function judgeAndApply(
  client: pg.ClientBase,
  t: Tables,
  site: Site,
  plan: CommitPlan,
): Promise<CommitResult> {
  // Bases are checked by the general path alone.
  if (!plan.dryRun && !plan.based) {
    const done = await intoEmptySite(client, t, site, plan);
    if (done !== undefined) return done;
  }
  const reduced = await reduceStaging(client);
  const claimed = reduced.skusUnique ? [] : conflictsOf((await client.query<ConflictRow>(CLAIMED)).rows);
  const siteNo = await lockSite(client, t, site, !plan.dryRun);
  // After the lock, as the record below: no other write of the site lands between this and the
  // commit's. Bases are compared in the join that counts, one pass over the import's products.
  const stale = plan.based ? `coalesce(bool_or(i.base <> coalesce(${digestSql("p.body")}, $3)), false)` : "false";
  const { rows } = await client.query<CountsRow>(
    `SELECT count(*) AS total, count(p.id) AS existing, count(*) FILTER (WHERE p.body = i.body) AS unchanged,
       (SELECT count(*) FROM ${t.products} WHERE site = $1 AND $2) AS size, ${stale} AS stale
     FROM ${IDS} i LEFT JOIN ${t.products} p ON p.site = $1 AND p.id = i.id`,
    [siteNo ?? null, plan.replace, ...(plan.based ? [NO_BASE] : [])],
  );
  const row = rows[0] as CountsRow;
  if (row.stale) return { applied: false, conflicts: [], stale: true };
  // Read after the lock, by a statement of its own: under READ COMMITTED it sees the record of a
  // commit of the same key that held the lock before this one.
  const recorded = plan.key && siteNo !== undefined ? await recordedKey(client, t, siteNo, plan.key) : undefined;
  if (recorded === "claimed") return { applied: false, conflicts: [], busy: true };
  if (recorded !== undefined) return { applied: false, conflicts: [], recorded };
  // A product of the site that the import does not name keeps its sku (unless this is a replace).
  const held =
    plan.replace || siteNo === undefined
      ? []
      : conflictsOf(
          (
            await client.query<ConflictRow>(
              `SELECT i.sku, i.id, p.id AS held_by, i.last_position
               FROM ${IDS} i JOIN ${t.products} p ON p.site = $1 AND p.sku = i.sku
               WHERE p.id <> i.id AND NOT EXISTS (SELECT 1 FROM ${IDS} j WHERE j.id = p.id)
               ORDER BY i.last_position`,
              [siteNo],
            )
          ).rows,
        );
  if (held.length + claimed.length > 0) return { applied: false, conflicts: combineConflicts(held, claimed) };

  const [total, existing, unchanged] = [Number(row.total), Number(row.existing), Number(row.unchanged)];
  const counts = { created: total - existing, updated: existing - unchanged, unchanged };
  const answer = plan.replace ? { ...counts, deleted: Number(row.size) - existing } : counts;
  if (plan.dryRun || siteNo === undefined) return { applied: true, counts: answer };

  if (plan.replace) {
    await client.query(
      `DELETE FROM ${t.products} p WHERE p.site = $1 AND NOT EXISTS (SELECT 1 FROM ${IDS} i WHERE i.id = p.id)`,
      [siteNo],
    );
  }
  // Products whose sku changes go first, so that the unique sku index, checked row by row, sees
  // every old sku freed before any is taken again (two products may swap skus).
  await client.query(
    `DELETE FROM ${t.products} p USING ${IDS} i WHERE p.site = $1 AND p.id = i.id AND p.sku <> i.sku`,
    [siteNo],
  );
  await client.query(
    `INSERT INTO ${t.products} (site, id, sku, body)
     SELECT $1, i.id, i.sku, i.body FROM ${IDS} i
     WHERE NOT EXISTS (SELECT 1 FROM ${t.products} p WHERE p.site = $1 AND p.id = i.id AND p.body = i.body)
     ON CONFLICT (site, id) DO UPDATE SET sku = EXCLUDED.sku, body = EXCLUDED.body`,
    [siteNo],
  );
  if (plan.key) await recordKey(client, t, siteNo, plan.key, answer);
  if (reduced.cleanup !== undefined) await client.query(reduced.cleanup);
  return { applied: true, counts: answer };
}
