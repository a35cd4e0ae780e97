// The store needs a PostgreSQL session per connection: an import stages in a temporary table of
// its connection across many statements, and migrations hold a session advisory lock. A pooler
// that lends a server process per transaction (PgBouncer's pool_mode = transaction or statement,
// its most common deployment) would mix the sessions of unrelated clients, so the store refuses
// it at start-up, saying what to do, rather than mixing imports.
import { CatalogError } from "@catalog-kit/catalog-core";
import pg from "pg";

/** The refusal of a pooler that does not keep a session per connection. */
export const SESSION_POOLING_NEEDED =
  "PostgreSQL is reached through a pooler that does not keep one session per connection " +
  "(PgBouncer with pool_mode = transaction or statement): the catalog keeps each import's staging " +
  "in a temporary table of its connection and migrates under a session lock, which such a pooler " +
  "would hand to other clients. Use pool_mode = session for the catalog's database in PgBouncer, " +
  "or connect to PostgreSQL directly";

async function backend(client: pg.ClientBase): Promise<number> {
  const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
  return rows[0]?.pid as number;
}

/**
 * Resolves when `client`, a connection of `pool`, has a server session of its own; else rejects
 * with `STORAGE_UNAVAILABLE` and `SESSION_POOLING_NEEDED`. Between two statements of `client`,
 * another connection holds a transaction open: directly or through session pooling, it has a
 * process of its own and `client` keeps its process; through a transaction pooler it is given
 * the process `client` just let go (PgBouncer lends the last one freed first), or `client` gets
 * another one next.
 */
export async function checkSessionKept(pool: pg.Pool, client: pg.ClientBase): Promise<void> {
  const first = await backend(client);
  // Outside the pool: a pool of one connection, which `client` holds, would wait for ever.
  const other = new pg.Client(pool.options);
  // A connection the pooler ends is reported here as well as to the statement that failed.
  other.on("error", () => {});
  let kept: boolean;
  await other.connect();
  try {
    await other.query("BEGIN");
    const others = await backend(other);
    kept = others !== first && (await backend(client)) === first;
  } catch (error) {
    // PgBouncer in statement pooling refuses a transaction block so (PostgreSQL never does).
    if ((error as { code?: unknown }).code !== "08P01") throw error;
    kept = false;
  } finally {
    await other.end().catch(() => {});
  }
  if (!kept) throw new CatalogError("STORAGE_UNAVAILABLE", SESSION_POOLING_NEEDED);
}
