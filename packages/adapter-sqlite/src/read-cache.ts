// The products the main thread found lately, answered again without SQLite while the file is
// unchanged: a lookup of a product a shop's storefront asks for again and again costs a map
// read and a copy, where a statement cost 10 to 25 µs (each one begins and ends a read
// transaction, locks included). Every commit of any connection, the store's own writer thread
// and other processes alike, rewrites the header of the WAL index (the `-shm` file, whose
// format is SQLite's documented and stable WAL-index format): read once a lookup (48 bytes, one
// system call), any change of it drops everything kept. A commit is visible to SQLite's own
// readers only once that header says so, so a lookup never answers what a commit that had
// completed before it changed.
import { closeSync, openSync, readSync } from "node:fs";
import type { DecodedBodies, Product } from "@catalog-kit/catalog-core";
import type { Connection } from "./connection.ts";

/** Says whether the database may have changed since it was last asked. */
export interface ChangeSignal {
  changed(): boolean;
  close(): void;
}

// The WAL-index header: its two copies, 48 bytes each (its change counter, last frame, salts and
// checksums among them).
const HEADER = 96;

/**
 * The change signal of a database in WAL mode at `path`: its WAL index's header, compared with
 * the one last read. Opened while a connection holds the file open (so the index exists and is
 * not removed); `undefined` when it cannot be read, and the caller asks SQLite instead.
 */
export function walIndexSignal(path: string): ChangeSignal | undefined {
  let fd: number;
  try {
    fd = openSync(`${path}-shm`, "r");
  } catch {
    return undefined;
  }
  const last = Buffer.alloc(HEADER);
  const now = Buffer.alloc(HEADER);
  let first = true;
  return {
    changed() {
      readSync(fd, now, 0, HEADER, 0);
      if (!first && now.equals(last)) return false;
      first = false;
      now.copy(last);
      return true;
    },
    close: () => closeSync(fd),
  };
}

/** The change signal SQLite answers itself: `PRAGMA data_version`, a statement a call. */
export function dataVersionSignal(connection: Connection): ChangeSignal {
  let version: unknown;
  return {
    changed() {
      const now = (connection.statement("PRAGMA data_version").get() as { data_version: unknown }).data_version;
      if (now === version) return false;
      version = now;
      return true;
    },
    close() {},
  };
}

interface Entry {
  /** The body found, `null` for none. */
  readonly body: string | null;
  /** The body decoded, from the second lookup on: a lookup made once costs no copy. */
  product?: Product;
  readonly chars: number;
  /** Where its key is in `keys`. */
  place: number;
}

/** How much a read cache keeps at most: lookups, and characters of their bodies. */
export interface ReadCacheLimits {
  readonly entries: number;
  readonly chars: number;
}

/** The default: 10,000 lookups, 16 million characters of bodies (tens of megabytes at most). */
export const READ_CACHE_LIMITS: ReadCacheLimits = { entries: 10_000, chars: 16_000_000 };

/** The answers of recent lookups on one connection, dropped whenever the file changed. */
export class ReadCache {
  private readonly kept = new Map<string, Entry>();
  // The kept keys in no order, for an eviction to pick one at random: each entry knows its place.
  private readonly keys: string[] = [];
  private chars = 0;
  private readonly signal: ChangeSignal;
  private readonly bodies: DecodedBodies;
  private readonly limits: ReadCacheLimits;

  constructor(signal: ChangeSignal, bodies: DecodedBodies, limits: ReadCacheLimits = READ_CACHE_LIMITS) {
    this.signal = signal;
    this.bodies = bodies;
    this.limits = limits;
  }

  /**
   * The product `key` names (a lookup's site, field and key), kept or else read by `load` (its
   * body, or `undefined`); a copy the caller may change, as `find` answers.
   */
  lookup(key: string, load: () => string | undefined): Product | undefined {
    this.drop();
    const hit = this.kept.get(key);
    if (hit === undefined) {
      const body = load();
      this.keep(key, body ?? null);
      return body === undefined ? undefined : this.bodies.decode(body);
    }
    if (hit.body === null) return undefined;
    hit.product ??= this.bodies.decode(hit.body);
    return this.bodies.copy(hit.product);
  }

  /** Lets go of what it keeps, and of its signal. */
  close(): void {
    this.clear();
    this.signal.close();
  }

  private clear(): void {
    this.kept.clear();
    this.keys.length = 0;
    this.chars = 0;
  }

  // Everything kept goes once the database changed since the last lookup.
  private drop(): void {
    if (this.signal.changed()) this.clear();
  }

  // Over either limit, entries go at random: a walk over a few more products than fit (a crawler,
  // an export's lookups) then still finds most of them, where the oldest first out finds none.
  private keep(key: string, body: string | null): void {
    const chars = body?.length ?? 0;
    if (chars > this.limits.chars) return;
    this.kept.set(key, { body, chars, place: this.keys.length });
    this.keys.push(key);
    this.chars += chars;
    while (this.kept.size > this.limits.entries || this.chars > this.limits.chars) {
      const victim = this.keys[Math.floor(Math.random() * this.keys.length)] as string;
      const { place, chars: size } = this.kept.get(victim) as Entry;
      const last = this.keys.pop() as string;
      if (last !== victim) {
        this.keys[place] = last;
        (this.kept.get(last) as { place: number }).place = place;
      }
      this.kept.delete(victim);
      this.chars -= size;
    }
  }
}
