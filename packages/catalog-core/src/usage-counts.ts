// The counts a usage meter keeps: a quota of units a window (requests, bytes) and a quota of
// things at once (imports running), each counted here and settled with the store's counters.
import type { UsageCount } from "./store.ts";

/** How long one report of a running count stands: each process reports into a slot this long. */
export const RUNNING_SLOT_MS = 1_000;
// A window's counter outlives its window this long in the store, for clocks a little apart.
const TTL_SLACK_MS = 10_000;
// A count nobody used for this long stops being settled (it comes back when used).
const IDLE_MS = 120_000;

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

/** Where counts live: they come back there when used after being dropped, and wake its timer. */
export interface CountHome {
  attach(key: string, count: Window | Running): void;
  wake(): void;
}

/** One settle's counts of one time-to-live, and what to do with their totals. */
export interface Batch {
  readonly counts: UsageCount[];
  readonly replies: ((totals: readonly number[]) => void)[];
  readonly failures: (() => void)[];
}

/** A count a settle reads: it adds its part of the settle to a batch. */
export interface Settled {
  /** Adds this count's part of a settle to `batch`; answers false once it is idle (then it is dropped). */
  collect(now: number, batch: (ttlMs: number) => Batch): boolean;
}

/** A quota of units a window, for one owner. */
export class Window implements WindowCount, Settled {
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

  private readonly meter: CountHome;
  readonly key: string;
  readonly windowMs: number;

  constructor(meter: CountHome, key: string, windowMs: number) {
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

/** A quota of things at once, for one owner. */
export class Running implements RunningCount, Settled {
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

  private readonly meter: CountHome;
  readonly key: string;

  constructor(meter: CountHome, key: string, now: number) {
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
