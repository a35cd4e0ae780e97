// An import into a site that has no row yet writes its products into the products table as they
// arrive, by COPY, under a site number of its own that no reader or writer knows until the commit
// creates the site's row with it: the import waits on no one, no one waits on it, no transaction
// stays open while the body arrives, and the commit has nothing left to write. Each chunk's COPY
// commits on its own; a repeated id or sku fails only that COPY (the unique indexes judge it),
// and then, as when another writer created the site meanwhile, what was written goes back into
// the staging and the import is judged as any other. The import holds an advisory lock on its
// number: rows under a number whose lock no one holds are an import that died, which the sweep
// deletes (sweep.ts).
import type { CommitResult, Product, Site } from "@catalog-kit/catalog-core";
import type pg from "pg";
import { allCreated, type CommitPlan } from "./commit.ts";
import { copyIn, orderRows, productRows } from "./copy-rows.ts";
import { isUniqueViolation } from "./errors.ts";
import { ORDER, STAGING } from "./reduce.ts";
import type { Tables } from "./schema.ts";

/** An import writing under a site number of its own. */
export interface NewSite {
  readonly siteNo: number;
  /** Products written so far; undefined once the import went back to the staging. */
  written: number | undefined;
}

/** The first key of the advisory lock an import holds on its number (`hashtext` of it; the number is the second). */
export const lockTag = (t: Tables): string => `catalog-kit new site ${t.schema}`;

/**
 * When the site has no row yet: takes a number for it, locked and registered in `new_sites`.
 * Else answers undefined.
 */
export async function openNewSite(client: pg.ClientBase, t: Tables, site: Site): Promise<NewSite | undefined> {
  const { rows } = await client.query<{ site: string }>(
    `SELECT nextval(pg_get_serial_sequence($3, 'site')) AS site
     WHERE NOT EXISTS (SELECT 1 FROM ${t.sites} WHERE site_type = $1 AND site_id = $2)`,
    [site.siteType, site.siteId, t.sites],
  );
  if (rows[0] === undefined) return undefined;
  const siteNo = Number(rows[0].site);
  // Locked before the row is seen, so that the sweep never takes a running import for a dead one.
  await client.query(
    `WITH locked AS (SELECT pg_advisory_lock(hashtext($1), $2)) INSERT INTO ${t.newSites} (site) SELECT $2 FROM locked`,
    [lockTag(t), siteNo],
  );
  // The chunks' commits need no flush of their own: the commit that creates the site flushes the
  // WAL up to its own record, and so theirs. The setting lasts until the import's connection is
  // given back (`END_NEW_SITE`).
  await client.query("SET synchronous_commit TO off");
  return { siteNo, written: 0 };
}

/**
 * Writes a chunk under the import's number; false when the import stages (it went back to the
 * staging, now or before): the caller then stages the chunk.
 */
export async function writeChunk(
  client: pg.ClientBase,
  t: Tables,
  into: NewSite,
  products: readonly Product[],
  positions: readonly number[],
  firstSeq: number,
): Promise<boolean> {
  if (into.written === undefined) return false;
  try {
    await copyIn(client, `COPY ${t.products} (site, id, sku, body) FROM STDIN`, productRows(products, into.siteNo));
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    await backToStaging(client, t, into);
    return false;
  }
  await copyIn(client, `COPY ${ORDER} (seq, position, id) FROM STDIN`, orderRows(products, positions, firstSeq));
  into.written += products.length;
  return true;
}

/** Every product written, with the seq and position it came with, goes into the staging. */
export async function backToStaging(client: pg.ClientBase, t: Tables, into: NewSite): Promise<void> {
  into.written = undefined;
  await client.query(
    `INSERT INTO ${STAGING} (seq, position, id, sku, body)
     SELECT o.seq, o.position, p.id, p.sku, p.body FROM ${ORDER} o JOIN ${t.products} p ON p.site = $1 AND p.id = o.id`,
    [into.siteNo],
  );
  await client.query(`DELETE FROM ${t.products} WHERE site = $1`, [into.siteNo]);
}

/**
 * Inside the commit's transaction: creates the site's row with the import's number, which makes
 * every product written visible when the transaction commits. Undefined, with the products back
 * in the staging, when the import must be judged as any other.
 */
export async function commitNewSite(
  client: pg.ClientBase,
  t: Tables,
  site: Site,
  into: NewSite,
  plan: CommitPlan,
): Promise<CommitResult | undefined> {
  // This commit is the one acknowledged: it waits for its flush, whatever the chunks did.
  await client.query("SET LOCAL synchronous_commit TO on");
  if (into.written === undefined) return undefined;
  const created = await client.query(
    `INSERT INTO ${t.sites} (site, site_type, site_id) OVERRIDING SYSTEM VALUE VALUES ($1, $2, $3)
     ON CONFLICT DO NOTHING`,
    [into.siteNo, site.siteType, site.siteId],
  );
  if (created.rowCount !== 1) {
    await backToStaging(client, t, into);
    return undefined;
  }
  await client.query(`DELETE FROM ${t.newSites} WHERE site = $1`, [into.siteNo]);
  // No other import can have recorded or claimed the key: either would have created the site.
  return allCreated(client, t, into.siteNo, plan, into.written);
}

/** What the import's connection must run before it is lent again: its lock let go, its setting reset. */
export const END_NEW_SITE = "SELECT pg_advisory_unlock_all(); RESET synchronous_commit";
