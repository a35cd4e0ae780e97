// A fresh standalone server for one case of the streamed-import and sync scenarios, exactly as
// `npm start` runs it, on memory, or on a fresh redis-server, PostgreSQL or SQLite file of its own, watched.
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { haveRedisServer, type RedisServer, startRedisServer } from "@catalog-kit/test-support";
import { Redis } from "ioredis";
import {
  type BenchPostgres,
  havePostgres,
  type PostgresFigures,
  PostgresWatch,
  startBenchPostgres,
} from "./postgres.ts";
import {
  cpuSecondsOf,
  forget,
  killRedisOnExit,
  peakRssOf,
  type Standalone,
  startStandalone,
  tempDir,
} from "./standalone.ts";
import { probe, type RedisFigures, RedisWatch } from "./watch.ts";

/** Where the server keeps its products. */
export type Storage = "memory" | "redis" | "postgres" | "sqlite";

/** Every storage, in the order the scenarios run them (`--only` names them so). */
export const STORAGES: readonly Storage[] = ["memory", "redis", "postgres", "sqlite"];

/** How the rows name the server under test. */
export const SERVER = "standalone server as `npm start` runs it";

/** Whether `storage` can run here (Redis needs `redis-server`; PostgreSQL its server's programs; SQLite is node:sqlite, in Node 22.13 and later). */
export function available(storage: Storage): boolean {
  return storage === "memory" || storage === "sqlite" || (storage === "redis" ? haveRedisServer : havePostgres);
}

/** Why `storage` cannot run here, for a row without a figure. */
export function unavailableNote(storage: Storage): string {
  return storage === "redis"
    ? "not available: redis-server is not installed"
    : "not available: PostgreSQL (initdb, pg_ctl) or adapter-postgres is missing";
}

/** A running case: the server, its store's side when on Redis, PostgreSQL or SQLite; `stop` ends them all. */
export interface Rig {
  readonly server: Standalone;
  readonly watch: RedisWatch | undefined;
  /** The private PostgreSQL the server stores into, and its watch. */
  readonly postgres: BenchPostgres | undefined;
  readonly postgresWatch: PostgresWatch | undefined;
  /** The SQLite database file the server stores into (in a temporary directory of its own). */
  readonly sqliteFile: string | undefined;
  stop(): Promise<void>;
}

/** SQLite's side of a case: the database file's size afterwards, its write-ahead log's beside it. */
export interface SqliteFigures {
  readonly fileBytes: number;
  readonly walBytes: number;
}

const sizeOf = (file: string) =>
  stat(file).then(
    (s) => s.size,
    () => 0,
  );

/** The database file's and its write-ahead log's sizes now. */
export async function sqliteFigures(file: string): Promise<SqliteFigures> {
  return { fileBytes: await sizeOf(file), walBytes: await sizeOf(`${file}-wal`) };
}

/**
 * Starts a server configured by `configOf(storage section)`: `{ adapter: "memory" }`, a fresh
 * redis-server's address (key prefix `bench`), a fresh PostgreSQL's (the default schema and
 * pool), or a fresh SQLite file in a temporary directory of its own (removed at `stop`). Nothing
 * is left running when it fails to start.
 */
