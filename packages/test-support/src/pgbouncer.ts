// Private PgBouncers for tests: each in its own temporary directory, listening on a free loopback
// port (never the standard 6432) in front of a test's own PostgreSQL, in the pool mode the test
// asks for. PgBouncer refuses to run as root, so under root (as CI runs) it runs as `postgres`.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chown, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./redis-server.ts";

function findPgbouncer(): string | undefined {
  const onPath = spawnSync("sh", ["-c", "command -v pgbouncer"], { encoding: "utf8" });
  if (onPath.status === 0 && onPath.stdout.trim() !== "") return onPath.stdout.trim();
  // Debian installs it in /usr/sbin, outside the PATH of users other than root.
  return existsSync("/usr/sbin/pgbouncer") ? "/usr/sbin/pgbouncer" : undefined;
}

const binary = findPgbouncer();
const asRoot = process.getuid?.() === 0;
const idOf = (flag: "-u" | "-g") => spawnSync("id", [flag, "postgres"], { encoding: "utf8" });

/** Whether a PgBouncer can be started here: it is installed (and, under root, a `postgres` user exists). */
export const havePgbouncer: boolean = binary !== undefined && (!asRoot || idOf("-u").status === 0);

/** What to tell someone whose machine lacks PgBouncer. */
export const PGBOUNCER_INSTALL_HINT =
  "pgbouncer was not found (looked on PATH and in /usr/sbin); install it (Debian/Ubuntu: apt-get install -y pgbouncer)";

/** A PgBouncer of its own in front of one PostgreSQL database. */
export interface Pgbouncer {
  readonly port: number;
  /** `postgres://catalog@127.0.0.1:<port>/catalog` */
  readonly url: string;
  /** Stops PgBouncer and deletes its directory. Safe twice. */
  stop(): Promise<void>;
}

/** Options of `startPgbouncer`. */
export interface PgbouncerOptions {
  /** The port of the PostgreSQL (a test-support one: user and database `catalog`, trusted on loopback). */
  readonly postgresPort: number;
  readonly poolMode: "session" | "transaction" | "statement";
  /** Server connections per user and database. Default 20. */
  readonly poolSize?: number;
}

// Resolves once `port` accepts a connection, or rejects after `timeoutMs`.
async function listening(port: number, child: ChildProcess, log: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    if (child.exitCode !== null || Date.now() > deadline) {
      const said = await readFile(log, "utf8").catch(() => "");
      throw new Error(`pgbouncer did not start on port ${port}:\n${said}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts PgBouncer on a free loopback port in front of `postgresPort`, in `poolMode`, and waits until it accepts connections. */
export async function startPgbouncer(options: PgbouncerOptions): Promise<Pgbouncer> {
  if (!havePgbouncer) throw new Error(PGBOUNCER_INSTALL_HINT);
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), "catalog-pgbouncer-"));
  const ids = asRoot ? { uid: Number(idOf("-u").stdout.trim()), gid: Number(idOf("-g").stdout.trim()) } : {};
  if (ids.uid !== undefined) await chown(dir, ids.uid, ids.gid as number);
  const log = join(dir, "pgbouncer.log");
  const ini = join(dir, "pgbouncer.ini");
  await writeFile(join(dir, "users.txt"), '"catalog" ""\n');
  await writeFile(
    ini,
    [
      "[databases]",
      `catalog = host=127.0.0.1 port=${options.postgresPort} dbname=catalog user=catalog`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${join(dir, "users.txt")}`,
      `pool_mode = ${options.poolMode}`,
      `default_pool_size = ${options.poolSize ?? 20}`,
      "max_client_conn = 200",
      `logfile = ${log}`,
      "ignore_startup_parameters = extra_float_digits",
      "",
    ].join("\n"),
  );
  const child = spawn(binary as string, [ini], { ...ids, stdio: "ignore" });
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    })();
    return stopped;
  };
  try {
    await listening(port, child, log);
  } catch (error) {
    await stop();
    throw error;
  }
  return { port, url: `postgres://catalog@127.0.0.1:${port}/catalog`, stop };
}
