// Usage of rate-limited quotas, counted where it happens and settled with the store a few times a
// second (CatalogStore.countUsage): deciding a request costs a lookup and arithmetic, never
// a round trip, and the counts of every process on one storage meet in the store's counters.
import type { CatalogStore, UsageCount } from "./store.ts";

/** Default of `UsageMeterOptions.settleEveryMs`: four settles a second. */
export const DEFAULT_SETTLE_MS = 250;
/** How long one report of a running count stands: each process reports into a slot this long. */
export const RUNNING_SLOT_MS = 1_000;
// A window's counter outlives its window this long in the store, for clocks a little apart.
const TTL_SLACK_MS = 10_000;
// A count nobody used for this long stops being settled (it comes back when used).
const IDLE_MS = 120_000;

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

/** One quota of units a window (windows aligned to the clock) for one owner, as the deployment uses it. */
export interface WindowCount {
  /** Units used in the window of `now`: the deployment's total as last settled plus this process's since. */
  used(now: number): number;
  /** When the window of `now` ends, in milliseconds since the epoch. */
  endOf(now: number): number;
  /** Counts `amount` when `used + amount <= limit`; answers whether it did. */
  take(now: number, amount: number, limit: number): boolean;
  /** Counts `amount` whatever the limit (bytes already received); answers `used` after it. */
  add(now: number, amount: number): number;
}

/** A quota of things at once (imports running) for one owner, as the deployment runs them. */
export interface RunningCount {
  /** Running now: this process's exactly, the others' as last settled. */
  running(): number;
  /** Starts one when fewer than `limit` run; answers its release (idempotent), or undefined when refused. */
  enter(now: number, limit: number): (() => void) | undefined;
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

// One settle's counts of one time-to-live, and what to do with their totals.
interface Batch {
  readonly counts: UsageCount[];
  readonly replies: ((totals: readonly number[]) => void)[];
  readonly failures: (() => void)[];
}

interface Settled {
  /** Adds this count's part of a settle to `batch`; answers false once it is idle (then it is dropped). */
  collect(now: number, batch: (ttlMs: number) => Batch): boolean;
}

class Window implements WindowCount, Settled {
  start = 0;
  end = 0;
  /** The store's total of the window after this process's last add. */
  settled = 0;
  /** Counted here, sent with a settle not yet answered. */
  sending = 0;
  /** Counted here since the last settle began. */
  pending = 0;
  touched = false;
  lastUsed = 0;
  attached = true;

  private readonly meter: Meter;
  readonly key: string;
  readonly windowMs: number;

  constructor(meter: Meter, key: string, windowMs: number) {
    this.meter = meter;
    this.key = key;
    this.windowMs = windowMs;
  }

  private roll(now: number): void {
    this.touched = true;
    if (!this.attached) this.meter.attach(this.key, this);
    this.advance(now);
  }

  private advance(now: number): void {
    if (now < this.end && now >= this.start) return;
    // The counts of an ended window no longer decide anything: they are dropped, not sent.
    this.start = now - (now % this.windowMs);
    this.end = this.start + this.windowMs;
    this.settled = 0;
    this.sending = 0;
    this.pending = 0;
  }

  used(now: number): number {
    this.roll(now);
    return this.settled + this.sending + this.pending;
  }

  endOf(now: number): number {
    this.roll(now);
    return this.end;
  }

  take(now: number, amount: number, limit: number): boolean {
    if (this.used(now) + amount > limit) return false;
    this.pending += amount;
    this.meter.wake();
    return true;
  }

  add(now: number, amount: number): number {
    const used = this.used(now) + amount;
    this.pending += amount;
    this.meter.wake();
    return used;
  }

  collect(now: number, batch: (ttlMs: number) => Batch): boolean {
    if (this.touched) this.lastUsed = now;
    else if (now - this.lastUsed > IDLE_MS) return false;
    this.touched = false;
    // Read for a window after its last use, not only when counted: a process that counts little
    // then decides on totals one settle old, like every other.
    if (now - this.lastUsed > this.windowMs) return true;
    this.advance(now);
    const { start, pending: amount } = this;
    this.pending = 0;
    this.sending += amount;
    const into = batch(this.windowMs + TTL_SLACK_MS);
    const at = into.counts.length;
    into.counts.push({ key: `${this.key},${start}]`, amount });
    into.replies.push((totals) => {
      if (this.start !== start) return;
      this.sending -= amount;
      this.settled = totals[at] as number;
    });
    into.failures.push(() => {
      if (this.start !== start) return;
      this.sending -= amount;
      this.pending += amount;
    });
    return true;
  }
}

class Running implements RunningCount, Settled {
  /** Running in this process. */
  count = 0;
  /** The most that ran here since the last settle: a start and its end between two settles still count. */
  peak = 0;
  /** The slot reported into last, what this process added to it, and to the one before. */
  slot = 0;
  mine = 0;
  previous = 0;
  /** Running in the other processes, as last settled. */
  others = 0;
  lastUsed: number;
  attached = true;

  private readonly meter: Meter;
  readonly key: string;

  constructor(meter: Meter, key: string, now: number) {
    this.meter = meter;
    this.key = key;
    this.lastUsed = now;
  }

  running(): number {
    return this.count + this.others;
  }

  enter(now: number, limit: number): (() => void) | undefined {
    this.lastUsed = now;
    if (!this.attached) this.meter.attach(this.key, this);
    if (this.count + this.others >= limit) return undefined;
    this.count++;
    if (this.count > this.peak) this.peak = this.count;
    this.meter.wake();
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.count--;
    };
  }

  collect(now: number, batch: (ttlMs: number) => Batch): boolean {
    const slot = Math.floor(now / RUNNING_SLOT_MS);
    if (slot !== this.slot) {
      this.previous = slot === this.slot + 1 ? this.mine : 0;
      this.slot = slot;
      this.mine = 0;
    }
    if (this.count === 0 && this.mine === 0 && this.previous === 0 && now - this.lastUsed > IDLE_MS) return false;
    // A slot's total is the sum of each process's peak in it: what this process adds is how far
    // its peak rose above what it reported in this slot already.
    const amount = Math.max(0, Math.max(this.peak, this.count) - this.mine);
    this.mine += amount;
    this.peak = this.count;
    const into = batch(3 * RUNNING_SLOT_MS);
    const first = into.counts.length;
    into.counts.push({ key: `${this.key},${slot}]`, amount }, { key: `${this.key},${slot - 1}]`, amount: 0 });
    into.replies.push((totals) => {
      if (this.slot !== slot) return;
      const now = (totals[first] as number) - this.mine;
      const before = (totals[first + 1] as number) - this.previous;
      this.others = Math.max(0, now, before);
    });
    into.failures.push(() => {
      if (this.slot === slot) this.mine -= amount;
    });
    return true;
  }
}

class Meter implements UsageMeter {
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
