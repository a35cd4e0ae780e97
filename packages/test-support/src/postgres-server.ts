// Private PostgreSQL servers for tests and measurements: each in its own temporary directory,
// listening on a free loopback port (never the standard 5432, so never a machine's own server)
// and on a socket in that directory, started and stopped by the caller. initdb and postgres
// refuse to run as root, so under root (as CI runs) they run as the `postgres` user.
import { execFile, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { chown, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./redis-server.ts";

const run = promisify(execFile);

// Debian keeps the server's programs out of PATH, one folder per major version: the newest wins.
function findBinDir(): string | undefined {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)) : [];
  for (const version of versions.sort((a, b) => Number(b) - Number(a))) {
    const dir = join(root, version, "bin");
    if (existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"))) return dir;
  }
  const onPath = spawnSync("pg_config", ["--bindir"], { encoding: "utf8" });
  const dir = onPath.status === 0 ? onPath.stdout.trim() : "";
  return dir !== "" && existsSync(join(dir, "initdb")) ? dir : undefined;
}

const binDir = findBinDir();
const asRoot = process.getuid?.() === 0;
const postgresUser = asRoot ? spawnSync("id", ["-u", "postgres"], { encoding: "utf8" }) : undefined;

/** Whether a PostgreSQL server can be started here: its programs are installed (and, under root, a `postgres` user exists). */
export const havePostgres: boolean = binDir !== undefined && (!asRoot || postgresUser?.status === 0);

/** What to tell someone whose machine lacks PostgreSQL. */
export const POSTGRES_INSTALL_HINT =
  "initdb and pg_ctl were not found (looked in /usr/lib/postgresql/*/bin and pg_config --bindir); install the " +
  "server (Debian/Ubuntu: apt-get install -y postgresql)";

// Runs a server program, as the `postgres` user when this process is root.
async function pg(program: string, args: readonly string[]): Promise<string> {
  const path = join(binDir as string, program);
  const [file, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", path, ...args]] : [path, [...args]];
  const { stdout } = await run(file, argv, { maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

/** A PostgreSQL server of its own, with one database (`catalog`) that the user `catalog` owns, trusted on loopback. */
export interface PostgresServer {
  readonly port: number;
  /** `postgres://catalog@127.0.0.1:<port>/catalog` */
  readonly url: string;
  /** Whether the server is running. */
  readonly running: boolean;
  /** Stops the server; `immediate` is a crash (no checkpoint), from which the next start recovers with the WAL. */
  halt(mode?: "fast" | "immediate"): Promise<void>;
  /** Starts the halted server again on the same port and data. */
  start(): Promise<void>;
  /** Stops the server at once and deletes its directory. Safe twice. */
  stop(): Promise<void>;
  /** `stop` done synchronously (SIGQUIT, PostgreSQL's immediate shutdown), for a process's `exit` handler. */
  abandon(): void;
}

/** Options of `startPostgres`. */
export interface PostgresServerOptions {
  /**
   * fsync on, as in production. Off by default: the tests never crash the machine, only the
   * server, and a committed transaction's WAL is written (to the OS) before the commit answers.
   */
  readonly durable?: boolean;
  /** Extra settings, `name=value` (as `postgres -c` takes them). */
  readonly settings?: readonly string[];
}

/** initdb in a fresh temporary directory, then starts the server on a free loopback port and waits until it accepts connections. */
export async function startPostgres(options: PostgresServerOptions = {}): Promise<PostgresServer> {
  if (!havePostgres) throw new Error(POSTGRES_INSTALL_HINT);
  const dir = await mkdtemp(join(tmpdir(), "catalog-postgres-"));
  if (asRoot) {
    const uid = Number(postgresUser?.stdout.trim());
    const gid = Number(spawnSync("id", ["-g", "postgres"], { encoding: "utf8" }).stdout.trim());
    await chown(dir, uid, gid);
  }
  const data = join(dir, "data");
  let running = false;
  try {
    await pg("initdb", ["-D", data, "-U", "catalog", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"]);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  // The port is chosen again when another process took it between freePort and the start.
  let port = 0;
  let serverOptions = "";
  const optionsFor = (chosen: number) =>
    [
      "listen_addresses=127.0.0.1",
      `port=${chosen}`,
      `unix_socket_directories=${dir}`,
      ...(options.durable ? [] : ["fsync=off", "full_page_writes=off"]),
      ...(options.settings ?? []),
    ]
      .map((s) => `-c ${s}`)
      .join(" ");

  async function start(): Promise<void> {
    await pg("pg_ctl", ["-D", data, "-l", join(dir, "server.log"), "-o", serverOptions, "-w", "-t", "60", "start"]);
    running = true;
  }
  async function halt(mode: "fast" | "immediate" = "fast"): Promise<void> {
    if (!running) return;
    await pg("pg_ctl", ["-D", data, "-m", mode, "-w", "stop"]);
    running = false;
  }

  try {
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      serverOptions = optionsFor(port);
      try {
        await start();
        break;
      } catch (error) {
        // pg_ctl says only "could not start server": the server's own log says why.
        const log = await readFile(join(dir, "server.log"), "utf8").catch(() => "");
        if (attempt < 3 && /could not bind|already in use|could not create any TCP/i.test(log)) continue;
        throw new Error(`${(error as Error).message}\nserver.log:\n${log.slice(-4_000)}`, { cause: error });
      }
    }
    await pg("createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "catalog", "catalog"]);
  } catch (error) {
    await halt("immediate").catch(() => {});
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    url: `postgres://catalog@127.0.0.1:${port}/catalog`,
    get running() {
      return running;
    },
    halt,
    start,
    async stop() {
      await halt("immediate").catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
    abandon() {
      // The first line of postmaster.pid is the postmaster's process id; root may signal it.
      try {
        const pid = running ? Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]) : 0;
        if (pid > 0) process.kill(pid, "SIGQUIT");
      } catch {
        // Already gone.
      }
      running = false;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
