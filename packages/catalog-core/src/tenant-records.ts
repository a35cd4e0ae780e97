// The records of the tenants registry: a site and a token made at run time, as schemas, and the
// keys they are stored under (`site:<siteKey>`, `token:<id>`) as JSON text in the store's registry.
import * as v from "valibot";
import { RateLimitsSchema, type Scope, ScopesSchema } from "./access.ts";
import { type Site, SiteSchema, siteKey } from "./site.ts";

// One check, so that a bad value is one problem: ISO 8601's form, and a date that exists.
const Timestamp = v.pipe(
  v.string("Must be a string"),
  v.check(
    (s) => v.is(v.pipe(v.string(), v.isoTimestamp()), s) && !Number.isNaN(Date.parse(s)),
    "Must be an ISO 8601 date and time, such as 2030-01-31T12:00:00Z",
  ),
);

/** A site made through the admin API: its names, when, and `deleting` while its deletion runs. */
export const SiteRecordSchema = v.strictObject({
  ...SiteSchema.entries,
  createdAt: Timestamp,
  deleting: v.optional(v.literal(true)),
});

/** A site record, see `SiteRecordSchema`. */
export type SiteRecord = Readonly<v.InferOutput<typeof SiteRecordSchema>>;

/** A token's name: what the audit trail and the lists call it. */
export const TokenNameSchema = v.pipe(
  v.string("Must be a string"),
  v.check((s) => s.trim() !== "", "Must not be empty or blank"),
  v.maxLength(200, "Must be at most 200 characters"),
  v.check((s) => s.isWellFormed(), "Must be well-formed Unicode (no lone surrogates)"),
);

/** A token's sites: `"*"` (every site, those made later too) or a list of sites, at least one, each once. */
export const TokenSitesSchema = v.union(
  [
    v.literal("*"),
    v.pipe(
      v.array(SiteSchema),
      v.minLength(1, "Must list at least one site"),
      v.maxLength(1_000, "Must list at most 1,000 sites"),
      v.check((sites) => new Set(sites.map(siteKey)).size === sites.length, "Must list each site once"),
    ),
  ],
  'Must be "*" or a list of sites',
);

/** What `POST /admin/v1/tokens` takes: a name, sites, scopes, and optionally an expiry and rate limits. */
export const TokenRequestSchema = v.strictObject({
  name: TokenNameSchema,
  sites: TokenSitesSchema,
  scopes: ScopesSchema,
  expiresAt: v.optional(Timestamp),
  rateLimits: v.optional(RateLimitsSchema),
});

/** A token to create, see `TokenRequestSchema`. */
export type TokenRequest = Readonly<v.InferOutput<typeof TokenRequestSchema>>;

/** A token made through the admin API, as stored: never its secret, only the secret's SHA-256 (hex). */
export const TokenRecordSchema = v.strictObject({
  id: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,64}$/)),
  ...TokenRequestSchema.entries,
  sha256: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
  createdAt: Timestamp,
});

/** A token record, see `TokenRecordSchema`. */
export type TokenRecord = Readonly<v.InferOutput<typeof TokenRecordSchema>>;

/** Where a site or token comes from: the configuration file, or the admin API. */
export type TenantSource = "file" | "api";

/** A site as the admin API lists it. */
export interface SiteListing extends Site {
  readonly source: TenantSource;
  readonly createdAt?: string | undefined;
  /** Present while its deletion runs (or was cut short: deleting it again finishes it). */
  readonly deleting?: true | undefined;
}

/** A token as the admin API lists it: never a secret, nor its digest. */
export interface TokenListing {
  readonly id: string;
  readonly name: string;
  readonly source: TenantSource;
  readonly sites: "*" | readonly Site[];
  readonly scopes: readonly Scope[];
  readonly expiresAt?: string | undefined;
  readonly rateLimits?: TokenRecord["rateLimits"] | undefined;
  readonly createdAt?: string | undefined;
}

/** The registry key of a site's record. */
export const siteEntryKey = (site: Site): string => `site:${siteKey(site)}`;

/** The registry key of a token's record. */
export const tokenEntryKey = (id: string): string => `token:${id}`;

/** The record an entry holds, or `undefined` for a value this version does not read (skipped, not fatal). */
export function readRecord<T>(schema: v.GenericSchema<unknown, T>, text: string): T | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const result = v.safeParse(schema, json);
  return result.success ? result.output : undefined;
}
