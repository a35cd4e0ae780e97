import { encodeProduct, type Product } from "@catalog-kit/catalog-core";
import type { Redis } from "ioredis";
import { MERGING_FIELD, type SiteKeys } from "../../src/keys.ts";

/** Leaves `batch` as a commit publishes it beside a site (its merging keys and the site's mark), never merged. */
export async function leaveMerging(admin: Redis, keys: SiteKeys, batch: readonly Product[]): Promise<void> {
  for (const p of batch) {
    await admin.hset(keys.mergingProducts, p.id, encodeProduct(p));
    await admin.hset(keys.mergingSkus, p.sku, p.id);
    await admin.hset(keys.mergingSkuOf, p.id, p.sku);
    await admin.zadd(keys.mergingIds, 0, p.id);
  }
  await admin.hset(keys.products, MERGING_FIELD, "1");
}
