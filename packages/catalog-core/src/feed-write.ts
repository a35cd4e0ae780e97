// Writing products as a Google Merchant Center or Meta product feed (TSV), one item a product, so
// that the catalog can be listed on either platform and a feed it writes imports back whole.
import { plainNumber } from "./csv-write.ts";
import type { Product } from "./product.ts";

/** The platforms a feed is written for: they differ only in how availability is spelled. */
export type FeedPlatformName = "google" | "meta";

/** The columns of a written feed, in order. */
export const FEED_COLUMNS = [
  "id",
  "item_group_id",
  "title",
  "description",
  "link",
  "image_link",
  "additional_image_link",
  "availability",
  "price",
] as const;

/** The header line of a written feed, without its line end. */
export const FEED_HEADER: string = FEED_COLUMNS.join("\t");

const AVAILABILITY: Record<FeedPlatformName, readonly [string, string]> = {
  google: ["in_stock", "out_of_stock"],
  meta: ["in stock", "out of stock"],
};

// Google's TSV has no quoting unless the feed's settings turn it on: a tab, CR or LF would end the
// cell or the item, so each is written as a space.
function tsvCell(text: string): string {
  return text.replace(/[\t\r\n]/g, " ");
}

/** A price as feeds write it: two decimals at least (`15.00`), every digit the number has beyond. */
export function feedAmount(price: number): string {
  const text = plainNumber(price);
  const point = text.indexOf(".");
  if (point === -1) return `${text}.00`;
  return text.length - point - 1 < 2 ? text.padEnd(point + 3, "0") : text;
}

/**
 * A product as one feed item (TSV, without its line end): `id` is its sku, `item_group_id` its id,
 * `image_link` its featured image and `additional_image_link` the others, comma-separated; the
 * price is in `currency`. `price_min` and `price_max` have no feed attribute and are not written.
 */
export function feedLine(product: Product, platform: FeedPlatformName, currency: string): string {
  const [inStock, outOfStock] = AVAILABILITY[platform];
  const others = (product.images ?? []).filter((image) => image !== product.featured_image);
  const cells: Record<(typeof FEED_COLUMNS)[number], string> = {
    id: product.sku,
    item_group_id: product.id,
    title: product.title,
    description: product.description ?? "",
    link: product.url,
    image_link: product.featured_image,
    // A comma separates the URLs: one inside a URL is written as its percent-encoding.
    additional_image_link: [...new Set(others)].map((image) => image.replaceAll(",", "%2C")).join(","),
    availability: product.available ? inStock : outOfStock,
    price: product.price === undefined ? "" : `${feedAmount(product.price)} ${currency.toUpperCase()}`,
  };
  return FEED_COLUMNS.map((column) => tsvCell(cells[column])).join("\t");
}
