// Private Redis servers and Redis Clusters for tests and measurements: each server on a free
// loopback port (never the standard 6379), in its own temporary directory, started and stopped
// by the caller. The one launcher of the workspace: the adapter's tests and the bench use it.
import { type ChildProcess, execFile, spawn, spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Whether `redis-server` and `redis-cli` are on PATH. */
export const haveRedisServer: boolean =
  spawnSync("redis-server", ["--version"]).status === 0 && spawnSync("redis-cli", ["--version"]).status === 0;

/** What to tell someone whose machine lacks Redis. */
export const INSTALL_HINT =
  "redis-server was not found on PATH; install it (Debian/Ubuntu: apt-get install -y redis-server)";

async function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** A free loopback port in 20000..49999 whose `+10000` neighbour (a Cluster bus port) is free too. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if ((await isFree(port)) && (await isFree(port + 10_000))) return port;
  }
}

/** Sends one command with redis-cli and returns its output. */
export async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run("redis-cli", ["-h", "127.0.0.1", "-p", String(port), ...args]);
  return stdout.trim();
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** A redis-server child process. */
export interface RedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /** Whether the process is alive. */
  readonly running: boolean;
  /** Kills the process with SIGKILL (a crash: no shutdown save) and waits for it to exit. */
  kill(): Promise<void>;
  /** Starts the killed server again on the same port and directory (with the AOF, when persistent). */
  restart(): Promise<void>;
  /** Kills the server and deletes its directory. */
  stop(): Promise<void>;
  /** `stop` done synchronously, for a process's `exit` handler, where nothing asynchronous runs. */
  abandon(): void;
}

/** Options of `startRedisServer`. */
export interface RedisServerOptions {
  /** Append-only file with fsync on every write, so a killed server comes back with its data. */
  readonly persistent?: boolean;
  /** Extra `redis-server` arguments, such as `["--cluster-enabled", "yes"]`. */
  readonly args?: readonly string[];
  readonly port?: number;
}

/** Starts `redis-server` on a free loopback port and waits until it answers PING. */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const port = options.port ?? (await freePort());
  const dir = await mkdtemp(join(tmpdir(), "catalog-redis-"));
  const persistence = options.persistent ? ["--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"];
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    ...persistence,
    "--dir",
    dir,
    ...(options.args ?? []),
  ];
  let child: ChildProcess | undefined;
  let running = false;
  let exited: Promise<void> = Promise.resolve();

  async function launch(): Promise<void> {
    if (running) throw new Error(`redis-server on port ${port} is already running`);
    const proc = spawn("redis-server", args, { stdio: ["ignore", "ignore", "ignore"] });
    child = proc;
    running = true;
    exited = new Promise((resolve) =>
      proc.once("exit", () => {
        running = false;
        resolve();
      }),
    );
    await waitFor(`redis-server on port ${port}`, async () => (await cli(port, "PING")) === "PONG");
  }

  async function kill(): Promise<void> {
    child?.kill("SIGKILL");
    await exited;
  }

  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get running() {
      return running;
    },
    kill,
    restart: launch,
    async stop() {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
    abandon() {
      child?.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A Redis Cluster of masters without replicas, all on loopback. */
export interface RedisCluster {
  /** `redis://127.0.0.1:<port>` of each master. */
  readonly nodes: readonly string[];
  readonly servers: readonly RedisServer[];
  stop(): Promise<void>;
  /** `stop` done synchronously, for a process's `exit` handler. */
  abandon(): void;
}

/** Options of `startRedisCluster`. */
export interface RedisClusterOptions {
  /** The port of each master (free ones when not given). */
  readonly ports?: readonly number[];
  /**
   * The client port each master announces to clients (`--cluster-announce-port`), such as that
   * of a proxy in front of it; the bus keeps the real port + 10000.
   */
  readonly announcePorts?: readonly number[];
}

/** Starts `masters` cluster-enabled servers, joins them with `redis-cli --cluster create`, and waits for `cluster_state:ok`. */
export async function startRedisCluster(masters = 3, options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const servers: RedisServer[] = [];
  try {
    for (let i = 0; i < masters; i++) {
      const port = options.ports?.[i] ?? (await freePort());
      const announce = options.announcePorts?.[i];
      const args = [
        "--cluster-enabled",
        "yes",
        "--cluster-config-file",
        `nodes-${port}.conf`,
        "--cluster-node-timeout",
        "2000",
        ...(announce === undefined
          ? []
          : ["--cluster-announce-port", String(announce), "--cluster-announce-bus-port", String(port + 10_000)]),
      ];
      servers.push(await startRedisServer({ port, args }));
    }
    const addresses = servers.map((s) => `127.0.0.1:${s.port}`);
    await run("redis-cli", ["--cluster", "create", ...addresses, "--cluster-replicas", "0", "--cluster-yes"]);
    for (const server of servers) {
      await waitFor(`cluster_state:ok on ${server.port}`, async () =>
        (await cli(server.port, "CLUSTER", "INFO")).includes("cluster_state:ok"),
      );
    }
  } catch (error) {
    await Promise.all(servers.map((s) => s.stop()));
    throw error;
  }
  return {
    nodes: servers.map((s) => s.url),
    servers,
    stop: async () => {
      await Promise.all(servers.map((s) => s.stop()));
    },
    abandon: () => {
      for (const server of servers) server.abandon();
    },
  };
}
