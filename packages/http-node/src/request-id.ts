// Request ids: the client's X-Request-Id when it is safe, else a cheap generated one.
import { randomBytes } from "node:crypto";

/** Longest `X-Request-Id` a client may send; a longer one is replaced by a generated id. */
export const MAX_REQUEST_ID_LENGTH = 128;

// Letters, digits and `_ . ~ : -`: safe in a header, a URN, a JSON string and a log line, and
// enough for UUIDs, ULIDs and most tracing ids.
const REQUEST_ID = /^[\w.~:-]{1,128}$/;

/** The client's `X-Request-Id` when it is one string of 1-128 allowed characters; otherwise `undefined`. */
export function acceptRequestId(header: string | string[] | undefined): string | undefined {
  return typeof header === "string" && REQUEST_ID.test(header) ? header : undefined;
}

/**
 * Creates a source of request ids unique to this process: a random prefix drawn once, then a
 * counter, so that an id costs no randomness per request and ids of two processes do not collide.
 */
export function createRequestIds(): () => string {
  const prefix = randomBytes(9).toString("base64url");
  let count = 0;
  return () => `${prefix}-${(++count).toString(36)}`;
}