export async function startRig(storage: Storage, name: string, configOf: (storage: object) => object): Promise<Rig> {
  let redis: RedisServer | undefined;
  let admin: Redis | undefined;
  let redisPid: number | undefined;
  let postgres: BenchPostgres | undefined;
  let sqlite: { path: string; remove(): Promise<void> } | undefined;
  const stopStores = async () => {
    admin?.disconnect();
    await redis?.stop();
    if (redisPid !== undefined) forget(redisPid);
    await postgres?.stop();
    await sqlite?.remove();
  };
  let section: object = { adapter: "memory" };
  try {
    if (storage === "redis") {
      redis = await startRedisServer();
      redisPid = await killRedisOnExit(redis.url);
      admin = new Redis({ port: redis.port, host: "127.0.0.1" });
      section = { adapter: "redis", url: redis.url, keyPrefix: "bench" };
    } else if (storage === "postgres") {
      postgres = await startBenchPostgres();
      section = { adapter: "postgres", url: postgres.url };
    } else if (storage === "sqlite") {
      sqlite = await tempDir("catalog-sqlite-");
      section = { adapter: "sqlite", path: join(sqlite.path, "catalog.db") };
    }
  } catch (error) {
    await stopStores();
    throw error;
  }
  let server: Standalone;
  try {
    server = await startStandalone(`${storage} ${name}`, configOf(section));
  } catch (error) {
    // An open admin connection and a live store would keep this process from ever exiting.
    await stopStores();
    throw error;
  }
  return {
    server,
    watch: admin === undefined || redisPid === undefined ? undefined : new RedisWatch(admin, redisPid),
    postgres,
    postgresWatch: postgres === undefined ? undefined : new PostgresWatch(postgres),
    sqliteFile: sqlite === undefined ? undefined : join(sqlite.path, "catalog.db"),
    async stop() {
      await server.stop();
      await stopStores();
    },
  };
}

/** What every case measures on its rig. */
export interface Taken {
  readonly seconds: number;
  readonly serverCpu: number;
  readonly clientCpu: number;
  /** The longest a `GET /healthz` asked every 200 ms waited meanwhile, ms: how long the server (or its store) stalled. */
  readonly stall: number;
  /** Answers of those probes that were not 200. */
  readonly probeFailures: number;
  /** What the first probe that failed got (an error code, or a status). */
  readonly probeFailure: string | undefined;
  readonly redis?: RedisFigures;
  readonly postgres?: PostgresFigures;
  readonly sqlite?: SqliteFigures;
}

/**
 * Runs `work` against the rig's server, measuring wall time, the server's and this process's CPU,
 * how long the server stalled (probes with `token`) and its store's side; `hwm` is the server's
 * VmHWM afterwards. When `work` fails, the probes and the watch stop too: their timers would
 * keep this process alive.
 */
export async function measureOn<T>(
  { server, watch, postgresWatch, sqliteFile }: Rig,
  token: string,
  work: () => Promise<T>,
): Promise<{ taken: Taken; hwm: number | undefined; result: T }> {
  await watch?.start();
  await postgresWatch?.start();
  const serverBefore = await cpuSecondsOf(server.pid);
  const clientBefore = process.cpuUsage();
  const started = performance.now();
  const probed = probe(server.url, token);
  let result: T;
  try {
    result = await work();
  } catch (error) {
    await probed().catch(() => undefined);
    await watch?.stop().catch(() => undefined);
    await postgresWatch?.stop().catch(() => undefined);
    throw error;
  }
  const seconds = (performance.now() - started) / 1000;
  const client = process.cpuUsage(clientBefore);
  const serverCpu = (await cpuSecondsOf(server.pid)) - serverBefore;
  const { stall, failures, failure } = await probed();
  const hwm = await peakRssOf(server.pid);
  const redis = await watch?.stop();
  const postgres = await postgresWatch?.stop();
  const sqlite = sqliteFile === undefined ? undefined : await sqliteFigures(sqliteFile);
  return {
    taken: {
      seconds,
      serverCpu,
      clientCpu: (client.user + client.system) / 1e6,
      stall,
      probeFailures: failures,
      probeFailure: failure,
      ...(redis === undefined ? {} : { redis }),
      ...(postgres === undefined ? {} : { postgres }),
      ...(sqlite === undefined ? {} : { sqlite }),
    },
    hwm,
    result,
  };
}

/** SQLite's side of a case, for a row's note. */
export function describeSqlite(figures: SqliteFigures, products: number): string {
  const mb = (bytes: number) => (bytes / 1_048_576).toFixed(0);
  // A large commit is copied from the log into the file after it is answered: read at the
  // answer, the file may not hold it yet, and the larger of the two tells what a product takes.
  const larger = Math.max(figures.fileBytes, figures.walBytes);
  return `SQLite file ${mb(figures.fileBytes)} MB and its write-ahead log ${mb(figures.walBytes)} MB at the answer (${(larger / products).toFixed(0)} B a product in the larger)`;
}
