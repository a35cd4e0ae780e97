// The store's ioredis client: options under which no command is ever sent twice, the check of a
// client the caller gives, readiness.
import { CatalogError } from "@catalog-kit/catalog-core";
import { Cluster, type ClusterNode, type ClusterOptions, Redis, type RedisOptions } from "ioredis";

/** Where the store's Redis is: a client the caller owns, a URL, or the nodes of a Cluster. */
export type RedisConnection =
  | { readonly client: Redis | Cluster }
  | { readonly url: string }
  | { readonly cluster: readonly string[] };

/** A client with what the store needs to know about it. */
export interface Connection {
  readonly client: Redis | Cluster;
  /** True when the store created the client, and so must close it. */
  readonly owned: boolean;
  /** Called when the connection closes: how commands on a given client fail fast. */
  readonly onClose: Set<() => void>;
  /** Removes what the store attached to the client. */
  detach(): void;
  /**
   * The last error the client reported (a refused or dropped connection), kept as the cause of
   * the failures it explains; only for a client the store created, whose error events it takes.
   */
  lastError?: Error | undefined;
}

/**
 * ioredis options under which no command is ever sent twice: no offline queue (a command
 * queued while Redis is away could run long after its caller was told it failed), and no
 * resending of commands whose connection dropped (Redis may have run them already). Commands
 * time out, and reconnecting goes on in the background. Spread them into a client you give
 * the store: `new Redis(url, { ...redisClientOptions, ...yours })`.
 */
export const redisClientOptions: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  commandTimeout: 5_000,
  connectTimeout: 2_000,
  retryStrategy: (attempt: number) => Math.min(50 * 2 ** attempt, 1_000),
};

/**
 * The same for a Cluster: `retryDelayOnFailover: 0` turns off ioredis's resending of a command
 * whose connection closed. Redirections Redis answers before running anything (MOVED, ASK,
 * TRYAGAIN, CLUSTERDOWN) are still followed: `new Cluster(nodes, { ...clusterClientOptions })`.
 */
export const clusterClientOptions: ClusterOptions = {
  enableOfflineQueue: false,
  retryDelayOnFailover: 0,
  retryDelayOnClusterDown: 100,
  retryDelayOnTryAgain: 100,
  maxRedirections: 6,
  slotsRefreshTimeout: 2_000,
  clusterRetryStrategy: (attempt: number) => Math.min(100 * attempt, 1_000),
  redisOptions: redisClientOptions,
};

/** How long an operation waits for a client that is still making its first connection. */
const FIRST_CONNECT_WAIT_MS = 2_000;

/** How long an operation on a client the caller gave may take before it counts as unavailable. */
const GIVEN_CLIENT_TIMEOUT_MS = 5_000;

function clusterNode(url: string): ClusterNode {
  const { hostname, port } = new URL(url);
  return { host: hostname, port: Number(port || 6379) };
}

// Credentials and TLS of a cluster come from its first node's URL.
function clusterOptions(url: string | undefined): ClusterOptions {
  if (url === undefined) return clusterClientOptions;
  const parsed = new URL(url);
  const redisOptions: RedisOptions = {
    ...redisClientOptions,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(parsed.protocol === "rediss:" ? { tls: {} } : {}),
  };
  return { ...clusterClientOptions, redisOptions };
}

function refuse(setting: string, value: unknown, template: string): never {
  throw new TypeError(
    `createRedisStore: the client's ${setting} is ${String(value)}; with it, ioredis may send again a command that ` +
      `Redis already ran, and repeat a write. Create the client with ${template} (exported by ` +
      "@catalog-kit/adapter-redis), or pass { url } or { cluster } and let the store create it.",
  );
}

/** Throws when a given client's settings could send a command twice (see `redisClientOptions`). */
export function checkClient(client: Redis | Cluster): void {
  if (client instanceof Cluster) {
    const { options } = client;
    if (options.enableOfflineQueue !== false) refuse("enableOfflineQueue", true, "clusterClientOptions");
    if ((options.retryDelayOnFailover ?? 100) > 0) {
      refuse("retryDelayOnFailover", options.retryDelayOnFailover ?? 100, "clusterClientOptions");
    }
    // Node connections reconnect (and could resend) only with a clusterNodeRetryStrategy.
    const node = options.redisOptions ?? {};
    if (options.clusterNodeRetryStrategy && node.autoResendUnfulfilledCommands !== false) {
      refuse("redisOptions.autoResendUnfulfilledCommands", true, "clusterClientOptions");
    }
    return;
  }
  const { options } = client;
  if (options.autoResendUnfulfilledCommands !== false)
    refuse("autoResendUnfulfilledCommands", true, "redisClientOptions");
  if (options.enableOfflineQueue !== false) refuse("enableOfflineQueue", true, "redisClientOptions");
}

