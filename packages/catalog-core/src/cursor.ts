// List cursors: opaque names of a place in id order.
import { invalidOption } from "./errors.ts";

/**
 * What a list cursor looks like: canonical base64url without padding (what Node writes), not
 * empty, published in the OpenAPI document. Every string of it is a cursor `listProducts` takes.
 * The pattern itself excludes the empty string: a generator that reads a pattern beside a
 * `minLength` may draw the length first and then a string the pattern refuses.
 */
export const CURSOR_PATTERN =
  /^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{4}|[A-Za-z0-9_-][AQgw]|[A-Za-z0-9_-]{2}[AEIMQUYcgkosw048])$/;

/** `limit` when it is a whole number from 1 to `max`; else `VALIDATION_FAILED` naming `limit`. */
export function pageLimit(limit: number, max: number): number {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > max)
    throw invalidOption("limit", `Must be an integer from 1 to ${max}`);
  return limit;
}

/** A cursor names the last id of its page; base64url keeps it opaque and safe in a query string. */
export function encodeCursor(id: string): string {
  return Buffer.from(id, "utf8").toString("base64url");
}

/**
 * The id a cursor names. One this API gave decodes to an id exactly. Any other of the published
 * pattern is still a place in id order, so that a client generated from the document is never
 * refused one: bytes that are not UTF-8 decode lossily, and a NUL (which no id holds, and
 * PostgreSQL refuses) ends it, which names the same place, since no id can sort between the two.
 */
export function decodeCursor(cursor: string): string | undefined {
  if (cursor === "" || !CURSOR_PATTERN.test(cursor))
    throw invalidOption("cursor", "Must be a nextCursor this API gave");
  const id = Buffer.from(cursor, "base64url").toString("utf8");
  const nul = id.indexOf("\0");
  return nul === -1 ? id : id.slice(0, nul) || undefined;
}
