// The configuration of the import history (`history`): how many records a site keeps, for how
// long, and how many problems a report holds; or `false`, no history at all. The defaults are the
// core's (HISTORY_DEFAULTS), so that the file cannot drift from the catalog's own.
import { HISTORY_DEFAULTS, type HistoryOptions } from "@catalog-kit/catalog-core";
import * as v from "valibot";

const Whole = (max: number) =>
  v.pipe(
    v.number("Must be a number"),
    v.safeInteger("Must be an integer"),
    v.minValue(1, "Must be at least 1"),
    v.maxValue(max, `Must be at most ${max}`),
  );

/** The most records a site may be told to keep, and problems a report to hold: both sit in the store. */
export const HISTORY_MAX = { keep: 1_000_000, maxReportProblems: 1_000_000 } as const;

const SHAPE = 'Must be false, or { "keep"?: number, "maxAgeMs"?: number, "maxReportProblems"?: number }';

/** The `history` object: retention by count and age per site, and the report's cap. */
export const HistorySchema = v.strictObject(
  {
    keep: v.optional(Whole(HISTORY_MAX.keep), HISTORY_DEFAULTS.keep),
    maxAgeMs: v.optional(Whole(Number.MAX_SAFE_INTEGER), HISTORY_DEFAULTS.maxAgeMs),
    // Each import holds its report in memory until it ends, so the cap bounds that too.
    maxReportProblems: v.optional(Whole(HISTORY_MAX.maxReportProblems), HISTORY_DEFAULTS.maxReportProblems),
  },
  SHAPE,
);

/** The configuration file's `history` key, spread into the server's schema; absent: the defaults. */
export const HISTORY_CONFIG_ENTRIES = {
  // Chosen by the value rather than a union, so that an unknown key or a bad number is named at
  // its own path, not told as "neither false nor an object". A list is an object to valibot.
  history: v.optional(
    v.lazy((input) =>
      input === false ? v.literal(false) : Array.isArray(input) ? v.custom<never>(() => false, SHAPE) : HistorySchema,
    ),
    {},
  ),
};

/** The history part of a validated configuration: its retention and report cap, or `false`. */
export type HistorySettings = v.InferOutput<typeof HistorySchema> | false;

/**
 * What the schema cannot see: webhooks with no history. An import's deliveries are enqueued with
 * its final record, so a server that records nothing would never send one.
 */
export function historyIssues(config: { readonly history: HistorySettings; readonly webhooks: readonly unknown[] }) {
  if (config.history !== false || config.webhooks.length === 0) return [];
  return ['history: Must not be false while "webhooks" are configured: their deliveries are sent from its records'];
}

/** The catalog's history options of `settings`, with the server's webhook deliveries. */
export function historyOptions(
  settings: HistorySettings,
  deliveries: NonNullable<HistoryOptions["deliveries"]>,
): HistoryOptions | false {
  return settings === false ? false : { ...settings, deliveries };
}
