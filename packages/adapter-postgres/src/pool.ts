// The connection pool, its figures for metrics, and the share of it that imports may hold: an
// import keeps one connection from its first chunk to its commit (its staging is a temporary
// table of that connection), so slow uploads could otherwise take every connection and leave
// lookups waiting.
import pg from "pg";

/** The pool's figures, for metrics: connections open, idle and lent out, calls waiting for one, imports holding one or waiting. */
export interface PoolStats {
  readonly total: number;
  readonly idle: number;
  readonly inUse: number;
  readonly waiting: number;
  readonly imports: number;
  readonly importsWaiting: number;
}

/** Connections of the pool a store opens when `poolSize` is not given. */
export const DEFAULT_POOL_SIZE = 10;

/** A statement with its own timeout, which the driver takes per statement as well as per pool. */
export type TimedQuery = pg.QueryConfig & { readonly query_timeout?: number };

/** A statement timeout that never ends a statement: setTimeout's longest delay (the driver takes 0 for the pool's own). */
export const NO_TIMEOUT = 2 ** 31 - 1;

/** How long a statement (but a commit's) may go unanswered when `queryTimeoutMs` is not given. */
export const DEFAULT_QUERY_TIMEOUT_MS = 10_000;

/**
 * A pool of `size` connections to `url` whose waits for a connection (a free one, or a new one
 * connecting) end after `acquireTimeoutMs`, and whose statements end after `queryTimeoutMs`.
 */
export function createPool(url: string, size: number, acquireTimeoutMs: number, queryTimeoutMs: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: size,
    connectionTimeoutMillis: acquireTimeoutMs,
    idleTimeoutMillis: 30_000,
    // A network that goes silent neither answers nor closes: the driver's own timer ends the
    // statement, and the pool closes its connection rather than lend it again. Server-side
    // `statement_timeout` would not do: its answer is as lost as the statement's.
    query_timeout: queryTimeoutMs,
    // A connection silent 10 s is probed, so that one under a commit (which has no timer) or
    // from a machine that vanished is found by the system's keepalive.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    application_name: "catalog-kit",
  });
  // An idle connection that the server closes is dropped by the pool; the next call opens another.
  pool.on("error", () => {});
  return pool;
}

/** The smallest pool a store accepts: one connection an import may hold, and one that stays for lookups. */
export const MIN_POOL_SIZE = 2;

// A lent connection that drops fails its query and also emits "error", which with no listener
// would be an uncaught exception: the query's failure is what the caller answers.
const dropped = () => {};

/** A connection of `pool`, listened to while lent; `giveBack` returns it. */
export async function borrow(pool: pg.Pool): Promise<pg.PoolClient> {
  const client = await pool.connect();
  client.on("error", dropped);
  return client;
}

/** Returns a connection `borrow` lent; closed rather than lent again when `error` is given. */
export function giveBack(client: pg.PoolClient, error?: Error): void {
  client.off("error", dropped);
  client.release(error);
}

/** How many imports may hold a connection at once: all but a quarter of the pool, rounded down (at least one left to lookups). */
export function importShare(poolSize: number): number {
  return poolSize - Math.max(1, Math.floor(poolSize / 4));
}

/** A counting semaphore whose waits end after `timeoutMs` with an error, so that no import waits for ever. */
export class ImportSlots {
  private held = 0;
  private readonly queue: (() => void)[] = [];
  private readonly size: number;
  private readonly timeoutMs: number;

  constructor(size: number, timeoutMs: number) {
    this.size = size;
    this.timeoutMs = timeoutMs;
  }

  get holding(): number {
    return this.held;
  }

  get waiting(): number {
    return this.queue.length;
  }

  async acquire(): Promise<void> {
    if (this.held < this.size) {
      this.held++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const grant = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.queue.splice(this.queue.indexOf(grant), 1);
        reject(new Error(`timeout exceeded when trying to connect: ${this.size} imports hold connections`));
      }, this.timeoutMs);
      this.queue.push(grant);
    });
  }

  release(): void {
    const next = this.queue.shift();
    if (next === undefined) this.held--;
    else next();
  }
}

/** The figures of `pool` and of the imports holding its connections. */
export function statsOf(pool: pg.Pool, slots: ImportSlots): PoolStats {
  return {
    total: pool.totalCount,
    idle: pool.idleCount,
    inUse: pool.totalCount - pool.idleCount,
    waiting: pool.waitingCount,
    imports: slots.holding,
    importsWaiting: slots.waiting,
  };
}
