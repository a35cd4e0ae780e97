// The statements of lookups and pages, apart so that a test can check SQLite's plan of each.
// Parameter 1 is always the site's `siteKey`, read once per statement as its number.
import { SITE_NUMBER } from "./sites.ts";

// The product `find` and `remove` address. `coalesce` evaluates its arguments in order and stops
// at the first that is not null: the sku is looked up only when no product has the id, and both
// in the one statement's snapshot. The sku is always looked up in a subquery that reads the id
// alone: asked for the body too, SQLite's planner (with no statistics) walks the whole site's
// primary key rather than the sku index, and a lookup took 3 ms at 20,000 products.
const BY_SKU = `(SELECT id FROM products WHERE site = ${SITE_NUMBER} AND sku = ?2 LIMIT 1)`;
/** `find` and `remove`: the id and body of the product matched by id, by sku, or by id then sku (`either`). */
export const MATCH = {
  id: `SELECT id, body FROM products WHERE site = ${SITE_NUMBER} AND id = ?2`,
  sku: `SELECT id, body FROM products WHERE site = ${SITE_NUMBER} AND id = ${BY_SKU}`,
  either: `SELECT id, body FROM products WHERE site = ${SITE_NUMBER} AND id = coalesce(
     (SELECT id FROM products WHERE site = ${SITE_NUMBER} AND id = ?2), ${BY_SKU})`,
};

/** A page of `list` from the site's first id. */
export const LIST_FIRST = `SELECT body FROM products WHERE site = ${SITE_NUMBER} ORDER BY id LIMIT ?2`;
/** A page of `list` after an id. */
export const LIST_AFTER = `SELECT body FROM products WHERE site = ${SITE_NUMBER} AND id > ?2 ORDER BY id LIMIT ?3`;
