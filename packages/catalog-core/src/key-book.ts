// The idempotency keys of a store that keeps its data in this process: records and claims with
// their expiry, so that such a store answers `claimKey` and clause 6 of `commit` with a few lines.
import { type Site, siteKey } from "./site.ts";
import type { CommitResult, ImportCounts, KeyClaim, KeyRecord, KeyToRecord } from "./store.ts";

interface Expiring<T> {
  readonly value: T;
  readonly expires: number;
}

// Entries are inserted in order of expiry when every key is kept as long (the usual case), so
// the expired ones are at the front and a sweep stops at the first that is not: never a scan.
function sweep<T>(entries: Map<string, Expiring<T>>, now: number): void {
  for (const [name, entry] of entries) {
    if (entry.expires > now) return;
    entries.delete(name);
  }
}

// A key's name among every site's: a key holds no line break, so no two (site, key) pairs share one.
const nameOf = (site: Site, key: string) => `${siteKey(site)}\n${key}`;

function live<T>(entries: Map<string, Expiring<T>>, name: string, now: number): T | undefined {
  const entry = entries.get(name);
  return entry !== undefined && entry.expires > now ? entry.value : undefined;
}

/**
 * The idempotency records and claims of an in-process store. `claim` is `CatalogStore.claimKey`;
 * a commit asks `refusal` before it applies and calls `record` in the same synchronous step.
 */
export class KeyBook {
  private readonly records = new Map<string, Expiring<KeyRecord>>();
  private readonly claims = new Map<string, Expiring<object>>();

  private readonly now: () => number;

  /** `now` is the clock, in milliseconds (a test may move it). */
  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** `CatalogStore.claimKey`, answered at once. */
  claim(site: Site, key: string, leaseMs: number): KeyClaim {
    const name = nameOf(site, key);
    const now = this.now();
    sweep(this.records, now);
    sweep(this.claims, now);
    const record = live(this.records, name, now);
    if (record !== undefined) return { state: "recorded", record };
    if (live(this.claims, name, now) !== undefined) return { state: "busy" };
    const token = {};
    this.claims.delete(name);
    this.claims.set(name, { value: token, expires: now + leaseMs });
    return {
      state: "claimed",
      release: async () => {
        if (this.claims.get(name)?.value === token) this.claims.delete(name);
      },
    };
  }

  /**
   * The answer of a commit under `key` that writes nothing (clause 6 of `commit`): the key's
   * record, unless it expired, else busy while another import holds its claim; else `undefined`.
   */
  refusal(site: Site, key: KeyToRecord | undefined): CommitResult | undefined {
    if (key === undefined) return undefined;
    const name = nameOf(site, key.key);
    const now = this.now();
    const recorded = live(this.records, name, now);
    if (recorded !== undefined) return { applied: false, conflicts: [], recorded };
    if (!key.claimed && live(this.claims, name, now) !== undefined)
      return { applied: false, conflicts: [], busy: true };
    return undefined;
  }

  /** Records a committed import under its key. */
  record(site: Site, { key, fingerprint, retainMs }: KeyToRecord, counts: ImportCounts): void {
    const name = nameOf(site, key);
    this.records.delete(name);
    this.records.set(name, { value: { fingerprint, counts }, expires: this.now() + retainMs });
  }
}
