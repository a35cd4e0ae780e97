// Token lookup in constant time, and what a token's grant covers: its sites and its default site
// (site-access.ts weighs them for a request).
import { hash, timingSafeEqual } from "node:crypto";
import { type RateLimits, type Site, siteKey } from "@catalog-kit/catalog-core";
import { type AccessToken, HEX_SHA256, hasOneSecret, isTokenSite } from "./access-token.ts";
import { HttpError } from "./problem.ts";

/** What an authenticated request may do. */
export interface Grant {
  /** Whether the token covers `site`; a site it does not cover must look like an unknown one. */
  covers(site: Site): boolean;
  /** Site of imports that name none, if the token has one. */
  readonly defaultSite: Site | undefined;
  /** The token's stable id, which its usage is counted under: `file:<index>` for a configured token. */
  readonly tokenId: string;
  /** The token's own rate limits, each over the handler's default; `undefined`: the default's. */
  readonly rateLimits: RateLimits | undefined;
}

/** The grant of a request that needs no token (health, this document): it covers no site. */
export const NO_GRANT: Grant = { covers: () => false, defaultSite: undefined, tokenId: "", rateLimits: undefined };

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

function entryOf(token: AccessToken, index: number): Entry {
  const digest = digestOf(token, index);
  if (token.defaultSite !== undefined && !isTokenSite(token.sites, token.defaultSite)) {
    throw new TypeError(`tokens[${index}].defaultSite: must be one of the token's sites`);
  }
  const tokenId = `file:${index}`;
  const { rateLimits } = token;
  if (token.sites === "*") {
    return { digest, covers: () => true, defaultSite: token.defaultSite, tokenId, rateLimits };
  }
  const keys = new Set(token.sites.map(siteKey));
  const defaultSite = token.defaultSite ?? (token.sites.length === 1 ? token.sites[0] : undefined);
  return { digest, covers: (site) => keys.has(siteKey(site)), defaultSite, tokenId, rateLimits };
}

/** Returns the grant of a presented token; throws `UNAUTHORIZED` for a missing or unknown one. */
export type Authenticator = (presented: string | string[] | undefined) => Grant;

/**
 * Builds the token check. Every presented token's digest is compared with every known digest
 * by `timingSafeEqual`, so neither the position of a mismatch nor the length of a token leaks.
 */
export function createAuthenticator(tokens: readonly AccessToken[]): Authenticator {
  const entries = tokens.map(entryOf);
  // Under load, SHA-256 cost about 10 µs a request, a fifth of a whole GET. A token that has
  // matched keeps its digest here, so this holds at most one entry per configured token; any
  // other string is hashed every time, and every digest still goes through the comparison.
  const matched = new Map<string, Buffer>();
  return (presented) => {
    if (typeof presented !== "string" || presented === "") {
      throw new HttpError("UNAUTHORIZED", "Missing X-Service-Access-Token header");
    }
    const known = matched.get(presented);
    const digest = known ?? hash("sha256", presented, "buffer");
    let grant: Grant | undefined;
    for (const entry of entries) {
      if (timingSafeEqual(digest, entry.digest) && grant === undefined) grant = entry;
    }
    if (grant === undefined) throw new HttpError("UNAUTHORIZED", "Invalid access token");
    if (known === undefined) matched.set(presented, digest);
    return grant;
  };
}
