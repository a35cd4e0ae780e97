// An ISO 8601 time interval as feeds write a sale's dates (`sale_price_effective_date`):
// `2026-02-24T13:00-0800/2026-02-29T15:30-0800`. Google's examples write offsets without a colon,
// which Date.parse does not read the same in every engine: the instants are parsed here.

import { clip } from "../text.ts";
import type { ProfileContext, ProfileRow } from "./profile.ts";
import { cell } from "./values.ts";

/** A span of time in milliseconds since the epoch: from `start` (included) to `end` (excluded). */
export interface Interval {
  readonly start: number;
  readonly end: number;
}

const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

const DAY = 24 * 60 * 60 * 1000;

/**
 * An instant of an interval; `undefined` when the text is not one. A time without an offset is
 * UTC; a date alone is its whole day, so that an end date includes its last day.
 */
export function readInstant(text: string, end: boolean): number | undefined {
  const match = INSTANT.exec(text.trim());
  if (match === null) return undefined;
  const [, year, month, day, hour, minute, second, fraction, offset] = match;
  const [y, mo, d] = [Number(year), Number(month), Number(day)];
  const [h, mi, s] = [Number(hour ?? 0), Number(minute ?? 0), Number(second ?? 0)];
  if (mo < 1 || mo > 12 || d < 1 || h > 24 || mi > 59 || s > 60) return undefined;
  const date = Date.UTC(y, mo - 1, d);
  // Date.UTC rolls 2026-02-30 over into March: such a date does not exist.
  if (new Date(date).getUTCDate() !== d) return undefined;
  let at = date + ((h * 60 + mi) * 60 + s) * 1000 + Number((fraction ?? "").padEnd(3, "0"));
  if (offset !== undefined && offset.toUpperCase() !== "Z") {
    const digits = offset.slice(1).replace(":", "");
    const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0);
    at -= (offset.startsWith("-") ? -minutes : minutes) * 60 * 1000;
  }
  if (hour === undefined && end) at += DAY;
  return at;
}

/**
 * The interval of a cell, `start/end`; a text that is not one, or ends before it starts, is a
 * problem at its place, and `undefined`.
 */
export function readInterval(row: ProfileRow, column: string, context: ProfileContext): Interval | undefined {
  const text = cell(row, column).trim();
  const [from, to, ...rest] = text.split("/");
  const start = from === undefined ? undefined : readInstant(from, false);
  const end = to === undefined ? undefined : readInstant(to, true);
  if (rest.length > 0 || start === undefined || end === undefined || end < start) {
    context.problems.add({
      ...context.place(row, column),
      message: `"${clip(text)}" is not a span of dates such as "2026-02-24T13:00-0800/2026-02-29T15:30-0800"`,
    });
    return undefined;
  }
  return { start, end };
}
