// The store's tables, versioned by the database file's `user_version`, so that a later version
// of the package can migrate a file an earlier one wrote.
import type { Connection } from "./connection.ts";

/** The schema version this package writes and reads (the file's `PRAGMA user_version`). */
export const SCHEMA_VERSION = 4;

// One entry per version, applied in order in one transaction. Never edit one that has shipped:
// add the next.
const MIGRATIONS: readonly string[] = [
  // 1. A site is `siteKey(site)`. Ids and skus compare with SQLite's BINARY collation, memcmp of
  // their UTF-8 bytes, which is code-point order: the order `list` walks. The body is the
  // canonical `encodeProduct` text, so that "unchanged" is a comparison of two texts. The sku
  // index is not unique: the commit's judgement keeps skus unique, and two products may swap
  // skus within one commit, which a unique index would refuse halfway. WITHOUT ROWID keeps a
  // product in one b-tree rather than two; at 300,000 products neither was measurably faster.
  // Expiry is in milliseconds since the epoch, indexed so that a sweep deletes only what expired.
  `CREATE TABLE products (
     site TEXT NOT NULL, id TEXT NOT NULL, sku TEXT NOT NULL, body TEXT NOT NULL,
     PRIMARY KEY (site, id)
   ) WITHOUT ROWID;
   CREATE INDEX products_sku ON products (site, sku);
   CREATE TABLE import_keys (
     site TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, counts TEXT NOT NULL,
     expires INTEGER NOT NULL, PRIMARY KEY (site, key)
   ) WITHOUT ROWID;
   CREATE INDEX import_keys_expiry ON import_keys (expires);
   CREATE TABLE key_claims (
     site TEXT NOT NULL, key TEXT NOT NULL, token TEXT NOT NULL, expires INTEGER NOT NULL,
     PRIMARY KEY (site, key)
   ) WITHOUT ROWID;
   CREATE INDEX key_claims_expiry ON key_claims (expires);`,
  // 2. The tenants registry, its version in one row written with each entry, and usage counters
  // with the time they end (milliseconds since the epoch), indexed for their sweep.
  `CREATE TABLE tenants (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
   CREATE TABLE tenants_version (version INTEGER NOT NULL);
   INSERT INTO tenants_version (version) VALUES (0);
   CREATE TABLE usage_counters (
     key TEXT PRIMARY KEY, total INTEGER NOT NULL, expires INTEGER NOT NULL
   ) WITHOUT ROWID;
   CREATE INDEX usage_counters_expiry ON usage_counters (expires);`,
  // 3. Each site's import history, ids compared as products' are (BINARY: byte order), and each
  // record's problem report apart, so that saving a record again never rewrites its report (up to
  // 16 MiB). Rowid tables: a record is kilobytes and a report megabytes, where WITHOUT ROWID
  // suits rows of a small part of a page. The delivery queue, one for the file: `leased_until`
  // 0 when no lease holds a delivery, and the claim's index on both times, so that a claim
  // filters out the deliveries leased by others in the index, without reading their rows.
  `CREATE TABLE import_history (
     site TEXT NOT NULL, id TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (site, id)
   );
   CREATE TABLE import_problems (
     site TEXT NOT NULL, id TEXT NOT NULL, problems TEXT NOT NULL, PRIMARY KEY (site, id)
   );
   CREATE TABLE deliveries (
     id TEXT PRIMARY KEY, due_at INTEGER NOT NULL, value TEXT NOT NULL, lease TEXT,
     leased_until INTEGER NOT NULL
   );
   CREATE INDEX deliveries_due ON deliveries (due_at, leased_until);`,
  // 4. Products under a site's number: `sites` names the number of each site that has one, and
  // an import into a site without one writes its products as they arrive under a number of its
  // own, registered in `new_sites` (with the last time its import was heard of, for the sweep of
  // an import whose process died), that no reader knows until its commit inserts the site's row.
  // `site_numbers` hands out numbers, never one twice. The products are copied under their
  // sites' numbers, in the order of the new key.
  `CREATE TABLE sites (site TEXT PRIMARY KEY, number INTEGER NOT NULL UNIQUE) WITHOUT ROWID;
   CREATE TABLE new_sites (number INTEGER PRIMARY KEY, heard INTEGER NOT NULL);
   CREATE TABLE site_numbers (last INTEGER NOT NULL);
   INSERT INTO sites (site, number) SELECT site, row_number() OVER (ORDER BY site) FROM products GROUP BY site;
   INSERT INTO site_numbers (last) SELECT count(*) FROM sites;
   CREATE TABLE products_by_number (
     site INTEGER NOT NULL, id TEXT NOT NULL, sku TEXT NOT NULL, body TEXT NOT NULL,
     PRIMARY KEY (site, id)
   ) WITHOUT ROWID;
   INSERT INTO products_by_number (site, id, sku, body)
     SELECT s.number, p.id, p.sku, p.body FROM sites s JOIN products p ON p.site = s.site ORDER BY s.number, p.id;
   DROP TABLE products;
   ALTER TABLE products_by_number RENAME TO products;
   CREATE INDEX products_sku ON products (site, sku);`,
];

const versionOf = (connection: Connection): number =>
  (connection.statement("PRAGMA user_version").get() as { user_version: number }).user_version;

/**
 * Brings the file's tables to `SCHEMA_VERSION` under SQLite's write lock, so that processes
 * opening one file together migrate it once; refuses a file a later version of the package wrote.
 */
export function migrate(connection: Connection): void {
  if (versionOf(connection) === SCHEMA_VERSION) return;
  connection.transaction(() => {
    const version = versionOf(connection);
    if (version > SCHEMA_VERSION) {
      throw new Error(`the database file has schema version ${version}; this package knows up to ${SCHEMA_VERSION}`);
    }
    for (const migration of MIGRATIONS.slice(version)) connection.db.exec(migration);
    connection.db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
  });
}
