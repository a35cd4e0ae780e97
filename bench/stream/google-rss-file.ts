// The bench's products as a Google Merchant Center RSS 2.0 feed: three items a product, its
// variants, sharing `g:item_group_id`, laid out as Google's example feed writes them. Attributes
// the profile ignores (brand, condition, gtin) are written too: the server reads and drops them.
import type { Product } from "@catalog-kit/catalog-core";
import type { PlatformFile } from "./platform-body.ts";

/** The currency of the feed's prices, and of the import. */
export const CURRENCY = "USD";

const BRANDS = ["Northwind Apparel", "Fjällräven & Co", "Atelier Ōsaka", "Harbor Goods", "Maison Lumière"];
const SIZES = ["S", "M", "L"];

const ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };

function text(value: string): string {
  return value.replace(/[&<>"]/g, (c) => ESCAPES[c] as string);
}

/** A GTIN-13 with its check digit, unique to the product's variant. */
function gtin(index: number, k: number): string {
  const digits = `400${String(index * 3 + k).padStart(9, "0")}`;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(digits[i]) * (i % 2 === 0 ? 1 : 3);
  return `${digits}${(10 - (sum % 10)) % 10}`;
}

/** Three images: the product's, then made in its pattern when it has fewer. */
function imagesOf(product: Product): readonly string[] {
  return [0, 1, 2].map((k) => product.images?.[k] ?? product.featured_image.replace(/-1\.jpg/, `-${k + 1}.jpg`));
}

function records(product: Product, index: number): readonly string[] {
  const images = imagesOf(product).map(text);
  const prices = [product.price ?? 0, product.price ?? 0, product.price_max ?? product.price ?? 0];
  const title = text(product.title);
  const description = text(product.description ?? "");
  const brand = text(BRANDS[index % BRANDS.length] as string);
  return [0, 1, 2].map(
    (k) =>
      `    <item>
      <g:id>${text(product.sku)}-${SIZES[k]}</g:id>
      <g:item_group_id>${text(product.id)}</g:item_group_id>
      <title>${title} - ${SIZES[k]}</title>
      <description>${description}</description>
      <link>${text(product.url)}?variant=${k + 1}</link>
      <g:image_link>${images[k]}</g:image_link>
      <g:additional_image_link>${images[(k + 1) % 3]}</g:additional_image_link>
      <g:additional_image_link>${images[(k + 2) % 3]}</g:additional_image_link>
      <g:availability>${product.available || k === 0 ? "in_stock" : "out_of_stock"}</g:availability>
      <g:price>${(prices[k] as number).toFixed(2)} ${CURRENCY}</g:price>
      <g:brand>${brand}</g:brand>
      <g:condition>new</g:condition>
      <g:gtin>${gtin(index, k)}</g:gtin>
    </item>
`,
  );
}

/** The RSS feed of the bench's products, for `profile=google`. */
export const GOOGLE_RSS_FILE: PlatformFile = {
  label: "Google Merchant Center RSS feed",
  contentType: "application/xml",
  query: { profile: "google", currency: CURRENCY },
  head: `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0">
  <channel>
    <title>Bench shop</title>
    <link>https://shop.example</link>
    <description>Every product of the bench's shop</description>
`,
  tail: "  </channel>\n</rss>\n",
  records,
};
