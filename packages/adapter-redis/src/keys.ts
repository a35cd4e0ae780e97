import type { Site } from "@catalog-kit/catalog-core";

/**
 * The Redis keys of one site. Every key carries the same hash tag, `{<siteType>:<siteId>}`, so
 * that all of them live in one Cluster slot and every script may touch any of them:
 *
 * | key                                   | type   | holds                                               |
 * |---------------------------------------|--------|-----------------------------------------------------|
 * | `<prefix>:{<type>:<id>}:products`      | hash   | product id → canonical JSON (`encodeProduct`)       |
 * | `<prefix>:{<type>:<id>}:skus`          | hash   | sku → product id                                    |
 * | `<prefix>:{<type>:<id>}:sku-of`        | hash   | product id → sku (frees an old sku without parsing JSON in Lua) |
 * | `<prefix>:{<type>:<id>}:lock`          | string | token of the chunked import that holds the site (expires) |
 * | `<prefix>:{<type>:<id>}:merging:*`     | hashes | a committed chunked import, still being folded into the three above |
 * | `<prefix>:{<type>:<id>}:stage:<token>:*` | hashes | chunks of an import not yet committed (expire) |
 *
 * `%`, `{`, `}` and `:` in `siteType` and `siteId` are percent-encoded (`%25`, `%7B`, `%7D`,
 * `%3A`). The encoding is reversible, so no two sites share a key, and neither `{` nor `}` can
 * end up inside the tag.
 */
export interface SiteKeys {
  readonly products: string;
  readonly skus: string;
  readonly skuOf: string;
  readonly lock: string;
  readonly merging: ProductHashes;
  /** The staging hashes of the import holding `token`. */
  stage(token: string): ProductHashes;
}

/** The three hashes that make up a set of products: by id, the sku index, and its reverse. */
export interface ProductHashes {
  readonly products: string;
  readonly skus: string;
  readonly skuOf: string;
}

/** The prefix keys get when `keyPrefix` is not given. */
export const DEFAULT_KEY_PREFIX = "catalog";

const SPECIAL = /[%{}:]/g;

/** Percent-encodes the characters that would break the hash tag or merge two site names. */
export function escapeSitePart(part: string): string {
  return part.replace(SPECIAL, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Throws when a key prefix could break the hash tag; returns the prefix as keys start with it. */
export function checkKeyPrefix(prefix: string): string {
  if (prefix.includes("{") || prefix.includes("}")) {
    throw new TypeError(
      `keyPrefix must not contain "{" or "}" (it would break the per-site hash tag): ${JSON.stringify(prefix)}`,
    );
  }
  return prefix === "" ? "" : `${prefix}:`;
}

function hashes(base: string): ProductHashes {
  return { products: `${base}products`, skus: `${base}skus`, skuOf: `${base}sku-of` };
}

/** The keys of `site` under a prefix already checked by `checkKeyPrefix`. */
export function siteKeys(prefix: string, site: Site): SiteKeys {
  const base = `${prefix}{${escapeSitePart(site.siteType)}:${escapeSitePart(site.siteId)}}:`;
  return {
    ...hashes(base),
    lock: `${base}lock`,
    merging: hashes(`${base}merging:`),
    stage: (token) => hashes(`${base}stage:${token}:`),
  };
}
