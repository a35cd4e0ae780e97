// A connection to the store's file (the main thread's, that reads, or the writer thread's):
// statements prepared once, and transactions that begin and end within one synchronous call, so
// that no other call runs on the connection while one is open, and none is left open across an
// `await` for another to wait on.

import type { DatabaseSync, StatementSync } from "node:sqlite";
import { closedError, unavailable } from "./errors.ts";

/**
 * How a transaction takes SQLite's locks: `immediate` takes the write lock at once; `deferred`
 * reads a snapshot from its first read, and writes only temporary tables without a lock of the file.
 */
export type TransactionKind = "immediate" | "deferred";

/** A `DatabaseSync` with its statements cached, its transactions, and a `close` every later call sees. */
export class Connection {
  private readonly statements = new Map<string, StatementSync>();
  private closed = false;
  readonly db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.db = db;
  }

  /** The statement of `sql`, prepared on first use. */
  statement(sql: string): StatementSync {
    let prepared = this.statements.get(sql);
    if (prepared === undefined) {
      prepared = this.db.prepare(sql);
      this.statements.set(sql, prepared);
    }
    return prepared;
  }

  /**
   * `run()` in a transaction, committed when it returns and rolled back when it throws. A write
   * takes the write lock before its first read (`BEGIN IMMEDIATE`): what it reads cannot change
   * before it commits, and it waits for another process's write (up to the busy timeout) there,
   * where a deferred one that read first could only fail at its first write.
   */
  transaction<T>(run: () => T, kind: TransactionKind = "immediate"): T {
    this.db.exec(kind === "immediate" ? "BEGIN IMMEDIATE" : "BEGIN");
    let result: T;
    try {
      result = run();
    } catch (error) {
      try {
        this.db.exec("ROLLBACK");
      } catch {
        // SQLite may have rolled back already (a full disk, an I/O error): nothing is left open.
      }
      throw error;
    }
    // A failed COMMIT leaves the transaction open only when busy: ended here, nothing written.
    try {
      this.db.exec("COMMIT");
    } catch (error) {
      try {
        this.db.exec("ROLLBACK");
      } catch {
        // Rolled back by SQLite already.
      }
      throw error;
    }
    return result;
  }

  /**
   * `run()`, once the store is known open, with any failure as `STORAGE_UNAVAILABLE` for `what`
   * (`written`: say that nothing was written).
   */
  use<T>(what: string, run: () => T, written?: "nothing written"): T {
    try {
      if (this.closed) throw closedError();
      return run();
    } catch (error) {
      throw unavailable(error, what, written);
    }
  }

  /** Whether `close` was called. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Closes the database; safe twice. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.statements.clear();
    this.db.close();
  }
}
