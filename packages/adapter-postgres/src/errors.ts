// STORAGE_UNAVAILABLE errors that say what is known to be written and never name hosts, ports or
// databases: a problem's detail reaches clients, while the original error (the `cause`) is for
// the operator's log.
import { CatalogError, isCatalogError } from "@catalog-kit/catalog-core";

/** Whether `error` is PostgreSQL's refusal of a row that breaks a unique index. */
export const isUniqueViolation = (error: unknown): boolean =>
  (error as { code?: unknown } | undefined)?.code === "23505";

/** What a failed write is known to have done: nothing, or possibly everything (the reply to COMMIT was lost). */
export type Outcome = "nothing written" | "unknown";

// SQLSTATE classes and codes first (the server answered), then the driver's own failures.
const BY_CODE: readonly [RegExp, string][] = [
  [/^57P0[123]$/, "the PostgreSQL server ended the connection (it was terminated, or the server is stopping)"],
  [/^53300$/, "PostgreSQL has no connection slot free (max_connections)"],
  [/^53/, "PostgreSQL is out of resources (disk, memory or locks)"],
  [/^25006$/, "PostgreSQL is read-only (a standby, or in recovery)"],
  [/^28/, "PostgreSQL refused the credentials"],
  [/^3D000$/, "the PostgreSQL database does not exist"],
  [/^57014$/, "PostgreSQL cancelled the statement (statement_timeout)"],
  [/^(40001|40P01)$/, "a concurrent transaction conflicted with this one"],
  [/^08/, "PostgreSQL is not reachable"],
];
const BY_MESSAGE: readonly [RegExp, string][] = [
  [/timeout exceeded when trying to connect/i, "no connection of the pool was free in time (poolSize)"],
  [/timed? ?out/i, "PostgreSQL did not answer in time"],
  [
    /terminated|closed|ECONN|EPIPE|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|not queryable|ended/i,
    "PostgreSQL is not reachable",
  ],
];

function reason(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === "string") for (const [pattern, text] of BY_CODE) if (pattern.test(code)) return text;
  const message = error instanceof Error ? error.message : String(error);
  for (const [pattern, text] of BY_MESSAGE) if (pattern.test(message)) return text;
  return "PostgreSQL failed";
}

/** Whether the server itself answered with this error (an SQLSTATE), so that the statement surely did not commit. */
export function serverAnswered(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code);
}

/**
 * `STORAGE_UNAVAILABLE` for any failure but a `CatalogError`, with the original as `cause`. A
 * write whose COMMIT got no answer may have been applied: its message says so, and never claims
 * that nothing was written unless that is known.
 */
export function unavailable(error: unknown, what: string, outcome?: Outcome): CatalogError {
  if (isCatalogError(error)) return error;
  const said =
    outcome === "unknown"
      ? "; it may or may not have been applied, and retrying it is safe"
      : outcome === "nothing written"
        ? "; nothing was written"
        : "";
  return new CatalogError("STORAGE_UNAVAILABLE", `PostgreSQL ${what} failed: ${reason(error)}${said}`, {
    cause: error,
  });
}
