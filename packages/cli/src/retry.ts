// Trying a request again: when the connection is refused or lost (the server restarting, a
// proxy cutting it), after a backoff; after a 503 or a 429 (a rate limit of the token), when its
// Retry-After says. Bounded by
// `--retries`. An import is sent again with the same Idempotency-Key, so that a server which
// applied it already answers as it did then instead of applying it twice.
import type { IncomingMessage } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";

/** An answer from the server: its status, and seconds to wait before asking again (Retry-After). */
export interface Answered {
  readonly status: number;
  readonly retryAfter: number;
}

/** What one try of a request came to. */
export type Outcome<A extends Answered> =
  | { readonly kind: "answer"; readonly answer: A }
  /** Nothing listened: nothing was sent. */
  | { readonly kind: "refused"; readonly error: Error }
  /** The connection broke before an answer; the request may or may not have arrived whole. */
  | { readonly kind: "lost"; readonly error: Error }
  /** Anything else (a name that does not resolve, a certificate): trying again would not help. */
  | { readonly kind: "failed"; readonly error: Error };

// Retry-After when a 503 or a 429 does not say.
const DEFAULT_RETRY_AFTER_SECONDS = 5;

/** Seconds an answer asks to wait before the next try: its Retry-After (in seconds), else 5. */
export function retryAfterOf(res: IncomingMessage): number {
  const seconds = Number(res.headers["retry-after"]);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : DEFAULT_RETRY_AFTER_SECONDS;
}

const LOST = new Set(["ECONNRESET", "EPIPE", "ETIMEDOUT"]);

/** The outcome of a request that failed with `error` before any answer. */
export function unanswered(error: Error): Outcome<never> {
  const code = (error as NodeJS.ErrnoException).code ?? "";
  if (code === "ECONNREFUSED") return { kind: "refused", error };
  return LOST.has(code) ? { kind: "lost", error } : { kind: "failed", error };
}

/**
 * An error of the connection as people read it. Connecting to a name with several addresses
 * fails with an AggregateError whose own message is empty: its errors' messages say it.
 */
export function errorText(error: Error): string {
  if (error.message !== "") return error.message;
  const inner = error instanceof AggregateError ? error.errors.map((e: Error) => e.message).join("; ") : "";
  return inner || ((error as NodeJS.ErrnoException).code ?? error.name);
}

/** Seconds before the first retry of a refused or lost connection; each next one waits twice as long. */
export const FIRST_BACKOFF_SECONDS = 1;
/** The longest wait between two tries of a refused or lost connection. */
export const MAX_BACKOFF_SECONDS = 16;

/** How `withRetries` tries. */
export interface RetryOptions {
  /** Tries after the first one, at most. */
  readonly retries: number;
  /** Whether the request can still be sent again (standard input, once read, cannot). */
  readonly canRetry?: () => boolean;
  /** Where the notice of each retry goes. */
  readonly log: (line: string) => void;
}

function why(outcome: Outcome<Answered>): string {
  if (outcome.kind === "answer") return `${outcome.answer.status} from the server`;
  return `${outcome.kind === "refused" ? "Connection refused" : "Connection lost"} (${errorText(outcome.error)})`;
}

/**
 * How long an import waits, in all, while another request holding its Idempotency-Key runs (409):
 * the longest a server holds a key, its default request timeout.
 */
export const MAX_KEY_WAIT_SECONDS = 600;

// Answers that say to ask again after Retry-After: the storage is down (503), the token's rate
// limit is spent (429), an earlier try of the import still runs (409).
const WAIT_STATUSES: ReadonlySet<number> = new Set([503, 429, 409]);

// Seconds to wait before the next try, or undefined when trying again would not help.
function delayBefore(outcome: Outcome<Answered>, tried: number): number | undefined {
  switch (outcome.kind) {
    case "answer":
      return WAIT_STATUSES.has(outcome.answer.status) ? outcome.answer.retryAfter : undefined;
    case "failed":
      return undefined;
    default:
      return Math.min(FIRST_BACKOFF_SECONDS * 2 ** tried, MAX_BACKOFF_SECONDS);
  }
}

/**
 * Runs `attempt` until it gives an answer other than 503, 429 or 409, fails for good, or the
 * retries are spent; resolves to the last outcome.
 */
export async function withRetries<A extends Answered>(
  attempt: () => Promise<Outcome<A>>,
  options: RetryOptions,
): Promise<Outcome<A>> {
  let waited = 0;
  for (let tried = 0; ; ) {
    const outcome = await attempt();
    const seconds = delayBefore(outcome, tried);
    if (seconds === undefined || !(options.canRetry?.() ?? true)) return outcome;
    // A 409 says that an earlier try of this very import still runs (its connection was lost):
    // waiting for it is not a failure, and spends no retry, only the time a server holds a key.
    if (outcome.kind === "answer" && outcome.answer.status === 409) {
      if (waited >= MAX_KEY_WAIT_SECONDS) return outcome;
      waited += seconds;
      options.log(`${why(outcome)}: an earlier try of this import still runs; asking again in ${seconds} s`);
    } else {
      if (tried >= options.retries) return outcome;
      tried++;
      options.log(`${why(outcome)}: trying again in ${seconds} s (${tried} of ${options.retries})`);
    }
    await sleep(seconds * 1_000);
  }
}
