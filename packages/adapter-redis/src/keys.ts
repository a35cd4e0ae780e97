// The Redis keys of a site and of an import's staging, under one hash tag per site, and the site's
// state fields.
import type { Site } from "@catalog-kit/catalog-core";

/**
 * The Redis keys of one site. Every key carries the same hash tag, `{<siteType>:<siteId>}`, so
 * that all of them live in one Cluster slot and every script may touch any of them:
 *
 * | key                                      | type   | holds                                                  |
 * |------------------------------------------|--------|--------------------------------------------------------|
 * | `<prefix>:{<type>:<id>}:products`         | hash   | product id → canonical JSON (`encodeProduct`), and the site's state fields below |
 * | `<prefix>:{<type>:<id>}:skus`             | hash   | sku → product id                                       |
 * | `<prefix>:{<type>:<id>}:sku-of`           | hash   | product id → sku (frees an old sku without parsing JSON in Lua) |
 * | `<prefix>:{<type>:<id>}:ids`              | zset   | every product id, all scored 0: the id order of `list` (ZRANGEBYLEX) |
 * | `<prefix>:{<type>:<id>}:merging:*`        | hashes, zset | a committed import, still being folded into the four above |
 * | `<prefix>:{<type>:<id>}:stage:<token>:*`  | hashes, zset | an import not yet committed (expire)             |
 * | `<prefix>:{<type>:<id>}:in:<token>:*`     | hashes, zset | a `beginImport` import's chunks so far, in the shape of a site (expire; see `IncomingKeys`) |
 *
 * `%`, `{`, `}` and `:` in `siteType` and `siteId` are percent-encoded (`%25`, `%7B`, `%7D`,
 * `%3A`). The encoding is reversible, so no two sites share a key, and neither `{` nor `}` can
 * end up inside the tag.
 */
export interface SiteKeys {
  readonly products: string;
  readonly skus: string;
  readonly skuOf: string;
  /**
   * The id index: a sorted set of every id of `products`, all scored 0, so that ZRANGEBYLEX
   * walks them in the order of their bytes. Every script that writes a products hash keeps its
   * index beside it (the staging's and the merging's included), so that a RENAME of one moves
   * the other, and the index of a site holds exactly its product ids (see `list.ts`). Like
   * the hashes, it exists whenever the site holds products, so the one-call scripts may declare
   * it while the site's slot migrates (see `LOCK_FIELD`).
   */
  readonly ids: string;
  readonly mergingProducts: string;
  readonly mergingSkus: string;
  readonly mergingSkuOf: string;
  readonly mergingIds: string;
}

/** A site's keys with those of one import's staging, named by the import's token. */
export interface ImportKeys extends SiteKeys {
  readonly stageProducts: string;
  readonly stageSkus: string;
  readonly stageSkuOf: string;
  readonly stageIds: string;
}

/**
 * The keys of an import begun with `beginImport`, named by its own token, under the site's tag:
 * everything its `add` calls were given, so that the client holds none of it. All expire, and
 * every `add` renews them; the import is gone soon after its process stops.
 *
 * The first four have the shape of a site's keys (`SiteKeys`): a commit into an empty site, or in
 * place of the site, RENAMEs them into the site's, and a commit beside a site with products
 * renames them into the merging keys once the products the import leaves unchanged are dropped
 * from them (or, when it changes few, copies those it changes into the `stage:` keys, renamed
 * instead). The positions are only read for conflicts: `in:spans` is built from them by a commit
 * that answers conflicts, and only then.
 *
 * | key                                          | type | holds                                                      |
 * |----------------------------------------------|------|------------------------------------------------------------|
 * | `<prefix>:{<type>:<id>}:in:<token>:products` | hash | id → canonical JSON of the last product given with that id |
 * | `<prefix>:{<type>:<id>}:in:<token>:sku-of`   | hash | id → its sku                                               |
 * | `<prefix>:{<type>:<id>}:in:<token>:skus`     | hash | sku → the id that claimed it while no other did; while more than one id claims it, `"\0<how many> <that id>"`; `""` for the id when it moved off while others still claimed the sku |
 * | `<prefix>:{<type>:<id>}:in:<token>:ids`      | zset | every id, all scored 0 (the id index)                      |
 * | `<prefix>:{<type>:<id>}:in:<token>:pos`      | hash | chunk number → `"<positions>\n<id>\n<id>…"`: the positions `add` was given and the chunk's ids, in order |
 * | `<prefix>:{<type>:<id>}:in:<token>:spans`    | hash | id → `"<first position> <last position>"` (built at commit, for conflicts) |
 * | `<prefix>:{<type>:<id>}:in:<token>:bases`    | hash | id → SHA-1 (hex) of the canonical JSON of the base its last add gave, `""` for a `null` base; no entry without one (only a merge's import has it) |
 *
 * An import whose skus are each claimed by one id holds in `in:skus` exactly what the site's
 * skus hash will (the commit first gives back to their claimers the skus marked `""`).
 */
