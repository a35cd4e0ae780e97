// The statements of lookups and pages, named: each connection parses and plans a named statement
// once, where an unnamed one is parsed and planned on every call (most of a lookup's cost in
// PostgreSQL).
import { createHash } from "node:crypto";
import type { KeyField } from "@catalog-kit/catalog-core";
import type { Tables } from "./schema.ts";

/** A statement and the name it is prepared under. */
export interface Prepared {
  readonly name: string;
  readonly text: string;
}

/** `text` under a name that follows it (the text holds the schema, so stores of two schemas never share one). */
export function prepared(text: string): Prepared {
  return { name: `catalog_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`, text };
}

const siteOf = (t: Tables) => `(SELECT site FROM ${t.sites} WHERE site_type = $1 AND site_id = $2)`;

// The body of the product `key` names: by id first, then by sku, the second lookup run only when
// the first found nothing (COALESCE evaluates its arguments in turn).
function bodyOf(t: Tables, by: KeyField | undefined, site: string, key: string): string {
  const arm = (column: string) => `(SELECT body FROM ${t.products} WHERE site = ${site} AND ${column} = ${key})`;
  const arms = [...(by === "sku" ? [] : [arm("id")]), ...(by === "id" ? [] : [arm("sku")])];
  return `COALESCE(${arms.join(", ")})`;
}

/** One lookup: `$1`, `$2` the site, `$3` the key; one row, whose `body` is null when nothing matches. */
export function findSql(t: Tables, by: KeyField | undefined): string {
  return `SELECT ${bodyOf(t, by, siteOf(t), "$3")} AS body`;
}

/** Lookups of one site: `$3` the keys; a row per key of a site that exists, `i` its place in `$3` (from 1). */
export function batchSql(t: Tables, by: KeyField | undefined): string {
  return `SELECT k.i, ${bodyOf(t, by, "s.site", "k.key")} AS body
    FROM ${siteOf(t)} s(site), unnest($3::text[]) WITH ORDINALITY AS k(key, i)`;
}

/** A page of a site in id order: `$3` the limit, `$4` (when `after`) the id it starts after. */
export function listSql(t: Tables, after: boolean): string {
  return `SELECT body FROM ${t.products}
    WHERE site = ${siteOf(t)} ${after ? "AND id > $4" : ""}
    ORDER BY id LIMIT $3`;
}
