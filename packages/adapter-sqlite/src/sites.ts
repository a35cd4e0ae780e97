// Sites' numbers: products are keyed by their site's number, which `sites` gives each site that
// has one, so that an import into a new site can write its products before anyone may see them
// and publish them all at its commit with one row (new-site.ts).
import type { Connection } from "./connection.ts";

/** The number of the site named by parameter 1 (a `siteKey`), or NULL: a subquery for statements on products. */
export const SITE_NUMBER = "(SELECT number FROM sites WHERE site = ?1)";

/** The site's number, if it has one. */
export function siteNumber(connection: Connection, site: string): number | undefined {
  const row = connection.statement("SELECT number FROM sites WHERE site = ?").get(site) as
    | { number: number }
    | undefined;
  return row?.number;
}

/** A number no site or import had before; inside a write transaction. */
export function newNumber(connection: Connection): number {
  return (connection.statement("UPDATE site_numbers SET last = last + 1 RETURNING last").get() as { last: number })
    .last;
}

/** Gives a site that has no number `number`, and with it every product under it; inside a write transaction. */
export function giveNumber(connection: Connection, site: string, number: number): void {
  connection.statement("INSERT INTO sites (site, number) VALUES (?, ?)").run(site, number);
}

/** The site's number, given it now (inside a write transaction) if it had none. */
export function numberSite(connection: Connection, site: string): number {
  const found = siteNumber(connection, site);
  if (found !== undefined) return found;
  const number = newNumber(connection);
  giveNumber(connection, site, number);
  return number;
}
