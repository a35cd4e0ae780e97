// The rules of an access token, in one place: the configuration file's schema (config.ts) and the
// token check built from code (auth.ts) both apply these, each with the messages of its audience.
import {
  DEFAULT_SCOPES,
  type RateLimits,
  type Scope,
  type Site,
  siteKey,
  type TokenListing,
} from "@catalog-kit/catalog-core";

/** One access token and the sites it may use. */
export interface AccessToken {
  /** The secret as clients send it in `X-Service-Access-Token`. */
  readonly token?: string | undefined;
  /** Instead of `token`: the hex SHA-256 of the secret, so that a config file need not hold it. */
  readonly tokenSha256?: string | undefined;
  /** `"*"` for every site, or the sites this token may read and write. */
  readonly sites: "*" | readonly Site[];
  /** Where imports without `siteId`/`siteType` go; defaults to the only site of a one-site token. */
  readonly defaultSite?: Site | undefined;
  /** What the audit trail and the admin API call it; default `tokens[<index>]`. */
  readonly name?: string | undefined;
  /** What it may do; default every scope but `admin` (`DEFAULT_SCOPES`), as before scopes existed. */
  readonly scopes?: readonly Scope[] | undefined;
  /** This token's rate limits, each replacing the handler's `rateLimits` of its kind. */
  readonly rateLimits?: RateLimits | undefined;
}

/** A `tokenSha256`: 64 hexadecimal digits, either case. */
export const HEX_SHA256 = /^[0-9a-f]{64}$/i;

/** Whether a token gives exactly one of `token` and `tokenSha256`. */
export function hasOneSecret(token: Pick<AccessToken, "token" | "tokenSha256">): boolean {
  return (token.token === undefined) !== (token.tokenSha256 === undefined);
}

/** Whether `site` is one of the token's sites (every site is, for `"*"`): a default site must be. */
export function isTokenSite(sites: AccessToken["sites"], site: Site): boolean {
  if (sites === "*") return true;
  const key = siteKey(site);
  return sites.some((own) => siteKey(own) === key);
}

/** The id of the configuration file's token at `index`, which the admin API lists it under. */
export const fileTokenId = (index: number): string => `file:${index}`;

/** The name of the configuration file's token at `index`: its own, else `tokens[<index>]`. */
export const fileTokenName = (token: AccessToken, index: number): string => token.name ?? `tokens[${index}]`;

/** The configuration file's tokens as the admin API lists them (`source: "file"`): never a secret. */
export function fileTokenListings(tokens: readonly AccessToken[]): TokenListing[] {
  return tokens.map((token, index) => ({
    id: fileTokenId(index),
    name: fileTokenName(token, index),
    source: "file",
    sites: token.sites,
    scopes: token.scopes ?? DEFAULT_SCOPES,
    ...(token.rateLimits === undefined ? {} : { rateLimits: token.rateLimits }),
  }));
}
