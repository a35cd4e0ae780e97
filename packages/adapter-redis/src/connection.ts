import { CatalogError, isCatalogError } from "@catalog-kit/catalog-core";
import { Cluster, type ClusterNode, Redis, type RedisOptions } from "ioredis";

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
}

// Clients the store creates fail fast while Redis is away instead of queueing commands until it
// returns: no offline queue, no retry of a command whose connection dropped (a retried script
// could run twice), and a timeout on every command. Reconnecting goes on in the background, so
// the store recovers on its own when Redis comes back.
const CLIENT_OPTIONS: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  commandTimeout: 5_000,
  connectTimeout: 2_000,
  retryStrategy: (attempt: number) => Math.min(50 * 2 ** attempt, 1_000),
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
function clusterRedisOptions(url: string | undefined): RedisOptions {
  if (url === undefined) return CLIENT_OPTIONS;
  const parsed = new URL(url);
  return {
    ...CLIENT_OPTIONS,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(parsed.protocol === "rediss:" ? { tls: {} } : {}),
  };
}

/** Opens (or adopts) the client an options object names. */
export function connect(options: RedisConnection): Connection {
  const onClose = new Set<() => void>();
  if ("client" in options) {
    const { client } = options;
    // One listener for the whole store, however many commands are in flight.
    const closed = () => {
      for (const fail of onClose) fail();
    };
    client.on("close", closed);
    return { client, owned: false, onClose, detach: () => void client.off("close", closed) };
  }
  let client: Redis | Cluster;
  if ("url" in options) {
    client = new Redis(options.url, CLIENT_OPTIONS);
  } else {
    if (options.cluster.length === 0) throw new TypeError("cluster needs at least one node URL");
    client = new Cluster(options.cluster.map(clusterNode), {
      enableOfflineQueue: false,
      clusterRetryStrategy: (attempt: number) => Math.min(100 * attempt, 1_000),
      slotsRefreshTimeout: 2_000,
      // A cluster that is down or failing over answers 503 after about half a second of
      // retries, rather than holding requests; redirections during resharding need only a few.
      maxRedirections: 6,
      retryDelayOnClusterDown: 100,
      retryDelayOnFailover: 100,
      retryDelayOnTryAgain: 100,
      redisOptions: clusterRedisOptions(options.cluster[0]),
    });
  }
  // Failures reach callers through the commands that hit them; the event would only be noise.
  client.on("error", () => {});
  return { client, owned: true, onClose, detach: () => {} };
}

/** Wraps anything but a `CatalogError` as `STORAGE_UNAVAILABLE`, keeping the original as `cause`. */
export function unavailable(error: unknown, what: string): CatalogError {
  if (isCatalogError(error)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new CatalogError("STORAGE_UNAVAILABLE", `Redis ${what} failed: ${reason}`, { cause: error });
}

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
    throw new CatalogError("STORAGE_UNAVAILABLE", `Redis is not connected (${client.status})`);
  }
  await new Promise<void>((resolve, reject) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      client.off("ready", onReady);
      client.off("close", onClose);
      client.off("end", onClose);
      if (error) reject(error);
      else resolve();
    };
    const onReady = () => done();
    const onClose = () => done(new CatalogError("STORAGE_UNAVAILABLE", "Redis refused or dropped the connection"));
    const timer = setTimeout(
      () => done(new CatalogError("STORAGE_UNAVAILABLE", `Redis did not answer within ${FIRST_CONNECT_WAIT_MS} ms`)),
      FIRST_CONNECT_WAIT_MS,
    );
    client.once("ready", onReady);
    client.once("close", onClose);
    client.once("end", onClose);
  });
}

/**
 * Bounds a command sent on a client the caller gave, whose options may let it wait forever:
 * it fails after a timeout, or as soon as the connection closes (ioredis would otherwise hold
 * it for a resend after reconnecting). Clients the store created fail fast on their own.
 */
export async function bounded<T>(connection: Connection, operation: Promise<T>): Promise<T> {
  if (connection.owned) return operation;
  // A late failure of a command already given up on must not go unhandled.
  operation.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  let onClose: (() => void) | undefined;
  const failure = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new CatalogError("STORAGE_UNAVAILABLE", `Redis did not answer within ${GIVEN_CLIENT_TIMEOUT_MS} ms`)),
      GIVEN_CLIENT_TIMEOUT_MS,
    );
    onClose = () => reject(new CatalogError("STORAGE_UNAVAILABLE", "The connection to Redis closed"));
    connection.onClose.add(onClose);
  });
  try {
    return await Promise.race([operation, failure]);
  } finally {
    clearTimeout(timer);
    if (onClose) connection.onClose.delete(onClose);
  }
}
