// An import into a site that has no number yet writes its products into the products table as
// they arrive, each chunk its own short write transaction, under a number of its own that no
// reader knows until the commit gives it to the site: the commit has nothing left to copy, where
// a staged import's copies every product from its staging into the file (seconds a million).
// Its positions go to a temporary table, for the one case that needs them: an id or a sku given
// twice, a base given (a merge), or a site that got its number meanwhile, after which what was
// written moves into the staging and the import is judged as any other.
// `new_sites` holds each such number with the last time its import was heard of: the writer
// refreshes it while the import lives, and sweeps the products of a number not heard of for
// `ABANDONED_MS` (a process that died) or given up (an import that ended without its commit).
import { judgeNewSite, type RowJudgement } from "@catalog-kit/catalog-core";
import type { Connection } from "./connection.ts";
import { giveNumber, newNumber, siteNumber } from "./sites.ts";

/** How long a new site's products wait, their import not heard of, before the sweep removes them. */
export const ABANDONED_MS = 10 * 60_000;

/** Products the sweep deletes in one transaction, so that other writes wait for no more. */
export const SWEEP_BATCH = 10_000;

/** The written products of an import into a new site. */
export interface NewSite {
  readonly number: number;
  /**
   * Writes a chunk (`rows`: each product's id, sku and body in turn) under the number, in one
   * transaction; false, with nothing of the chunk written, when it names an id written before (or twice).
   */
  write(rows: readonly string[], positions: readonly number[]): boolean;
  /** Moves every product written into the staging table `staging`: inside a write transaction. */
  moveTo(staging: string): void;
  /**
   * Inside the commit's write transaction: gives the site the number and answers the import's
   * judgement, or answers undefined when it must be judged as any other (then `moveTo` first).
   */
  publish(site: string, replace: boolean): RowJudgement | undefined;
  /** Leaves what was written for the sweep; safe twice. */
  end(): void;
}

// An import's products not heard of since `heard`: its process died, or it ended unpublished
// (`heard` 0). Thrown by a write whose number was swept: its products are gone.
const SWEPT = "the import's products were removed: its store did not hear of it for 10 minutes";

// A number's row: heard of at a time (0: given up), or gone once published, moved or swept.
const HEAR = "UPDATE new_sites SET heard = ? WHERE number = ?";
const FORGET = "DELETE FROM new_sites WHERE number = ?";

/**
 * What an import wrote under its number (parameter 1), with its positions, into its staging.
 * CROSS JOIN fixes the order SQLite's planner would otherwise choose: each product of the number
 * walked against every position (3,100 products took 6 s), where each position seeks its product.
 */
export const moveSql = (order: string, staging: string): string =>
  `INSERT INTO ${staging} (id, sku, first, last, body, base, based)
   SELECT p.id, p.sku, pair.value ->> 1, pair.value ->> 1, p.body, NULL, 0
   FROM ${order} o CROSS JOIN json_each(o.pairs) pair CROSS JOIN main.products p
   WHERE p.site = ?1 AND p.id = pair.value ->> 0`;

/** Takes a number for `site` when it has none (else undefined), with the temporary table of the import's positions. */
export function openNewSite(connection: Connection, site: string, tag: number): NewSite | undefined {
  // Read first without the write lock: most imports are into a site that has its number.
  if (siteNumber(connection, site) !== undefined) return undefined;
  const number = connection.transaction(() => {
    if (siteNumber(connection, site) !== undefined) return undefined;
    const taken = newNumber(connection);
    connection.statement("INSERT INTO new_sites (number, heard) VALUES (?, ?)").run(taken, Date.now());
    return taken;
  });
  if (number === undefined) return undefined;
  const { db } = connection;
  const order = `temp.new_site_order_${tag}`;
  // A row a chunk, its ids and positions as one JSON array of pairs: a row a product cost the
  // chunk's writes an eighth more.
  db.exec(`CREATE TABLE ${order} (pairs TEXT NOT NULL)`);
  const insert = db.prepare(
    "INSERT INTO main.products (site, id, sku, body) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
  );
  const place = db.prepare(`INSERT INTO ${order} (pairs) VALUES (?)`);
  let written = 0;
  let live = true;

  const heard = (): void => {
    const { changes } = connection.statement(HEAR).run(Date.now(), number);
    if (changes === 0) throw new Error(SWEPT);
  };
  const giveUp = (): void => {
    live = false;
    try {
      if (!connection.isClosed) db.exec(`DROP TABLE IF EXISTS ${order}`);
    } catch {
      // Left to go with the connection.
    }
  };

  return {
    number,
    write(rows, positions) {
      const repeated = Symbol("repeated");
      try {
        connection.transaction(() => {
          heard();
          const pairs: [string, number][] = [];
          for (let i = 0; i < positions.length; i++) {
            const id = rows[3 * i] ?? "";
            const { changes } = insert.run(number, id, rows[3 * i + 1] ?? "", rows[3 * i + 2] ?? "");
            if (changes === 0) throw repeated;
            pairs.push([id, positions[i] ?? 0]);
          }
          place.run(JSON.stringify(pairs));
        });
      } catch (error) {
        if (error === repeated) return false;
        throw error;
      }
      written += positions.length;
      return true;
    },

    moveTo(staging) {
      db.prepare(moveSql(order, staging)).run(number);
      connection.statement("DELETE FROM products WHERE site = ?").run(number);
      connection.statement(FORGET).run(number);
      giveUp();
    },

    publish(site, replace) {
      heard();
      if (siteNumber(connection, site) !== undefined) return undefined;
      // The sku index walked once: a sku on two products sends the import to the judgement that
      // names them.
      const repeats = connection
        .statement("SELECT 1 FROM products WHERE site = ? GROUP BY sku HAVING count(*) > 1 LIMIT 1")
        .get(number);
      if (repeats !== undefined) return undefined;
      giveNumber(connection, site, number);
      connection.statement(FORGET).run(number);
      giveUp();
      return judgeNewSite(written, replace);
    },

    end() {
      if (!live) return;
      giveUp();
      try {
        if (!connection.isClosed) connection.statement(HEAR).run(0, number);
      } catch {
        // Heard of no more: the sweep takes it once `ABANDONED_MS` passed.
      }
    },
  };
}

/** Marks the new sites of imports still running as heard of now. */
export function hearNewSites(connection: Connection, numbers: Iterable<number>): void {
  const now = Date.now();
  connection.transaction(() => {
    for (const number of numbers) connection.statement(HEAR).run(now, number);
  });
}

/**
 * Deletes up to `SWEEP_BATCH` products of an abandoned new site, and its row once none are left,
 * in one transaction; true when there may be more to sweep.
 */
export function sweepNewSites(connection: Connection): boolean {
  const abandoned = () =>
    connection
      .statement("SELECT number FROM new_sites WHERE heard < ? ORDER BY heard LIMIT 1")
      .get(Date.now() - ABANDONED_MS) as { number: number } | undefined;
  // Read first without the write lock: after most imports there is nothing to sweep.
  if (abandoned() === undefined) return false;
  return connection.transaction(() => {
    const row = abandoned();
    if (row === undefined) return false;
    const { changes } = connection
      .statement("DELETE FROM products WHERE site = ?1 AND id IN (SELECT id FROM products WHERE site = ?1 LIMIT ?2)")
      .run(row.number, SWEEP_BATCH);
    if (Number(changes) < SWEEP_BATCH) connection.statement(FORGET).run(row.number);
    return true;
  });
}
