// A private PostgreSQL for the bench: started by the workspace's launcher (a fresh cluster on a free
// loopback port, never a machine's own server), killed with this process at the latest, and
// watched through a case: the CPU of all its processes, the WAL it wrote, its size.
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
// A namespace import: in an A/B, this bench also runs against trees whose test-support has no
// PostgreSQL launcher, where a named import would fail before anything runs.
import * as support from "@catalog-kit/test-support";
import pg from "pg";
import { forget, killOnExit, removeOnExit } from "./standalone.ts";

/** Whether PostgreSQL storage can run here: the tree has the adapter, and the server's programs are installed. */
export const havePostgres: boolean =
  existsSync(new URL("../packages/adapter-postgres/src/index.ts", import.meta.url)) &&
  typeof support.startPostgres === "function" &&
  support.havePostgres === true;

/** A running private PostgreSQL and a connection of its own for the bench's statements. */
export interface BenchPostgres {
  /** `postgres://catalog@127.0.0.1:<port>/catalog` */
  readonly url: string;
  /** The postmaster's process id. */
  readonly pid: number;
  /** Runs a statement on the bench's own connection. */
  query<R extends pg.QueryResultRow>(sql: string, args?: unknown[]): Promise<pg.QueryResult<R>>;
  /** A fresh connection, which the caller ends. */
  connect(): Promise<pg.Client>;
  /** Stops the server at once and deletes its directory. */
  stop(): Promise<void>;
}

/** Starts a private PostgreSQL and makes sure it is killed, and its directory removed, when this process exits. */
export async function startBenchPostgres(): Promise<BenchPostgres> {
  const server = await support.startPostgres();
  const admin = new pg.Client({ connectionString: server.url, application_name: "catalog-bench" });
  let pid: number | undefined;
  try {
    await admin.connect();
    const { rows } = await admin.query<{ dir: string }>("SELECT current_setting('data_directory') AS dir");
    const data = (rows[0] as { dir: string }).dir;
    pid = Number((await readFile(join(data, "postmaster.pid"), "utf8")).split("\n")[0]);
    if (!Number.isInteger(pid) || pid <= 0) throw new Error(`PostgreSQL in ${data} did not tell its process id`);
    killOnExit(pid);
    // Its temporary directory goes too; nothing else is touched.
    const dir = dirname(data);
    if (dirname(dir) === tmpdir() && basename(dir).startsWith("catalog-")) removeOnExit(dir);
  } catch (error) {
    await admin.end().catch(() => {});
    await server.stop();
    throw error;
  }
  const postmaster = pid;
  return {
    url: server.url,
    pid: postmaster,
    query: (sql, args) => admin.query(sql, args),
    async connect() {
      const client = new pg.Client({ connectionString: server.url, application_name: "catalog-bench" });
      await client.connect();
      return client;
    },
    async stop() {
      await admin.end().catch(() => {});
      await server.stop();
      forget(postmaster);
    },
  };
}

// utime, stime, cutime and cstime of a process, in ticks of 1/100 s (USER_HZ), and its parent.
async function statOf(pid: string | number): Promise<{ ppid: number; own: number; children: number } | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces; fields after its closing parenthesis do not.
    const fields = stat
      .slice(stat.lastIndexOf(")") + 2)
      .split(" ")
      .map(Number);
    const [ppid, utime, stime, cutime, cstime] = [1, 11, 12, 13, 14].map((i) => fields[i] as number);
    return {
      ppid: ppid as number,
      own: ((utime as number) + (stime as number)) / 100,
      children: ((cutime as number) + (cstime as number)) / 100,
    };
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds all of a PostgreSQL server's processes have used so far: the postmaster's own and
 * that of the backends it has reaped, plus every live child's (backends, checkpointer, WAL writer).
 */
export async function postgresCpuSeconds(postmaster: number): Promise<number> {
  const root = await statOf(postmaster);
  if (root === undefined) return Number.NaN;
  let total = root.own + root.children;
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await statOf(entry);
    if (stat?.ppid === postmaster) total += stat.own;
  }
  return total;
}

/** PostgreSQL's side of a case: the CPU of all its processes, the WAL it wrote, the database's size after. */
export interface PostgresFigures {
  readonly cpuSeconds: number;
  readonly walBytes: number;
  readonly databaseBytes: number;
}

interface Counters {
  readonly cpu: number;
  readonly wal: string;
}

/** Watches one PostgreSQL through a case: `start` before it, `stop` after it. */
export class PostgresWatch {
  private readonly server: BenchPostgres;
  private before: Counters | undefined;

  constructor(server: BenchPostgres) {
    this.server = server;
  }

  private async counters(): Promise<Counters> {
    const { rows } = await this.server.query<{ wal: string }>("SELECT pg_current_wal_lsn()::text AS wal");
    return { cpu: await postgresCpuSeconds(this.server.pid), wal: (rows[0] as { wal: string }).wal };
  }

  /** Writes every dirty buffer out first, so that a case never pays for the one before it. */
  async start(): Promise<void> {
    await this.server.query("CHECKPOINT");
    this.before = await this.counters();
  }

  async stop(): Promise<PostgresFigures> {
    const before = this.before as Counters;
    const after = await this.counters();
    const { rows } = await this.server.query<{ wal: string; size: string }>(
      "SELECT pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::text AS wal, pg_database_size(current_database())::text AS size",
      [after.wal, before.wal],
    );
    const row = rows[0] as { wal: string; size: string };
    return {
      cpuSeconds: after.cpu - before.cpu,
      walBytes: Number(row.wal),
      databaseBytes: Number(row.size),
    };
  }
}

const mb = (bytes: number) => (bytes / 1_048_576).toFixed(0);

/** PostgreSQL's CPU, WAL and size through a case of `products`, for a note. */
export function describePostgres(p: PostgresFigures, products: number): string {
  return `PostgreSQL CPU ${p.cpuSeconds.toFixed(2)} s (${((p.cpuSeconds * 1e6) / products).toFixed(2)} µs a product, all its processes), WAL ${mb(p.walBytes)} MB, database ${mb(p.databaseBytes)} MB after`;
}
