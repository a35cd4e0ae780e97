// STORAGE_UNAVAILABLE errors that say what SQLite reported and what is known to be written. A
// problem's detail reaches clients, so it never names the database file; the original error (the
// `cause`) is for the operator's log.
import { CatalogError, isCatalogError } from "@catalog-kit/catalog-core";

// SQLite's primary result codes (the low byte of `errcode`), worded for a client.
const BY_CODE: ReadonlyMap<number, string> = new Map([
  [5, "the database stayed locked by another connection for longer than busyTimeoutMs"],
  [6, "a table was locked by another statement of this connection"],
  [7, "SQLite ran out of memory"],
  [8, "the database file is read-only"],
  [10, "reading or writing the database file failed (an I/O error)"],
  [11, "the database file is corrupt"],
  [13, "the disk is full"],
  [14, "the database file cannot be opened"],
  [15, "the database file's locks failed"],
  [23, "the database file is not accessible"],
  [26, "the file is not a SQLite database"],
]);

function reason(error: unknown): string {
  const code = (error as { errcode?: unknown } | undefined)?.errcode;
  const known = typeof code === "number" ? BY_CODE.get(code & 0xff) : undefined;
  if (known !== undefined) return known;
  if (error instanceof Error && /database is not open|store was closed/i.test(error.message))
    return "the store is closed";
  return "SQLite failed";
}

/**
 * `STORAGE_UNAVAILABLE` for any failure but a `CatalogError`, with the original as `cause`. A
 * transaction of this store commits or rolls back within one synchronous call, so a failed write
 * wrote nothing; `written` says so where a client may wonder.
 */
export function unavailable(error: unknown, what: string, written?: "nothing written"): CatalogError {
  if (isCatalogError(error)) return error;
  const said = written === undefined ? "" : "; nothing was written";
  return new CatalogError("STORAGE_UNAVAILABLE", `SQLite ${what} failed: ${reason(error)}${said}`, { cause: error });
}

/** The error of a call on a store after `close`. */
export const closedError = (): Error => new Error("the store was closed");
