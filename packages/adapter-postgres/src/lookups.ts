// Lookups batched: every `find` of one site asked while the event loop handles one round of I/O
// (under load, many requests arrive together) goes to PostgreSQL as one statement, so that a
// round trip, and the server process it wakes, serves them all. A lookup alone is sent at once,
// as the plainer statement; the wait is never longer than that round of I/O.
import type { KeyField, Site } from "@catalog-kit/catalog-core";
import { batchSql, findSql, type Prepared, prepared } from "./lookup-sql.ts";
import type { Tables } from "./schema.ts";
import { isDataException, unholdable, unholdableSite } from "./unholdable.ts";

/** Runs a prepared statement with its arguments, answering its rows. */
export type Read = <R extends Record<string, unknown>>(what: string, sql: Prepared, args: unknown[]) => Promise<R[]>;

interface Waiter {
  readonly key: string;
  resolve(body: string | undefined): void;
  reject(error: unknown): void;
}

// A statement's keys are a text array: a few hundred of them plan and run as well as a few.
const MOST = 500;

type By = KeyField | "any";

/** Batches `find` calls per site and key field. */
export class Lookups {
  private readonly read: Read;
  private readonly single: Readonly<Record<By, Prepared>>;
  private readonly batch: Readonly<Record<By, Prepared>>;
  private pending = new Map<string, { site: Site; by: By; waiters: Waiter[] }>();
  private scheduled = false;

  constructor(tables: Tables, read: Read) {
    this.read = read;
    const of = (sql: (t: Tables, by: KeyField | undefined) => string) => ({
      any: prepared(sql(tables, undefined)),
      id: prepared(sql(tables, "id")),
      sku: prepared(sql(tables, "sku")),
    });
    this.single = of(findSql);
    this.batch = of(batchSql);
  }

  /** The body of the product `key` names (by id, then by sku, unless `by` says which), or undefined. */
  find(site: Site, key: string, by: KeyField | undefined): Promise<string | undefined> {
    // Asked in a statement, it would fail that statement, and every lookup batched in it.
    if (unholdable(key) || unholdableSite(site)) return Promise.resolve(undefined);
    const field: By = by ?? "any";
    const group = `${field}\u0000${site.siteType}\u0000${site.siteId}`;
    return new Promise((resolve, reject) => {
      let entry = this.pending.get(group);
      if (entry === undefined) {
        entry = { site, by: field, waiters: [] };
        this.pending.set(group, entry);
      }
      entry.waiters.push({ key, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // After the I/O callbacks of this round of the event loop: the lookups they asked for.
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    const groups = this.pending;
    this.pending = new Map();
    this.scheduled = false;
    for (const { site, by, waiters } of groups.values()) {
      for (let from = 0; from < waiters.length; from += MOST)
        void this.send(site, by, waiters.slice(from, from + MOST));
    }
  }

  private async send(site: Site, by: By, waiters: readonly Waiter[]): Promise<void> {
    try {
      if (waiters.length === 1) {
        const waiter = waiters[0] as Waiter;
        const rows = await this.read<{ body: string | null }>("lookup", this.single[by], [
          site.siteType,
          site.siteId,
          waiter.key,
        ]);
        waiter.resolve(rows[0]?.body ?? undefined);
        return;
      }
      const keys = waiters.map((waiter) => waiter.key);
      const rows = await this.read<{ i: string; body: string | null }>("lookup", this.batch[by], [
        site.siteType,
        site.siteId,
        keys,
      ]);
      const bodies = new Array<string | undefined>(waiters.length);
      for (const row of rows) bodies[Number(row.i) - 1] = row.body ?? undefined;
      waiters.forEach((waiter, i) => {
        waiter.resolve(bodies[i]);
      });
    } catch (error) {
      // Refused for the data of some key (none known to do so is sent): each is asked alone, so
      // that one key's failure is no other lookup's. A failure of the server fails them all, once.
      if (waiters.length > 1 && isDataException(error)) {
        for (const waiter of waiters) void this.send(site, by, [waiter]);
        return;
      }
      for (const waiter of waiters) waiter.reject(error);
    }
  }
}