export interface IncomingKeys {
  readonly inProducts: string;
  readonly inSkuOf: string;
  readonly inSkus: string;
  readonly inIds: string;
  readonly inPositions: string;
  readonly inSpans: string;
  readonly inBases: string;
}

/**
 * The keys of one idempotency key of a site (`CatalogStore.claimKey`, clause 6 of `commit`),
 * under the site's tag so that a commit's script checks and writes the record beside the
 * products. The key is hex-encoded (its UTF-8): whatever it holds, `{`, `}`, `:`, `*` included,
 * it can neither move the key out of the site's slot nor make two names meet.
 *
 * | key                                      | type   | holds                                                 |
 * |------------------------------------------|--------|-------------------------------------------------------|
 * | `<prefix>:{<type>:<id>}:idem:<hex>:record` | string | `{"fingerprint":…,"counts":{…}}`, expiring (PX) after the retention |
 * | `<prefix>:{<type>:<id>}:idem:<hex>:claim`  | string | the claim's token, expiring (PX) after the lease      |
 */
export interface IdempotencyKeys {
  readonly keyRecord: string;
  readonly keyClaim: string;
}

/**
 * The keys of the tenants registry, one per store (per key prefix), under one hash tag of their
 * own so that a Cluster holds them in one slot and a script reads and writes them together. No
 * site's key can take their names: a site's tag always holds a `:`.
 *
 * | key                           | type   | holds                                              |
 * |-------------------------------|--------|----------------------------------------------------|
 * | `<prefix>:{tenants}:entries`  | hash   | entry key → its value                              |
 * | `<prefix>:{tenants}:version`  | string | the registry's version, INCR'd by each applied write (absent: 0) |
 */
export interface TenantKeys {
  readonly tenants: string;
  readonly tenantsVersion: string;
}

/**
 * The key of one usage counter: `<prefix>:{usage:<key>}`, the key percent-encoded as a site's
 * parts are, so that each counter has a slot of its own choosing and no two counters meet.
 */
export interface UsageKeys {
  readonly usageCounter: string;
}

/**
 * The import history of a site, under the site's tag (see `history.ts`): three keys rather than
 * a key per record, so that a script declares them all and trims any number of records.
 *
 * | key                                        | type | holds                                          |
 * |--------------------------------------------|------|------------------------------------------------|
 * | `<prefix>:{<type>:<id>}:history:ids`       | zset | every record's id, all scored 0 (ZRANGEBYLEX) |
 * | `<prefix>:{<type>:<id>}:history:records`   | hash | id → the record's value                        |
 * | `<prefix>:{<type>:<id>}:history:problems`  | hash | id → the record's problem report               |
 */
export interface HistoryKeys {
  readonly historyIds: string;
  readonly historyRecords: string;
  readonly historyProblems: string;
}

/**
 * The delivery queue, one per store, under one tag of its own (see `deliveries.ts`). No site's
 * key can take these names: a site's tag always holds a `:`.
 *
 * | key                              | type | holds                                                       |
 * |----------------------------------|------|-------------------------------------------------------------|
 * | `<prefix>:{deliveries}:due`      | zset | the unleased deliveries (and those whose lease lapsed), scored by `dueAt` |
 * | `<prefix>:{deliveries}:leased`   | zset | the leased deliveries, scored by the end of their lease     |
 * | `<prefix>:{deliveries}:values`   | hash | id → the delivery's value, for every delivery held          |
 * | `<prefix>:{deliveries}:leases`   | hash | id → `"<dueAt> <lease end> <lease>"`, for a delivery claimed since it was last due |
 */
export interface DeliveryKeys {
  readonly deliveriesDue: string;
  readonly deliveriesLeased: string;
  readonly deliveryValues: string;
  readonly deliveryLeases: string;
}

/** Every key of a site a script may declare: the site's, an import's, an idempotency key's. */
export type SiteScriptKeys = ImportKeys & IncomingKeys & IdempotencyKeys;

/** Every key a script may declare, by name. */
export type ScriptKeys = SiteScriptKeys & TenantKeys & UsageKeys & HistoryKeys & DeliveryKeys;

/** The name of a key a script may declare. */
export type KeyName = keyof ScriptKeys;

/**
 * Fields of the products hash that hold the site's state rather than a product: the lock of the
 * import holding the site (`<token> <expiry ms>`), and the mark of a committed import still
 * merging. No product id can take them: ids hold no control characters. They live in the
 * products hash, not in keys of their own, because the one-call scripts must read them, and a
 * script that declares a key that does not exist is refused (TRYAGAIN) while its slot migrates.
 */
export const LOCK_FIELD = "\u0000lock";
export const MERGING_FIELD = "\u0000merging";

