// The store's writer thread: it owns the connection that writes (staging, commits, removes, key
// claims), so that a commit's `BEGIN IMMEDIATE … COMMIT`, seconds long for a large import, and a
// wait for another process's write lock block this thread, never the main thread serving
// requests. Requests are answered one at a time in the order they came, each one synchronous run
// on the connection, so nothing else runs on it inside a transaction.
import { parentPort, workerData } from "node:worker_threads";
import type { Connection } from "./connection.ts";
import { closedError, unavailable } from "./errors.ts";
import { claimDeliveries, saveImport, settleDelivery } from "./history.ts";
import { claimKey, releaseClaim } from "./keys.ts";
import { MATCH } from "./lookup-sql.ts";
import { hearNewSites, sweepNewSites } from "./new-site.ts";
import { openConnection } from "./open.ts";
import type { WriterFailure, WriterMessage, WriterOptions, WriterReply, WriterRequest } from "./protocol.ts";
import { SITE_NUMBER } from "./sites.ts";
import { beginStagedImport, type WriterImport } from "./staged-import.ts";
import { countUsage, writeTenant } from "./tenants.ts";

const port = parentPort;
if (port === null) throw new Error("the SQLite store's writer runs as a worker thread");
const { path, busyTimeoutMs } = workerData as WriterOptions;

// The main thread opened the file (and migrated it) already, so this fails only if the file
// changed under it since: then every request answers the failure.
let connection: Connection | undefined;
let openFailure: unknown;
try {
  connection = openConnection(path, busyTimeoutMs);
} catch (error) {
  openFailure = error;
}

const imports = new Map<number, WriterImport>();

/** SQLite's default: the log is checkpointed by the commit that takes it past this many pages. */
const AUTOCHECKPOINT_PAGES = 1000;
/** A commit of at least this many staged products is checkpointed after it is answered, not within. */
const LARGE_COMMIT = 1000;
let checkpointDue = false;

// The checkpoint a large commit left for after its answer: the next request waits for it, as it
// would have waited for the commit. A checkpoint that cannot finish (a reader holds the log) is
// left to the next commit's, as SQLite's own.
function checkpoint(): void {
  if (!checkpointDue) return;
  checkpointDue = false;
  try {
    if (connection !== undefined && !connection.isClosed) connection.db.exec("PRAGMA wal_checkpoint(PASSIVE)");
  } catch {
    // As a failed automatic checkpoint: the log stays, and the next one copies it.
  }
}

// The new sites of running imports are marked heard of, and abandoned ones swept a batch at a
// time, each batch its own transaction with requests answered between: at start, after an import
// ends, and every minute.
const SWEEP_EVERY_MS = 60_000;
let sweeping = false;
function sweep(): void {
  if (sweeping) return;
  sweeping = true;
  const next = (): void => {
    let more = false;
    try {
      if (connection !== undefined && !connection.isClosed) more = sweepNewSites(connection);
    } catch {
      // Busy with another process's write, or closed: the next sweep tries again.
    }
    if (more) setImmediate(next);
    else sweeping = false;
  };
  setImmediate(next);
}
const heartbeat = setInterval(() => {
  try {
    if (connection === undefined || connection.isClosed) return;
    const running = [...imports.values()].flatMap((open) => open.newSite ?? []);
    if (running.length > 0) hearNewSites(connection, running);
  } catch {
    // Heard of at its next write, or swept if never again.
  }
  sweep();
}, SWEEP_EVERY_MS);
heartbeat.unref();
sweep();

function staged(number: number): WriterImport {
  const found = imports.get(number);
  if (found === undefined) throw new Error("the import was already ended");
  return found;
}