/** Opens (or adopts, after checking it) the client an options object names. */
export function connect(options: RedisConnection): Connection {
  const onClose = new Set<() => void>();
  if ("client" in options) {
    const { client } = options;
    checkClient(client);
    // One listener for the whole store, however many commands are in flight.
    const closed = () => {
      for (const fail of onClose) fail();
    };
    client.on("close", closed);
    return { client, owned: false, onClose, detach: () => void client.off("close", closed) };
  }
  let client: Redis | Cluster;
  if ("url" in options) {
    client = new Redis(options.url, redisClientOptions);
  } else {
    if (options.cluster.length === 0) throw new TypeError("cluster needs at least one node URL");
    client = new Cluster(options.cluster.map(clusterNode), clusterOptions(options.cluster[0]));
  }
  // Failures reach callers through the commands that hit them, or as the cause of "not connected".
  const connection: Connection = { client, owned: true, onClose, detach: () => {} };
  client.on("error", (error: Error) => {
    connection.lastError = error;
  });
  // A server that went away closes the connection without an error: the close is the cause then.
  client.on("close", () => {
    connection.lastError ??= new Error("Redis closed the connection");
  });
  client.on("ready", () => {
    connection.lastError = undefined;
  });
  return connection;
}

// The wait of each client still connecting, shared by every caller.
const firstConnect = new WeakMap<Redis | Cluster, Promise<void>>();

/**
 * Resolves when the client can take commands now. A client still making its first connection
 * gets a short wait; a client that lost its connection fails at once, so that nothing waits in
 * a queue for a Redis that may be gone for long.
 */
export async function whenReady(connection: Connection): Promise<void> {
  const { client } = connection;
  if (client.status === "ready") return;
  if (client.status === "wait") client.connect().catch(() => {});
  if (client.status !== "wait" && client.status !== "connecting" && client.status !== "connect") {
    throw new CatalogError("STORAGE_UNAVAILABLE", `Redis is not connected (${client.status})`, {
      cause: connection.lastError,
    });
  }
  // Callers that arrive while the client connects share one wait: a listener each would trip
  // Node's warning past ten callers, however legitimately many are in flight.
  let waiting = firstConnect.get(client);
  if (waiting === undefined) {
    waiting = new Promise<void>((resolve, reject) => {
      const done = (error?: Error) => {
        clearTimeout(timer);
        firstConnect.delete(client);
        client.off("ready", onReady);
        client.off("close", onClose);
        client.off("end", onClose);
        if (error) reject(error);
        else resolve();
      };
      const onReady = () => done();
      const onClose = () =>
        done(
          new CatalogError("STORAGE_UNAVAILABLE", "Redis refused or dropped the connection", {
            cause: connection.lastError,
          }),
        );
      const timer = setTimeout(
        () => done(new CatalogError("STORAGE_UNAVAILABLE", `Redis did not answer within ${FIRST_CONNECT_WAIT_MS} ms`)),
        FIRST_CONNECT_WAIT_MS,
      );
      client.once("ready", onReady);
      client.once("close", onClose);
      client.once("end", onClose);
    });
    firstConnect.set(client, waiting);
  }
  await waiting;
}

/**
 * Bounds a command sent on a client the caller gave, whose timeouts are the caller's: it fails
 * after a timeout, or as soon as the connection closes. Clients the store created fail fast
 * on their own.
 */
export async function bounded<T>(connection: Connection, operation: Promise<T>): Promise<T> {
  if (connection.owned) return operation;
  // A late failure of a command already given up on must not go unhandled.
  operation.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  let onClose: (() => void) | undefined;
  // Plain errors, worded as ioredis words its own: the caller's error says what is known to be
  // written, which a command given up on cannot tell.
  const failure = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Command timed out after ${GIVEN_CLIENT_TIMEOUT_MS} ms`)),
      GIVEN_CLIENT_TIMEOUT_MS,
    );
    onClose = () => reject(new Error("Connection is closed."));
    connection.onClose.add(onClose);
  });
  try {
    return await Promise.race([operation, failure]);
  } finally {
    clearTimeout(timer);
    if (onClose) connection.onClose.delete(onClose);
  }
}
