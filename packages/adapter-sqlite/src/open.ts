// Opening a connection to the store's file, the same way on either thread: the main thread's
// reading connection and the writer thread's connection set the same pragmas and check the same
// schema, so that whichever opens the file first creates or migrates it.
import { Connection } from "./connection.ts";
import { loadSqlite } from "./driver.ts";
import { unavailable } from "./errors.ts";
import { migrate } from "./schema.ts";

// Whether `error` is SQLite's (then a STORAGE_UNAVAILABLE), not a refusal of the store's own.
const fromSqlite = (error: unknown): boolean => (error as { code?: unknown } | undefined)?.code === "ERR_SQLITE_ERROR";

/** The page size of a new file. */
const PAGE_SIZE = 16 * 1024;

/** The bytes the write-ahead log is cut back to after a checkpoint. */
const JOURNAL_SIZE_LIMIT = 64 * 1024 * 1024;

/**
 * A connection to `path`, its tables created or migrated. Throws `STORAGE_UNAVAILABLE` when
 * SQLite cannot open it, an Error for a file of a later schema version.
 */
export function openConnection(path: string, busyTimeoutMs: number): Connection {
  const { DatabaseSync } = loadSqlite();
  let connection: Connection | undefined;
  try {
    connection = new Connection(new DatabaseSync(path));
    // First, so that the pragmas below and the migration wait for another connection too. WAL:
    // readers never wait for the writer (the main thread reads while the writer thread commits),
    // and a commit is one append to the log. NORMAL: a commit survives the process being killed
    // at any point (the log is the operating system's once written); only a power loss or a
    // kernel crash may lose the last commits, never corrupt the file.
    connection.db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    // Pages of 16 KiB for a new file (a file that has pages keeps its size): a product's row is
    // most of a kilobyte, four to a page of the default 4 KiB, and a commit of 357,000 wrote them
    // in about 40 % less time; set before WAL mode, which fixes the size once the file has pages.
    connection.db.exec(`PRAGMA page_size = ${PAGE_SIZE}`);
    connection.db.exec("PRAGMA journal_mode = WAL");
    connection.db.exec("PRAGMA synchronous = NORMAL");
    // A commit of a million products writes gigabytes of log, which SQLite reuses rather than
    // shrinks: cut back to 64 MiB once checkpointed, so that one large import does not keep its
    // size on disk for good.
    connection.db.exec(`PRAGMA journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
    // Staging tables in a file of their own, whatever SQLite was built to prefer: an import's
    // size must not become this process's memory.
    connection.db.exec("PRAGMA temp_store = FILE");
    // The staging's pages as large as the file's, set before the first temporary table: an
    // import's rows are staged in a fifth less time, and the commit reads them in fewer calls.
    connection.db.exec(`PRAGMA temp.page_size = ${PAGE_SIZE}`);
    migrate(connection);
    return connection;
  } catch (error) {
    connection?.close();
    throw fromSqlite(error) ? unavailable(error, "open") : error;
  }
}