// What `CatalogStore.remove` writes: the matched product deleted (unless it is not `expected`),
// its body answered, in one transaction so that the match and the delete see one state.
function remove(db: Connection, request: Extract<WriterRequest, { op: "remove" }>): string | undefined {
  return db.transaction(() => {
    const row = db.statement(MATCH[request.by ?? "either"]).get(request.site, request.key) as
      | { id: string; body: string }
      | undefined;
    if (row === undefined) return undefined;
    if (request.expected === undefined || request.expected === row.body) {
      db.statement(`DELETE FROM products WHERE site = ${SITE_NUMBER} AND id = ?2`).run(request.site, row.id);
    }
    return row.body;
  });
}

function run(db: Connection, request: WriterRequest): unknown {
  switch (request.op) {
    case "begin": {
      const begun = beginStagedImport(db, request.site, request.options);
      imports.set(begun.number, begun);
      return begun.number;
    }
    case "add":
      return staged(request.import).add(request.rows, request.positions, request.bases);
    case "commit": {
      const committing = staged(request.import);
      imports.delete(request.import);
      sweep();
      if (committing.staged < LARGE_COMMIT) return committing.commit(request.key);
      // SQLite checkpoints the log at the COMMIT that takes it past its threshold: all of a large
      // import's pages written once more into the file, and fsynced, before the commit could be
      // answered. Left for after the answer instead (the file is as durable either way).
      db.db.exec("PRAGMA wal_autocheckpoint = 0");
      try {
        return committing.commit(request.key);
      } finally {
        db.db.exec(`PRAGMA wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
        checkpointDue = true;
      }
    }
    case "abort":
      imports.get(request.import)?.abort();
      imports.delete(request.import);
      sweep();
      return undefined;
    case "remove":
      return remove(db, request);
    case "claim":
      return claimKey(db, request.site, request.key, request.leaseMs);
    case "release":
      return releaseClaim(db, request.site, request.key, request.token);
    case "tenant":
      return writeTenant(db, request.change);
    case "usage":
      return countUsage(db, request.counts, request.ttlMs);
    case "saveImport":
      return saveImport(db, request.site, request.entry, request.save);
    case "claimDeliveries":
      return claimDeliveries(db, request.now, request.leaseMs, request.limit);
    case "settleDelivery":
      return settleDelivery(db, request.id, request.lease, request.next);
    case "close":
      return undefined;
  }
}

// How a failure of each request is worded; every write but a release says nothing was written.
const WHAT: Record<WriterRequest["op"], string> = {
  begin: "import",
  add: "import",
  commit: "import",
  abort: "import",
  remove: "remove",
  claim: "idempotency key claim",
  release: "idempotency key release",
  tenant: "tenants write",
  usage: "usage count",
  saveImport: "import history save",
  claimDeliveries: "delivery claim",
  settleDelivery: "delivery settle",
  close: "close",
};

// A failure in a form that crosses threads: an Error's own fields are lost in a structured clone.
function failure(error: unknown, request: WriterRequest): WriterFailure {
  const written = request.op === "release" || request.op === "close" ? undefined : "nothing written";
  const wrapped = unavailable(openFailure ?? error, openFailure === undefined ? WHAT[request.op] : "open", written);
  const original = wrapped.cause;
  const cause =
    original instanceof Error
      ? { ...original, name: original.name, message: original.message, stack: original.stack }
      : undefined;
  return { code: wrapped.code, message: wrapped.message, cause };
}

port.on("message", ({ id, request }: WriterMessage) => {
  let reply: WriterReply;
  try {
    if (request.op === "close") {
      // Temporary tables go with the connection; a second close finds it closed, and is answered.
      imports.clear();
      clearInterval(heartbeat);
      connection?.close();
      reply = { id, ok: true, value: undefined };
    } else if (connection === undefined) throw openFailure;
    else if (connection.isClosed) throw closedError();
    else reply = { id, ok: true, value: run(connection, request) };
  } catch (error) {
    reply = { id, ok: false, failure: failure(error, request) };
  }
  port.postMessage(reply);
  checkpoint();
  // Once closed, nothing more comes: the thread ends, and the store's close resolves with it.
  if (request.op === "close") port.close();
});
