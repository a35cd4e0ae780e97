// What the registry knows at one version of the store's tenants registry: the sites and tokens
// made through the admin API, read from its entries and indexed for the synchronous lookups of
// every request (a site by its key, a token by the digest of its secret).
import { type Site, siteKey } from "./site.ts";
import type { TenantEntry } from "./store.ts";
import {
  readRecord,
  type SiteRecord,
  SiteRecordSchema,
  type TokenRecord,
  TokenRecordSchema,
} from "./tenant-records.ts";

/** A token made through the admin API, with its expiry as a number for the hot path. */
export interface ActiveToken {
  readonly record: TokenRecord;
  /** Milliseconds since the epoch; `Infinity` for a token that never expires. */
  readonly expiresAtMs: number;
}

/** The registry at one version: its records by key, parsed once. */
export interface TenantView {
  readonly version: number;
  /** Each entry's text, so that the next version parses only what changed. */
  readonly texts: ReadonlyMap<string, string>;
  /** Sites by `siteKey`. */
  readonly sites: ReadonlyMap<string, SiteRecord>;
  /** Tokens by id. */
  readonly tokens: ReadonlyMap<string, ActiveToken>;
  /** Tokens by the hex SHA-256 of their secret. */
  readonly byDigest: ReadonlyMap<string, ActiveToken>;
}

/** The view of an empty registry. */
export const EMPTY_VIEW: TenantView = {
  version: -1,
  texts: new Map(),
  sites: new Map(),
  tokens: new Map(),
  byDigest: new Map(),
};

/**
 * The view of `entries` at `version`. An entry whose text is that of `previous` keeps its parsed
 * record (the same object: a token's grant, made once, stays that token's); an entry this version
 * cannot read is left out, as a record of a newer version would be.
 */
export function viewOf(version: number, entries: readonly TenantEntry[], previous: TenantView): TenantView {
  const texts = new Map<string, string>();
  const sites = new Map<string, SiteRecord>();
  const tokens = new Map<string, ActiveToken>();
  const byDigest = new Map<string, ActiveToken>();
  for (const { key, value } of entries) {
    texts.set(key, value);
    const same = previous.texts.get(key) === value;
    if (key.startsWith("site:")) {
      const kept = same ? previous.sites.get(key.slice(5)) : undefined;
      const record = kept ?? readRecord(SiteRecordSchema, value);
      if (record !== undefined && `site:${siteKey(record)}` === key) sites.set(siteKey(record), record);
    } else if (key.startsWith("token:")) {
      const kept = same ? previous.tokens.get(key.slice(6)) : undefined;
      const record = kept?.record ?? readRecord(TokenRecordSchema, value);
      if (record === undefined || `token:${record.id}` !== key) continue;
      const token = kept ?? { record, expiresAtMs: expiryOf(record) };
      tokens.set(record.id, token);
      byDigest.set(record.sha256, token);
    }
  }
  return { version, texts, sites, tokens, byDigest };
}

function expiryOf(record: TokenRecord): number {
  return record.expiresAt === undefined ? Number.POSITIVE_INFINITY : Date.parse(record.expiresAt);
}

/** The record of a site made through the admin API, deleting or not. */
export function siteRecord(view: TenantView, site: Site): SiteRecord | undefined {
  return view.sites.get(siteKey(site));
}
