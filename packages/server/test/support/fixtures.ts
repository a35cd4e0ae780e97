// What the server's tests serve: a site, a token that covers every site, and valid products.
import type { Site } from "@catalog-kit/catalog-core";

export const SITE_A: Site = { siteId: "shop-a", siteType: "shopify" };
export const SITES: readonly Site[] = [SITE_A, { siteId: "shop-b", siteType: "shopify" }];
export const ADMIN_TOKEN = "admin-secret-token";

/** A valid product with every required field; `extra` overrides or adds fields. */
export function product(id: string, sku = `SKU-${id}`, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    sku,
    title: `Product ${id}`,
    available: true,
    featured_image: `https://img.example/${encodeURIComponent(id)}.jpg`,
    url: `https://shop.example/p/${encodeURIComponent(id)}`,
    ...extra,
  };
}