/**
 * A field of the site's sku-of hash (no product id can take it) saying that the site's id index
 * is known to hold every id of its products hash: set when an index is built whole (a publish in
 * place of the site or into an empty one, a rebuild), and kept by every write since, each of
 * which keeps the index. Sizes alone cannot tell: a writer that does not keep the index (a version
 * from before it) can remove one product and add another, leaving as many ids as products, one of
 * them stale and one missing. (What such a writer does after the mark is set, no O(1) check can
 * see; the README says how to have the next list rebuild.) It lives in the sku-of hash, which
 * every version reads field by field only, because the products hash's size is the site's size
 * to versions that know only the two fields above.
 */
export const INDEXED_FIELD = "\u0000indexed";

/** Whether a field of the products hash is one of the site's state fields rather than a product. */
export function isStateField(field: string): boolean {
  return field === LOCK_FIELD || field === MERGING_FIELD;
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

/** The keys of `site` under a prefix already checked by `checkKeyPrefix`. */
export function siteKeys(prefix: string, site: Site): SiteKeys {
  const base = `${prefix}{${escapeSitePart(site.siteType)}:${escapeSitePart(site.siteId)}}:`;
  return {
    products: `${base}products`,
    skus: `${base}skus`,
    skuOf: `${base}sku-of`,
    ids: `${base}ids`,
    mergingProducts: `${base}merging:products`,
    mergingSkus: `${base}merging:skus`,
    mergingSkuOf: `${base}merging:sku-of`,
    mergingIds: `${base}merging:ids`,
  };
}

/**
 * `siteKeys` under `prefix`, the last site's remembered: a merge looks up a product per record,
 * all of one site, and a site's keys are nine strings to build.
 */
export function lastSiteKeys(prefix: string): (site: Site) => SiteKeys {
  let last: { readonly siteType: string; readonly siteId: string; readonly keys: SiteKeys } | undefined;
  return (site) => {
    if (last === undefined || last.siteType !== site.siteType || last.siteId !== site.siteId) {
      last = { siteType: site.siteType, siteId: site.siteId, keys: siteKeys(prefix, site) };
    }
    return last.keys;
  };
}

/** `keys` with the staging keys of the import holding `token`. */
export function importKeys(keys: SiteKeys, token: string): ImportKeys {
  const stage = `${keys.products.slice(0, -"products".length)}stage:${token}:`;
  return {
    ...keys,
    stageProducts: `${stage}products`,
    stageSkus: `${stage}skus`,
    stageSkuOf: `${stage}sku-of`,
    stageIds: `${stage}ids`,
  };
}

/** `keys` with those of the `beginImport` import holding `token`. */
export function incomingKeys(keys: SiteKeys, token: string): SiteKeys & IncomingKeys {
  const incoming = `${keys.products.slice(0, -"products".length)}in:${token}:`;
  return {
    ...keys,
    inProducts: `${incoming}products`,
    inSkuOf: `${incoming}sku-of`,
    inSkus: `${incoming}skus`,
    inIds: `${incoming}ids`,
    inPositions: `${incoming}pos`,
    inSpans: `${incoming}spans`,
    inBases: `${incoming}bases`,
  };
}

/**
 * The keys of idempotency key `key` in the site of `keys`. A commit without a key still declares
 * them (named by the empty key, which no key is), and its script leaves them alone.
 */
export function idempotencyKeys(keys: SiteKeys, key = ""): IdempotencyKeys {
  const base = `${keys.products.slice(0, -"products".length)}idem:${Buffer.from(key, "utf8").toString("hex")}:`;
  return { keyRecord: `${base}record`, keyClaim: `${base}claim` };
}

/** The keys of the tenants registry under a prefix already checked by `checkKeyPrefix`. */
export function tenantKeys(prefix: string): TenantKeys {
  return { tenants: `${prefix}{tenants}:entries`, tenantsVersion: `${prefix}{tenants}:version` };
}

/** The key of the usage counter `key` under a prefix already checked by `checkKeyPrefix`. */
export function usageKeys(prefix: string, key: string): UsageKeys {
  return { usageCounter: `${prefix}{usage:${escapeSitePart(key)}}` };
}

/** The import history keys of the site of `keys`. */
export function historyKeys(keys: SiteKeys): HistoryKeys {
  const base = `${keys.products.slice(0, -"products".length)}history:`;
  return { historyIds: `${base}ids`, historyRecords: `${base}records`, historyProblems: `${base}problems` };
}

/** The keys of the delivery queue under a prefix already checked by `checkKeyPrefix`. */
export function deliveryKeys(prefix: string): DeliveryKeys {
  const base = `${prefix}{deliveries}:`;
  return {
    deliveriesDue: `${base}due`,
    deliveriesLeased: `${base}leased`,
    deliveryValues: `${base}values`,
    deliveryLeases: `${base}leases`,
  };
}
