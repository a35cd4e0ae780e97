// Token lookup in constant time, and what a token's grant covers: its sites and its default site
// (site-access.ts weighs them for a request).
import { hash, timingSafeEqual } from "node:crypto";
import {
  DEFAULT_SCOPES,
  type RateLimits,
  type Scope,
  type Site,
  siteKey,
  type TenantRegistry,
  type TokenRecord,
} from "@catalog-kit/catalog-core";
import { type AccessToken, fileTokenId, fileTokenName, HEX_SHA256, hasOneSecret, isTokenSite } from "./access-token.ts";
import { HttpError } from "./problem.ts";

/** What an authenticated request may do. */
export interface Grant {
  /** Whether the token covers `site`; a site it does not cover must look like an unknown one. */
  covers(site: Site): boolean;
  /** Site of imports that name none, if the token has one. */
  readonly defaultSite: Site | undefined;
  /** A stable id of the token, which its usage is counted under: an API token's id, or `file:<index>` for the configuration file's. */
  readonly tokenId: string;
  /** The token's name, for the audit trail: its own, or `tokens[<index>]`. */
  readonly name: string;
  /** What the token may do. */
  readonly scopes: ReadonlySet<Scope>;
  /** The token's own rate limits, each over the handler's default; `undefined`: the default's. */
  readonly rateLimits: RateLimits | undefined;
}

/** The grant of a request that needs no token (health, this document): it covers no site. */
export const NO_GRANT: Grant = {
  covers: () => false,
  defaultSite: undefined,
  tokenId: "",
  name: "",
  scopes: new Set(),
  rateLimits: undefined,
};

interface Entry extends Grant {
  readonly digest: Buffer;
}

function digestOf(token: AccessToken, index: number): Buffer {
  const { token: secret, tokenSha256 } = token;
  if (!hasOneSecret(token)) {
    throw new TypeError(`tokens[${index}]: give exactly one of token and tokenSha256`);
  }
  if (secret !== undefined) {
    if (secret === "") throw new TypeError(`tokens[${index}].token: must not be empty`);
    return hash("sha256", secret, "buffer");
  }
  if (!HEX_SHA256.test(tokenSha256 as string)) {
    throw new TypeError(`tokens[${index}].tokenSha256: must be 64 hexadecimal digits`);
  }
  return Buffer.from(tokenSha256 as string, "hex");
}

// What a token's sites let it reach: the sites it covers and its default site.
function reachOf(sites: AccessToken["sites"], defaultSite: Site | undefined): Pick<Grant, "covers" | "defaultSite"> {
  if (sites === "*") return { covers: () => true, defaultSite };
  const keys = new Set(sites.map(siteKey));
  return {
    covers: (site) => keys.has(siteKey(site)),
    defaultSite: defaultSite ?? (sites.length === 1 ? sites[0] : undefined),
  };
}

function entryOf(token: AccessToken, index: number): Entry {
  const digest = digestOf(token, index);
  if (token.defaultSite !== undefined && !isTokenSite(token.sites, token.defaultSite)) {
    throw new TypeError(`tokens[${index}].defaultSite: must be one of the token's sites`);
  }
  return {
    digest,
    ...reachOf(token.sites, token.defaultSite),
    tokenId: fileTokenId(index),
    name: fileTokenName(token, index),
    scopes: new Set(token.scopes ?? DEFAULT_SCOPES),
    rateLimits: token.rateLimits,
  };
}

// The grant of a token made through the admin API: made once per record, so that a token's grant
// is one object while its record is unchanged (its uploads are counted under it).
const grants = new WeakMap<TokenRecord, Grant>();
function grantOf(record: TokenRecord): Grant {
  let grant = grants.get(record);
  if (grant === undefined) {
    const { id, name, scopes, rateLimits, sites } = record;
    grant = { ...reachOf(sites, undefined), tokenId: id, name, scopes: new Set(scopes), rateLimits };
    grants.set(record, grant);
  }
  return grant;
}

// Presented strings whose digest is kept: bounded, since tokens made at run time have no fixed count.
const MAX_MATCHED = 20_000;

// A presented token's digest, and its hex once the registry was asked for it (kept, not made per request).
interface Presented {
  readonly digest: Buffer;
  hex: string | undefined;
}

/** Returns the grant of a presented token; throws `UNAUTHORIZED` for a missing or unknown one. */
export type Authenticator = (presented: string | string[] | undefined) => Grant;

/**
 * Builds the token check. Every presented token's digest is compared with every digest of the
 * configuration file by `timingSafeEqual`, so neither the position of a mismatch nor the length
 * of a token leaks. Tokens made through the admin API (`registry`) are found by the hex of that
 * digest in a Map instead, which stays fast with tens of thousands of them: its timing depends on
 * the SHA-256 of the presented string, which an attacker can only choose by hashing guesses, and
 * what it could reveal (how far a stored digest matches a guess's digest) brings no guess nearer
 * to a secret of 256 random bits, since SHA-256 is preimage-resistant.
 */
export function createAuthenticator(tokens: readonly AccessToken[], registry?: TenantRegistry): Authenticator {
  const entries = tokens.map(entryOf);
  // Under load, SHA-256 cost about 10 µs a request, a fifth of a whole GET. A token that has
  // matched keeps its digest here, so this holds at most one entry per token that matched (and
  // MAX_MATCHED); any other string is hashed every time, and every digest still goes through the
  // comparison. A revoked token's digest may stay: it is a digest, not a grant.
  const matched = new Map<string, Presented>();
  return (presented) => {
    if (typeof presented !== "string" || presented === "") {
      throw new HttpError("UNAUTHORIZED", "Missing X-Service-Access-Token header");
    }
    const known = matched.get(presented);
    const seen = known ?? { digest: hash("sha256", presented, "buffer"), hex: undefined };
    const { digest } = seen;
    let grant: Grant | undefined;
    for (const entry of entries) {
      if (timingSafeEqual(digest, entry.digest) && grant === undefined) grant = entry;
    }
    if (grant === undefined && registry !== undefined) {
      // Expired and revoked tokens are not found: the registry is at most a second behind the store.
      seen.hex ??= digest.toString("hex");
      const record = registry.tokenByDigest(seen.hex);
      if (record !== undefined) grant = grantOf(record);
    }
    if (grant === undefined) throw new HttpError("UNAUTHORIZED", "Invalid access token");
    if (known === undefined) {
      if (matched.size >= MAX_MATCHED) matched.clear();
      matched.set(presented, seen);
    }
    return grant;
  };
}
