// Who may start reading an import body: a few bodies per token, and a byte budget for all, so no
// token stalls the others.
import type { IncomingMessage } from "node:http";
import { ClientGoneError } from "./body-stream.ts";

/** Default of `HandlerOptions.maxUploadsPerToken`. */
export const DEFAULT_MAX_UPLOADS_PER_TOKEN = 2;
/** Default of `HandlerOptions.bodyBytesInFlight`, as a multiple of `maxBodyBytes`. */
export const DEFAULT_BODY_BUDGET_FACTOR = 4;

/** Gives back what `admit` reserved; calling it twice gives back once. */
export type Release = () => void;

/**
 * Who may start reading a request body. A body is admitted when its token reads fewer than
 * `perToken` bodies, holds at most half the budget with it, and the bytes it may hold fit the
 * budget; the rest wait their turn, unread. A body counts at most half the budget, so whatever one
 * token holds, the body of another token fits beside it: a slow client delays only its own token.
 */
export interface Admission {
  /**
   * Resolves when `owner` may read a body of up to `bytes` bytes; rejects with `ClientGoneError`
   * when the client leaves while waiting.
   */
  admit(owner: object, bytes: number, req: IncomingMessage): Promise<Release>;
  /** Bodies admitted and not yet released. */
  readonly admitted: number;
  /** Bodies waiting to be admitted. */
  readonly waiting: number;
}

interface Waiter {
  readonly owner: object;
  readonly bytes: number;
  readonly grant: () => void;
}

/** Creates the admission of request bodies: `perToken` at once per token, `budget` bytes at once in all. */
export function createAdmission(perToken: number, budget: number): Admission {
  if (!Number.isSafeInteger(perToken) || perToken < 1) {
    throw new RangeError(`maxUploadsPerToken must be a positive integer; got ${perToken}`);
  }
  if (!Number.isSafeInteger(budget) || budget < 1) {
    throw new RangeError(`bodyBytesInFlight must be a positive integer; got ${budget}`);
  }
  // What one body counts at most, and one token holds at most; not rounded, so that even a budget
  // of one byte keeps room for a second token.
  const half = budget / 2;
  const reading = new Map<object, { bodies: number; bytes: number }>();
  let used = 0;
  let admitted = 0;
  let waiting: Waiter[] = [];

  const fits = (owner: object, bytes: number) => {
    const held = reading.get(owner);
    if (held === undefined) return used + bytes <= budget;
    return held.bodies < perToken && held.bytes + bytes <= half && used + bytes <= budget;
  };

  function take(owner: object, bytes: number): Release {
    const held = reading.get(owner);
    if (held === undefined) reading.set(owner, { bodies: 1, bytes });
    else {
      held.bodies++;
      held.bytes += bytes;
    }
    used += bytes;
    admitted++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      admitted--;
      const held = reading.get(owner);
      if (held !== undefined && --held.bodies === 0) reading.delete(owner);
      else if (held !== undefined) held.bytes -= bytes;
      used -= bytes;
      // Any waiter that now fits goes, in arrival order: a large body waiting for room never
      // holds back a small one of another token.
      if (waiting.length > 0) {
        const still: Waiter[] = [];
        for (const waiter of waiting) {
          if (fits(waiter.owner, waiter.bytes)) waiter.grant();
          else still.push(waiter);
        }
        waiting = still;
      }
    };
  }

  return {
    get admitted() {
      return admitted;
    },
    get waiting() {
      return waiting.length;
    },
    admit(owner, bytes, req) {
      // A body larger than half the budget would leave no room for another token's: it counts half.
      const reserved = Math.min(bytes, half);
      if (fits(owner, reserved)) return Promise.resolve(take(owner, reserved));
      return new Promise<Release>((resolve, reject) => {
        const onGone = () => {
          waiting = waiting.filter((waiter) => waiter !== entry);
          reject(new ClientGoneError("The client closed the connection while its body waited to be read"));
        };
        const entry: Waiter = {
          owner,
          bytes: reserved,
          grant: () => {
            req.off("close", onGone);
            resolve(take(owner, reserved));
          },
        };
        req.once("close", onGone);
        waiting.push(entry);
      });
    },
  };
}
