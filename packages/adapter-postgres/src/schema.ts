// The tables of the catalog and their versioned migrations, run at start-up under an advisory
// lock so that servers starting together migrate once, or ahead of a deploy with `migrate`.
import type pg from "pg";
import { checkSessionKept } from "./session-check.ts";

/** The qualified names of the store's tables in one schema. */
export interface Tables {
  readonly schema: string;
  readonly sites: string;
  readonly products: string;
  readonly importKeys: string;
  readonly keyClaims: string;
  readonly newSites: string;
  readonly tenants: string;
  readonly tenantsVersion: string;
  readonly usage: string;
  readonly history: string;
  readonly deliveries: string;
  readonly migrations: string;
}

/** The schema of the store's tables when `schema` is not given. */
export const DEFAULT_SCHEMA = "catalog";

// PostgreSQL cuts a longer name to this many bytes (NAMEDATALEN - 1), silently: two long names
// would be one schema.
const MAX_NAME_BYTES = 63;

/**
 * Why PostgreSQL cannot hold `schema` as the store's own schema, or undefined when it can: empty,
 * NUL or lone surrogates (text it cannot hold), over 63 bytes (it would be cut), or `pg_` (reserved).
 */
export function schemaProblem(schema: string): string | undefined {
  if (schema === "") return "Must not be empty";
  if (schema.includes("\u0000") || !schema.isWellFormed())
    return "Must be well-formed Unicode without NUL (PostgreSQL cannot hold it)";
  if (Buffer.byteLength(schema, "utf8") > MAX_NAME_BYTES)
    return `Must be at most ${MAX_NAME_BYTES} bytes of UTF-8 (PostgreSQL would cut it short)`;
  if (schema.startsWith("pg_")) return 'Must not start with "pg_" (PostgreSQL reserves such schemas)';
  return undefined;
}

