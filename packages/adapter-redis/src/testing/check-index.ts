// Consistency checks of one site's Redis keys, for tests, the bench's fault runs, and operators
// who want to verify a site after an incident: they read only, and never need the store.
import { decodeProduct, type Site } from "@catalog-kit/catalog-core";
import type { Cluster, Redis } from "ioredis";
import { checkKeyPrefix, INDEXED_FIELD, isStateField, MERGING_FIELD, type SiteKeys, siteKeys } from "../keys.ts";

/** Fields (members) per HSCAN (ZSCAN) call: about a megabyte of products of 850 bytes. */
const PAGE = 1_000;

// A whole hash, a page per HSCAN. HGETALL would block Redis for as long as it takes to copy the
// hash into one reply (210 ms for 50,000 products), and hold that reply in Redis's memory.
async function hashOf(client: Redis | Cluster, key: string): Promise<Record<string, string>> {
  // Without a prototype, a field named like one of Object's is read as any other.
  const hash: Record<string, string> = Object.create(null);
  let cursor = "0";
  do {
    const [next, flat] = await client.hscan(key, cursor, "COUNT", PAGE);
    for (let i = 0; i < flat.length; i += 2) hash[flat[i] as string] = flat[i + 1] as string;
    cursor = next;
  } while (cursor !== "0");
  return hash;
}

// A whole sorted set, member → score, a page per ZSCAN (a member found twice is kept once).
async function zsetOf(client: Redis | Cluster, key: string): Promise<Map<string, string>> {
  const zset = new Map<string, string>();
  let cursor = "0";
  do {
    const [next, flat] = await client.zscan(key, cursor, "COUNT", PAGE);
    for (let i = 0; i < flat.length; i += 2) zset.set(flat[i] as string, flat[i + 1] as string);
    cursor = next;
  } while (cursor !== "0");
  return zset;
}

/**
 * Walks every product and every index entry of a site and lists what disagrees: each sku entry
 * must point to a product holding that sku, each product's sku entry must point back, the
 * id → sku hash must match, the id index must hold exactly the product ids (all scored 0, as
 * ZRANGEBYLEX needs), and nothing may be left merging. An empty list means consistent.
 * `keyPrefix` is the store's (`"catalog"` unless configured); it reads only, with any client,
 * in pages (HSCAN, ZSCAN) so that no command blocks a live Redis for long. A site written while
 * it runs may show disagreements that are only writes in flight: run it again to tell.
 * A site written before the id index existed lacks it until its first list rebuilds it.
 */
export async function checkIndex(client: Redis | Cluster, keyPrefix: string, site: Site): Promise<string[]> {
  const keys = siteKeys(checkKeyPrefix(keyPrefix), site);
  // One key per command: a Cluster refuses multi-key commands while the site's slot migrates.
  const [stored, skus, skuOf, index, ...merging] = await Promise.all([
    hashOf(client, keys.products),
    hashOf(client, keys.skus),
    hashOf(client, keys.skuOf),
    zsetOf(client, keys.ids),
    ...[keys.mergingProducts, keys.mergingSkus, keys.mergingSkuOf, keys.mergingIds].map((key) => client.exists(key)),
  ]);
  const indexed = [...index.keys()];
  const scored = [...index.values()].filter((score) => score === "0").length;
  const problems: string[] = [];
  if (merging.some((n) => n > 0) || stored[MERGING_FIELD] !== undefined) problems.push("a merge is unfinished");
  // The lock is the site's state, not a product (an expired one may stay until the next import).
  const products = withoutState(stored);
  for (const [id, json] of Object.entries(products)) {
    const product = decodeProduct(json);
    if (product.id !== id) problems.push(`product ${id} holds id ${product.id}`);
    if (skus[product.sku] !== id) problems.push(`product ${id}'s sku ${product.sku} points to ${skus[product.sku]}`);
    if (skuOf[id] !== product.sku) problems.push(`sku-of ${id} is ${skuOf[id]}, the product has ${product.sku}`);
  }
  for (const [sku, id] of Object.entries(skus)) {
    const json = products[id];
    if (json === undefined) problems.push(`sku ${sku} points to missing product ${id}`);
    else if (decodeProduct(json).sku !== sku)
      problems.push(`sku ${sku} points to ${id}, which holds ${decodeProduct(json).sku}`);
  }
  // The mark of a whole id index is the site's state, not a product's sku.
  delete skuOf[INDEXED_FIELD];
  for (const id of Object.keys(skuOf))
    if (products[id] === undefined) problems.push(`sku-of has missing product ${id}`);
  const inIndex = new Set(indexed);
  for (const id of indexed) if (products[id] === undefined) problems.push(`the id index has missing product ${id}`);
  for (const id of Object.keys(products)) if (!inIndex.has(id)) problems.push(`the id index lacks product ${id}`);
  if (scored !== indexed.length) problems.push(`${indexed.length - scored} ids of the index are not scored 0`);
  return problems;
}

function withoutState(hash: Record<string, string>): Record<string, string> {
  for (const field of Object.keys(hash)) if (isStateField(field)) delete hash[field];
  return hash;
}

/** id → canonical JSON of every product a site holds, its state fields left out. */
export async function storedProducts(client: Redis | Cluster, keys: SiteKeys): Promise<Record<string, string>> {
  return withoutState(await client.hgetall(keys.products));
}

/** The ids of the products a site holds (its products hash also holds the site's state fields). */
export async function productIds(client: Redis | Cluster, keys: SiteKeys): Promise<string[]> {
  return (await client.hkeys(keys.products)).filter((field) => !isStateField(field));
}
