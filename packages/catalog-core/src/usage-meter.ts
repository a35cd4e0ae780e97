// Usage of rate-limited quotas, counted where it happens and settled with the store a few times a
// second (CatalogStore.countUsage): deciding a request costs a lookup and arithmetic, never
// a round trip, and the counts of every process on one storage meet in the store's counters.
import type { CatalogStore } from "./store.ts";
import { type Batch, type CountHome, Running, type RunningCount, Window, type WindowCount } from "./usage-counts.ts";

export { RUNNING_SLOT_MS, type RunningCount, type WindowCount } from "./usage-counts.ts";

/** Default of `UsageMeterOptions.settleEveryMs`: four settles a second. */
export const DEFAULT_SETTLE_MS = 250;

/** How a meter counts. */
export interface UsageMeterOptions {
  /** Where the counts of every process meet; absent: the counts of this process alone. */
  readonly store?: Pick<CatalogStore, "countUsage">;
  /** Milliseconds between two settles with the store; 0: only when `settle()` is called. Default 250. */
  readonly settleEveryMs?: number;
  /** The clock, in milliseconds since the epoch; default `Date.now`. */
  readonly now?: () => number;
  /** Told when a settle fails; its counts are kept and sent with the next one. */
  readonly onError?: (error: unknown) => void;
}

/** Counts of quotas shared by every process on one store; see `createUsageMeter`. */
export interface UsageMeter {
  /** The meter's clock. */
  now(): number;
  /** The count of `quota` for `owner`, in windows of `windowMs`; the same object for the same three. */
  window(owner: string, quota: string, windowMs: number): WindowCount;
  /** The running count of `quota` for `owner`. */
  running(owner: string, quota: string): RunningCount;
  /** Sends this process's counts since the last settle and reads the deployment's totals. */
  settle(): Promise<void>;
  /** Stops settling after one last settle. */
  close(): Promise<void>;
}

class Meter implements UsageMeter, CountHome {
  private readonly counts = new Map<string, Window | Running>();
  private readonly store: Pick<CatalogStore, "countUsage"> | undefined;
  private readonly every: number;
  private readonly onError: (error: unknown) => void;
  private timer: ReturnType<typeof setInterval> | undefined;
  private settling: Promise<void> | undefined;
  private closed = false;
  readonly now: () => number;

  constructor(options: UsageMeterOptions) {
    this.store = options.store;
    this.every = options.settleEveryMs ?? DEFAULT_SETTLE_MS;
    if (!Number.isSafeInteger(this.every) || this.every < 0) {
      throw new RangeError(`settleEveryMs must be a whole number of milliseconds; got ${this.every}`);
    }
    this.now = options.now ?? Date.now;
    this.onError = options.onError ?? (() => {});
  }

  attach(key: string, count: Window | Running): void {
    count.attached = true;
    this.counts.set(key, count);
  }

  /** Starts the timer at the first count: a meter nobody counts with costs nothing. */
  wake(): void {
    if (this.timer !== undefined || this.every === 0 || this.store === undefined || this.closed) return;
    this.timer = setInterval(() => void this.settle(), this.every);
    this.timer.unref();
  }

  window(owner: string, quota: string, windowMs: number): WindowCount {
    if (!Number.isSafeInteger(windowMs) || windowMs < 1)
      throw new RangeError(`windowMs must be positive; got ${windowMs}`);
    const key = JSON.stringify([owner, quota, windowMs]).slice(0, -1);
    const known = this.counts.get(key);
    if (known instanceof Window) return known;
    const created = new Window(this, key, windowMs);
    this.counts.set(key, created);
    return created;
  }

  running(owner: string, quota: string): RunningCount {
    const key = JSON.stringify([owner, quota, "running"]).slice(0, -1);
    const known = this.counts.get(key);
    if (known instanceof Running) return known;
    const created = new Running(this, key, this.now());
    this.counts.set(key, created);
    return created;
  }

  settle(): Promise<void> {
    this.settling ??= this.send().finally(() => {
      this.settling = undefined;
    });
    return this.settling;
  }

  private async send(): Promise<void> {
    const { store } = this;
    if (store === undefined) return;
    const now = this.now();
    const batches = new Map<number, Batch>();
    const batch = (ttlMs: number): Batch => {
      let found = batches.get(ttlMs);
      if (found === undefined) batches.set(ttlMs, (found = { counts: [], replies: [], failures: [] }));
      return found;
    };
    for (const [key, count] of this.counts) {
      if (!count.collect(now, batch)) {
        count.attached = false;
        this.counts.delete(key);
      }
    }
    await Promise.all(
      [...batches].map(async ([ttlMs, { counts, replies, failures }]) => {
        try {
          const totals = await store.countUsage(counts, ttlMs);
          for (const reply of replies) reply(totals);
        } catch (error) {
          for (const failure of failures) failure();
          this.onError(error);
        }
      }),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.settle();
  }
}

/**
 * A meter of quotas for every process on `store`: counts are kept here and settled with the store
 * every `settleEveryMs` (on a timer that keeps no process alive), so that a decision costs no
 * round trip. A process sees its own counts at once and the others' as of its last settle; see the
 * package README for the margin that leaves with several processes.
 */
export function createUsageMeter(options: UsageMeterOptions = {}): UsageMeter {
  return new Meter(options);
}