/** `schema`, or a TypeError saying why PostgreSQL cannot hold it (`schemaProblem`). */
export function checkSchemaName(schema: string): string {
  const problem = schemaProblem(schema);
  if (problem !== undefined) throw new TypeError(`Invalid schema ${JSON.stringify(schema)}: ${problem}`);
  return schema;
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

/** The tables of `schema`, quoted so that any schema name is safe in SQL. */
export function tablesOf(schema: string): Tables {
  const s = quote(schema);
  return {
    schema,
    sites: `${s}.sites`,
    products: `${s}.products`,
    importKeys: `${s}.import_keys`,
    keyClaims: `${s}.import_key_claims`,
    newSites: `${s}.new_sites`,
    tenants: `${s}.tenants`,
    tenantsVersion: `${s}.tenants_version`,
    usage: `${s}.usage_counters`,
    history: `${s}.import_history`,
    deliveries: `${s}.deliveries`,
    migrations: `${s}.schema_migrations`,
  };
}

// One entry per version, applied in order, each in its own transaction. Never edit one that has
// shipped: add the next.
const MIGRATIONS: readonly ((t: Tables) => string)[] = [
  // 1. A site is a small number, so that the products' keys and indexes do not repeat two strings
  // of up to 256 characters. Ids and skus compare as bytes (COLLATE "C"): UTF-8 byte order is
  // code-point order, the order of `list`. The body is the canonical `encodeProduct` text, kept
  // as text because jsonb would reorder keys and rewrite numbers.
  (t) => `
    CREATE TABLE ${t.sites} (
      site integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      site_type text NOT NULL,
      site_id text NOT NULL,
      UNIQUE (site_type, site_id)
    );
    CREATE TABLE ${t.products} (
      site integer NOT NULL,
      id text COLLATE "C" NOT NULL,
      sku text COLLATE "C" NOT NULL,
      body text NOT NULL,
      PRIMARY KEY (site, id),
      UNIQUE (site, sku)
    );`,
  // 2. Idempotency keys: a commit's record of its key (written in the commit's transaction) and
  // the claims of imports in flight, both by the site's number like products. Counts are columns
  // in the order the answer gives them; `deleted` is null but for a replace. The expiry indexes
  // are what the sweep walks, so that deleting expired rows never scans the tables.
  (t) => `
    CREATE TABLE ${t.importKeys} (
      site integer NOT NULL,
      key text COLLATE "C" NOT NULL,
      fingerprint text NOT NULL,
      created integer NOT NULL,
      updated integer NOT NULL,
      unchanged integer NOT NULL,
      deleted integer,
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (site, key)
    );
    CREATE INDEX ON ${t.importKeys} (expires_at);
    CREATE TABLE ${t.keyClaims} (
      site integer NOT NULL,
      key text COLLATE "C" NOT NULL,
      token uuid NOT NULL,
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (site, key)
    );
    CREATE INDEX ON ${t.keyClaims} (expires_at);`,
  // 3. The numbers taken by imports creating a site, whose products are written under them before
  // the site's row exists (new-site.ts): a row while such an import runs, or after its process
  // died, until the sweep deletes what it wrote.
  (t) => `
    CREATE TABLE ${t.newSites} (
      site integer PRIMARY KEY,
      begun timestamptz NOT NULL DEFAULT clock_timestamp()
    );`,
  // 4. The tenants registry, with its version in one row that every applied write updates in its
  // own transaction (its lock orders the writes, so versions follow commits), and usage counters
  // with the time they end, indexed for the sweep. Keys compare as bytes, as ids do.
  (t) => `
    CREATE TABLE ${t.tenants} (
      key text COLLATE "C" PRIMARY KEY,
      value text NOT NULL
    );
    CREATE TABLE ${t.tenantsVersion} (
      one boolean PRIMARY KEY DEFAULT true CHECK (one),
      version bigint NOT NULL
    );
    INSERT INTO ${t.tenantsVersion} (version) VALUES (0);
    CREATE TABLE ${t.usage} (
      key text COLLATE "C" PRIMARY KEY,
      total bigint NOT NULL,
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX ON ${t.usage} (expires_at);`,
  // 5. The import history, keyed by the site's names rather than its number: a record is saved
  // when an import begins, and creating the site's row then would take from a site's first import
  // the path that writes it under a number of its own (new-site.ts). Ids compare as bytes, so the
  // primary key walks a site's records in the contract's order. The delivery queue is one per
  // store; its times are the caller's milliseconds as float8, which holds any JavaScript number
  // exactly, and a claim walks the index on `due_at` (a row is available once due and unleased,
  // and only deliveries in flight are leased).
  (t) => `
    CREATE TABLE ${t.history} (
      site_type text COLLATE "C" NOT NULL,
      site_id text COLLATE "C" NOT NULL,
      id text COLLATE "C" NOT NULL,
      value text NOT NULL,
      problems text,
      PRIMARY KEY (site_type, site_id, id)
    );
    CREATE TABLE ${t.deliveries} (
      id text COLLATE "C" PRIMARY KEY,
      due_at float8 NOT NULL,
      value text NOT NULL,
      lease text,
      leased_until float8
    );
    CREATE INDEX ON ${t.deliveries} (due_at);`,
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

async function currentVersion(client: pg.ClientBase, t: Tables): Promise<number | undefined> {
  const exists = await client.query<{ table: string | null }>("SELECT to_regclass($1) AS table", [t.migrations]);
  if (exists.rows[0]?.table == null) return undefined;
  const { rows } = await client.query<{ version: number | null }>(
    `SELECT max(version) AS version FROM ${t.migrations}`,
  );
  return rows[0]?.version ?? 0;
}

function tooNew(version: number): Error {
  return new Error(
    `The catalog's tables are at schema version ${version}, newer than this version of the store knows (${SCHEMA_VERSION}); upgrade it`,
  );
}

// Under an advisory lock, so that another server migrating at once waits, then finds nothing to
// do. `target` is older than SCHEMA_VERSION only in tests of a migration from an older version.
/**
 * Creates or migrates the tables in `schema` to `target` on one connection of `pool`; resolves with
 * the version found and the version now. Refuses a database that is not UTF-8, and a pooler that
 * does not keep a session per connection (`checkSessionKept`).
 */
export async function migrateSchema(
  pool: pg.Pool,
  schema: string,
  target = SCHEMA_VERSION,
): Promise<{ from: number; to: number }> {
  const t = tablesOf(schema);
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await checkSessionKept(pool, client);
    // Nothing to do is the common case, and needs no lock and no right to create anything.
    const found = await currentVersion(client, t);
    if (found === target) return { from: found, to: found };
    if (found !== undefined && found > SCHEMA_VERSION) throw tooNew(found);
    const { rows } = await client.query<{ encoding: string }>("SELECT current_setting('server_encoding') AS encoding");
    if (rows[0]?.encoding !== "UTF8") {
      throw new Error(`The database's encoding is ${rows[0]?.encoding}; the catalog needs UTF8`);
    }
    await client.query("SELECT pg_advisory_lock(hashtextextended($1, 0))", [`catalog-kit schema ${schema}`]);
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quote(schema)}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${t.migrations} (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const from = (await currentVersion(client, t)) ?? 0;
      if (from > SCHEMA_VERSION) throw tooNew(from);
      for (let version = from + 1; version <= target; version++) {
        await client.query("BEGIN");
        try {
          await client.query((MIGRATIONS[version - 1] as (t: Tables) => string)(t));
          await client.query(`INSERT INTO ${t.migrations} (version) VALUES ($1)`, [version]);
          await client.query("COMMIT");
        } catch (error) {
          await client.query("ROLLBACK").catch(() => {});
          throw error;
        }
      }
      return { from, to: Math.max(from, target) };
    } finally {
      await client
        .query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [`catalog-kit schema ${schema}`])
        .catch((error: Error) => {
          broken = error;
        });
    }
  } finally {
    client.release(broken);
  }
}
