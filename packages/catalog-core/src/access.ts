// What a token may do: its scopes and its rate limits, as the configuration file and the admin API
// both give them (the schemas are the one home of their rules).
import * as v from "valibot";

/** Every scope, in the order they are documented: reads, imports (and patches), deletes, the admin API. */
export const SCOPES = ["read", "import", "delete", "admin"] as const;

/** One thing a token may do: `read` (get, list, export), `import` (imports, merges, patches), `delete`, `admin`. */
export type Scope = (typeof SCOPES)[number];

/** The scopes of a token that lists none (every configured token before scopes existed): all but `admin`. */
export const DEFAULT_SCOPES: readonly Scope[] = ["read", "import", "delete"];

/** A token's `scopes`: at least one, each once. */
export const ScopesSchema = v.pipe(
  v.array(v.picklist(SCOPES, `Must be one of ${SCOPES.map((s) => `"${s}"`).join(", ")}`)),
  v.minLength(1, "Must list at least one scope"),
  v.check((scopes) => new Set(scopes).size === scopes.length, "Must list each scope once"),
);

const Quota = v.pipe(
  v.number("Must be a number"),
  v.safeInteger("Must be a whole number"),
  v.minValue(1, "Must be at least 1"),
);

/**
 * A token's rate limits, each optional (absent: no limit of that kind): requests a minute, bytes of
 * import bodies a minute, and imports of one site running at once.
 */
export const RateLimitsSchema = v.strictObject({
  requestsPerMinute: v.optional(Quota),
  importBytesPerMinute: v.optional(Quota),
  importsPerSite: v.optional(Quota),
});

/** A token's rate limits, see `RateLimitsSchema`. */
export type RateLimits = Readonly<v.InferOutput<typeof RateLimitsSchema>>;
