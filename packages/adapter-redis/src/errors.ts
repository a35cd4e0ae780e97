// STORAGE_UNAVAILABLE errors that say what is known to be written and never name hosts, ports or
// slots.
import { CatalogError, isCatalogError } from "@catalog-kit/catalog-core";

/** What a failed write is known to have done: nothing, or possibly everything (a lost reply). */
export type Outcome = "nothing written" | "unknown";

// Reasons named without hosts, ports or slots: a problem's detail reaches clients, while the
// original error (kept as `cause`) is for the operator's log. Redis's own refusals come first,
// by their upper-case codes: the host they name may read like anything below.
const REASONS: readonly [RegExp, string][] = [
  [/\b(TRYAGAIN|MOVED|ASK|CLUSTERDOWN)\b/, "the Redis Cluster does not serve this site right now"],
  [/timed? ?out/i, "Redis did not answer in time"],
  [/OOM/, "Redis is out of memory (maxmemory)"],
  [/READONLY|LOADING|MASTERDOWN/, "Redis is failing over or starting"],
  [
    // ioredis fails a command whose connection closed, under maxRetriesPerRequest 0, with "Reached
    // the max retries per request limit"; a Cluster none of whose nodes answers, with the last two.
    /closed|ECONN|EPIPE|ENOTFOUND|EHOSTUNREACH|writeable|isn't ready|not connected|Cluster is ended|max retries per request|startup nodes is available|refresh slots cache/i,
    "Redis is not reachable",
  ],
];

function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // A Cluster gives up redirecting a command naming its last error, which says what happened.
  const last = message.replace(/^Too many Cluster redirections\. Last error: (\w+: )?/, "");
  for (const [pattern, text] of REASONS) if (pattern.test(last)) return text;
  return "Redis failed";
}

/**
 * `STORAGE_UNAVAILABLE` for any failure but a `CatalogError`, with the original as `cause`. A
 * write whose reply was lost may have been applied: its message says so, and never claims that
 * nothing was written unless that is known.
 */
export function unavailable(error: unknown, what: string, outcome?: Outcome): CatalogError {
  if (isCatalogError(error)) return error;
  // A refusal for memory is Redis's answer (no reply was lost) to a command that wrote nothing:
  // Redis refuses a command for memory before running it, and stops a script for memory only
  // before its first write. No operation of the store sends a command Redis may refuse for
  // memory once one has applied its write (the merge that follows a commit fails silently).
  const known = outcome !== undefined && outOfMemory(error) ? "nothing written" : outcome;
  const said =
    known === "unknown"
      ? "; it may or may not have been applied, and retrying it is safe"
      : known === "nothing written"
        ? "; nothing was written"
        : "";
  return new CatalogError("STORAGE_UNAVAILABLE", `Redis ${what} failed: ${reason(error)}${said}`, { cause: error });
}

/** The error of an import that lost its site lock before it published: nothing of it is visible. */
export function lostLock(): CatalogError {
  return new CatalogError(
    "STORAGE_UNAVAILABLE",
    "The import lost its site lock (it went longer than lockTtlMs between two calls, or Redis restarted without " +
      "persistence); nothing was written",
  );
}

/**
 * The error of an import whose staging lost keys before it published, whichever way: Redis
 * cannot tell an expired key from an evicted or never-restored one, so the message names them
 * all rather than sending the operator to the eviction policy alone.
 */
export function evictedStaging(): CatalogError {
  return new CatalogError(
    "STORAGE_UNAVAILABLE",
    "The import's staging in Redis is gone (it expired: a beginImport import's keys last 60 s after its last " +
      "call, or twice lockTtlMs if longer; or a volatile-* maxmemory-policy evicted it; or Redis restarted " +
      "without persistence; or the import was aborted during its commit); nothing was written",
  );
}

/** Whether Redis refused a command, or stopped a script before its first write, for memory (maxmemory). */
export function outOfMemory(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith("OOM ");
}

/** The error of a script that refused to write: the lock is no longer the import's, or its staging lost keys. */
export function refused(reply: { readonly outcome: "lost" | "evicted" }): CatalogError {
  return reply.outcome === "lost" ? lostLock() : evictedStaging();
}

/**
 * Whether Redis refused a command before running it because its slot is moving, so that it is
 * safe to send again. ioredis gives up on redirections after a few tries, naming the last
 * error; only when that one is a redirection too did Redis never run the command.
 */
export function slotMoving(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const last = error.message.replace(/^Too many Cluster redirections\. Last error: /, "");
  return /^(ReplyError: )?(TRYAGAIN|MOVED|ASK) /.test(last);
}
