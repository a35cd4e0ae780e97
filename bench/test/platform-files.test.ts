import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { createCatalog, type Site } from "@catalog-kit/catalog-core";
import { describe, expect, test } from "vitest";
import { SEED } from "../body.ts";
import { generateProducts } from "../data.ts";
import { CURRENCY, GOOGLE_RSS_FILE } from "../stream/google-rss-file.ts";
import { nothingProduced, type PlatformFile, platformBody } from "../stream/platform-body.ts";
import { SHOP_URL, SHOPIFY_FILE } from "../stream/shopify-file.ts";

const site: Site = { siteType: "bench", siteId: "shop-1" };

async function collect(file: PlatformFile, shape: { maxBytes?: number; maxProducts?: number }) {
  const produced = nothingProduced();
  const chunks: Buffer[] = [];
  for await (const chunk of platformBody(file, produced, shape)) chunks.push(chunk);
  return { produced, text: Buffer.concat(chunks).toString("utf8") };
}

describe("platform files of the streamed-import scenario", () => {
  test.each([SHOPIFY_FILE, GOOGLE_RSS_FILE])(
    "$label: whole products within the budget, three records each",
    async (file) => {
      const maxBytes = 300_000;
      const { produced, text } = await collect(file, { maxBytes });
      expect(produced.bytes).toBe(Buffer.byteLength(text));
      expect(produced.bytes).toBeLessThanOrEqual(maxBytes);
      // Another product would not have fitted: a product's records are a few kB at most.
      expect(produced.bytes).toBeGreaterThan(maxBytes - 5_000);
      expect(produced.rows).toBe(produced.products * 3);
      expect(text.endsWith(file.tail)).toBe(true);
    },
  );

  test("the Shopify CSV imports one product a handle, as the bench's products", async () => {
    const count = 250;
    const { text } = await collect(SHOPIFY_FILE, { maxProducts: count });
    const store = createMemoryStore();
    const catalog = createCatalog({ store, sites: [site] });
    const summary = await catalog.importStream(site, [text], { format: "csv", ...SHOPIFY_FILE.query });
    expect(summary).toMatchObject({ total: count, created: count, profile: "shopify" });
    for (const product of generateProducts(count, SEED)) {
      const handle = product.url.slice(product.url.lastIndexOf("/") + 1);
      const stored = await store.find(site, handle, "id");
      expect(stored).toMatchObject({
        sku: `${product.sku}-1`,
        title: product.title,
        price: product.price,
        available: product.available,
        url: `${SHOP_URL}/products/${handle}`,
      });
      expect(stored?.images).toHaveLength(3);
      expect(stored?.featured_image).toBe(product.images?.[0]);
    }
  });

  test("the Google RSS feed imports one product a group of three items, as the bench's products", async () => {
    const count = 100;
    const { text } = await collect(GOOGLE_RSS_FILE, { maxProducts: count });
    const store = createMemoryStore();
    const catalog = createCatalog({ store, sites: [site] });
    const summary = await catalog.importStream(site, [text], { format: "xml", ...GOOGLE_RSS_FILE.query });
    expect(summary).toMatchObject({ total: count, created: count, profile: "google" });
    expect(GOOGLE_RSS_FILE.query.currency).toBe(CURRENCY);
    for (const product of generateProducts(count, SEED)) {
      const stored = await store.find(site, product.id, "id");
      expect(stored).toMatchObject({
        sku: `${product.sku}-S`,
        description: product.description,
        price: product.price,
        available: true,
        url: `${product.url}?variant=1`,
      });
      expect(stored?.title).toBe(`${product.title} - S`);
      expect(stored?.images).toHaveLength(3);
    }
  });
});
