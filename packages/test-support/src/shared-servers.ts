// The servers a whole test run shares: one redis-server, one Redis Cluster and one PostgreSQL,
// each started the first time a test file asks for it, never when no file does (a run on the
// memory store alone starts none). They live in vitest's main process (its global setup), and
// test files, each in a process of its own, reach them through a loopback HTTP endpoint whose
// address vitest `provide`s. Starting a server takes a second or two, a cluster more: once a run
// rather than once a file. Files keep apart by key prefix and schema, never by server.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { havePostgres, POSTGRES_INSTALL_HINT, type PostgresServer, startPostgres } from "./postgres-server.ts";
import {
  haveRedisServer,
  INSTALL_HINT,
  type RedisCluster,
  type RedisServer,
  startRedisCluster,
  startRedisServer,
} from "./redis-server.ts";

/** The kinds of server a run shares. */
export type SharedKind = "redis" | "cluster" | "postgres";

/** The addresses of a shared server: one URL, or a cluster's masters. */
export interface SharedAddresses {
  readonly urls: readonly string[];
}

interface Running {
  readonly urls: readonly string[];
  stop(): Promise<void>;
  abandon(): void;
}

// Tests of every file at once hold their stores' pools on the one server: more than the default 100.
const POSTGRES_SETTINGS = ["max_connections=500"];

async function launch(kind: SharedKind): Promise<Running> {
  if (kind === "postgres") {
    if (!havePostgres) throw new Error(POSTGRES_INSTALL_HINT);
    const server: PostgresServer = await startPostgres({ settings: POSTGRES_SETTINGS });
    return { urls: [server.url], stop: server.stop, abandon: server.abandon };
  }
  if (!haveRedisServer) throw new Error(INSTALL_HINT);
  if (kind === "redis") {
    const server: RedisServer = await startRedisServer();
    return { urls: [server.url], stop: server.stop, abandon: server.abandon };
  }
  const cluster: RedisCluster = await startRedisCluster(3);
  return { urls: cluster.nodes, stop: cluster.stop, abandon: cluster.abandon };
}

/** The run's shared servers: each started at its first request, all stopped by `stop`. */
export interface SharedServers {
  /** The endpoint's URL, for `provide`. */
  readonly url: string;
  stop(): Promise<void>;
}

/** Serves `GET /<kind>` on a loopback port: the kind's addresses as JSON, starting it the first time; 500 with the reason when it cannot start. */
export async function serveSharedServers(): Promise<SharedServers> {
  const starting = new Map<SharedKind, Promise<Running>>();
  let stopping = false;
  const live = new Set<Running>();
  // vitest ends an interrupted run with process.exit, without its teardown: the servers die with it.
  const abandonAll = () => {
    for (const running of live) running.abandon();
  };
  process.once("exit", abandonAll);
  const get = (kind: SharedKind): Promise<Running> => {
    let running = starting.get(kind);
    if (running === undefined) {
      if (stopping) return Promise.reject(new Error("the run's shared servers are stopping"));
      running = launch(kind);
      running.then((r) => live.add(r)).catch(() => {});
      starting.set(kind, running);
    }
    return running;
  };
  const endpoint: Server = createServer((request, response) => {
    const kind = request.url?.slice(1);
    if (kind !== "redis" && kind !== "cluster" && kind !== "postgres") {
      response.writeHead(404).end();
      return;
    }
    get(kind).then(
      (running) => {
        const body: SharedAddresses = { urls: running.urls };
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
      },
      (error: unknown) => {
        response.writeHead(500).end(error instanceof Error ? error.message : String(error));
      },
    );
  });
  await new Promise<void>((resolve) => endpoint.listen(0, "127.0.0.1", resolve));
  const { port } = endpoint.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      stopping = true;
      endpoint.closeAllConnections();
      await new Promise<void>((resolve) => endpoint.close(() => resolve()));
      await Promise.allSettled(starting.values());
      await Promise.allSettled([...live].map((running) => running.stop()));
      live.clear();
      process.off("exit", abandonAll);
    },
  };
}
