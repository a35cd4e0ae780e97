// The import history in PostgreSQL: a row per record, keyed by the site's names and the record's
// id (bytes order, so the primary key walks a site newest first). A save is one statement, so one
// transaction: the deliveries it carries, the record, and the trim, all or none. Its statements
// see one snapshot, so the trim is judged on the site's ids with the saved one among them; the
// saved record always stays (a long import ends after later ones), so no row is both written and deleted.
import type { HistoryEntry, ImportSave, Site } from "@catalog-kit/catalog-core";
import type { Tables } from "./schema.ts";
import type { Statement } from "./tenants.ts";
import { unholdable, unholdableSite, unholdableSiteError } from "./unholdable.ts";

// $1, $2 the site; $3 the id; $4 the value; $5 the report (null: the record keeps its own); $6, $7,
// $8 the deliveries' ids, times and values; $9 `keep` (null: no trim); $10 `before`. `least` is the
// least id the trim keeps: `before`, or the keep-th greatest id if greater.
const saveSql = (t: Tables) => `
  WITH queued AS (
    INSERT INTO ${t.deliveries} (id, due_at, value)
    SELECT * FROM unnest($6::text[], $7::float8[], $8::text[])
    ON CONFLICT (id) DO NOTHING
  ), kept AS (
    SELECT greatest($10::text COLLATE "C", (
      SELECT id FROM (
        SELECT id FROM ${t.history} WHERE site_type = $1 AND site_id = $2 AND id <> $3::text
        UNION ALL SELECT $3::text COLLATE "C"
      ) ids ORDER BY id DESC OFFSET greatest($9::int - 1, 0) LIMIT 1
    )) AS least
    WHERE $9::int IS NOT NULL
  ), saved AS (
    INSERT INTO ${t.history} AS h (site_type, site_id, id, value, problems)
    SELECT $1, $2, $3, $4, $5
    ON CONFLICT (site_type, site_id, id) DO UPDATE
      SET value = excluded.value, problems = coalesce(excluded.problems, h.problems)
  )
  DELETE FROM ${t.history}
  WHERE site_type = $1 AND site_id = $2 AND id <> $3 AND $9::int IS NOT NULL
    AND ($9::int < 1 OR id < (SELECT least FROM kept))`;

const readSql = (t: Tables, column: "value" | "problems") =>
  `SELECT ${column} AS text FROM ${t.history} WHERE site_type = $1 AND site_id = $2 AND id = $3`;

const listSql = (t: Tables, before: boolean) => `
  SELECT id, value FROM ${t.history}
  WHERE site_type = $1 AND site_id = $2 ${before ? "AND id < $4" : ""}
  ORDER BY id DESC LIMIT $3`;

/** `CatalogStore.saveImport` in one statement; text PostgreSQL cannot hold is a TypeError, never sent. */
export async function saveImport(
  write: Statement,
  t: Tables,
  site: Site,
  entry: HistoryEntry,
  save: ImportSave = {},
): Promise<void> {
  if (unholdableSite(site)) throw unholdableSiteError(site);
  const deliveries = save.deliveries ?? [];
  const texts = [entry.id, entry.value, save.problems ?? "", ...deliveries.flatMap(({ id, value }) => [id, value])];
  if (texts.some(unholdable)) {
    throw new TypeError("saveImport: ids, values and reports must be well-formed Unicode without NUL");
  }
  await write(saveSql(t), [
    site.siteType,
    site.siteId,
    entry.id,
    entry.value,
    save.problems ?? null,
    deliveries.map(({ id }) => id),
    deliveries.map(({ dueAt }) => dueAt),
    deliveries.map(({ value }) => value),
    save.trim?.keep ?? null,
    save.trim?.before ?? null,
  ]);
}

/** `CatalogStore.readImport` (with `column` "value") or `readImportProblems` ("problems"), in one statement. */
export async function readImport(
  read: Statement,
  t: Tables,
  site: Site,
  id: string,
  column: "value" | "problems",
): Promise<string | undefined> {
  if (unholdableSite(site) || unholdable(id)) return undefined;
  const rows = await read<{ text: string | null }>(readSql(t, column), [site.siteType, site.siteId, id]);
  return rows[0]?.text ?? undefined;
}

/** `CatalogStore.listImports`: a range of the primary key, walked backwards. */
export async function listImports(
  read: Statement,
  t: Tables,
  site: Site,
  before: string | undefined,
  limit: number,
): Promise<HistoryEntry[]> {
  if (unholdableSite(site)) return [];
  const args = [site.siteType, site.siteId, limit];
  const rows = await read<{ id: string; value: string }>(
    listSql(t, before !== undefined),
    before === undefined ? args : [...args, before],
  );
  return rows.map(({ id, value }) => ({ id, value }));
}
