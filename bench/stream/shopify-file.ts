// The bench's products as a Shopify product CSV in the legacy header set, three rows a product as
// Shopify exports a product of two variants and three images: the first row carries the product's
// columns, its first variant and first image; the second its other variant and second image; the
// third only the handle and an image. Columns Shopify writes that the profile ignores (vendor,
// tags, grams...) are filled too, since the server reads and drops them on every row.
import type { Product } from "@catalog-kit/catalog-core";
import type { PlatformFile } from "./platform-body.ts";

/** The shop the profile makes each product's page under. */
export const SHOP_URL = "https://shop.example";

const COLUMNS = [
  "Handle",
  "Title",
  "Body (HTML)",
  "Vendor",
  "Type",
  "Tags",
  "Published",
  "Option1 Name",
  "Option1 Value",
  "Variant SKU",
  "Variant Grams",
  "Variant Inventory Tracker",
  "Variant Inventory Qty",
  "Variant Inventory Policy",
  "Variant Fulfillment Service",
  "Variant Price",
  "Variant Compare At Price",
  "Variant Requires Shipping",
  "Variant Taxable",
  "Image Src",
  "Image Position",
  "Status",
] as const;

type Column = (typeof COLUMNS)[number];

const VENDORS = ["Northwind Apparel", "Fjällräven & Co", "Atelier Ōsaka", "Harbor Goods", "Maison Lumière"];
const TYPES = ["Tops", "Outerwear", "Bags", "Footwear", "Accessories"];
const SIZES = ["XS", "S", "M", "L", "XL"];
const TAGS = ["new-arrival", "summer", "bestseller", "sustainable", "gift", "sale"];

function cell(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function row(cells: Partial<Record<Column, string>>): string {
  return `${COLUMNS.map((column) => cell(cells[column] ?? "")).join(",")}\n`;
}

/** Shopify writes the description as HTML: a paragraph a line. */
function html(description: string): string {
  return `<p>${description.split("\n").join("</p>\n<p>")}</p>`;
}

/** The handle the bench product's page names (`.../products/<handle>`). */
function handleOf(product: Product): string {
  return product.url.slice(product.url.lastIndexOf("/") + 1);
}

/** Three images: the product's, then made in its pattern when it has fewer. */
function imagesOf(product: Product): readonly [string, string, string] {
  const at = (k: number) => product.images?.[k] ?? product.featured_image.replace(/-1\.jpg/, `-${k + 1}.jpg`);
  return [at(0), at(1), at(2)];
}

/** A variant's columns: sold out (tracked, none left, orders denied) when the product is unavailable. */
function variant(product: Product, index: number, k: number, price: number): Partial<Record<Column, string>> {
  return {
    "Option1 Value": SIZES[(index + k) % SIZES.length] as string,
    "Variant SKU": `${product.sku}-${k + 1}`,
    "Variant Grams": String(180 + ((index * 37 + k * 11) % 900)),
    "Variant Inventory Tracker": "shopify",
    "Variant Inventory Qty": product.available ? String(1 + ((index + k * 7) % 60)) : "0",
    "Variant Inventory Policy": "deny",
    "Variant Fulfillment Service": "manual",
    "Variant Price": price.toFixed(2),
    "Variant Compare At Price": index % 4 === 0 ? (price * 1.25).toFixed(2) : "",
    "Variant Requires Shipping": "TRUE",
    "Variant Taxable": "TRUE",
  };
}

function records(product: Product, index: number): readonly string[] {
  const handle = handleOf(product);
  const [first, second, third] = imagesOf(product);
  const price = product.price ?? 0;
  const tags = [TAGS[index % TAGS.length], TAGS[(index + 2) % TAGS.length], handle.split("-")[0]].join(", ");
  return [
    row({
      Handle: handle,
      Title: product.title,
      "Body (HTML)": html(product.description ?? ""),
      Vendor: VENDORS[index % VENDORS.length] as string,
      Type: TYPES[index % TYPES.length] as string,
      Tags: tags,
      Published: "TRUE",
      "Option1 Name": "Size",
      ...variant(product, index, 0, price),
      "Image Src": first,
      "Image Position": "1",
      Status: "active",
    }),
    row({
      Handle: handle,
      ...variant(product, index, 1, product.price_max ?? price),
      "Image Src": second,
      "Image Position": "2",
    }),
    row({ Handle: handle, "Image Src": third, "Image Position": "3" }),
  ];
}

/** The Shopify CSV of the bench's products, for `profile=shopify`. */
export const SHOPIFY_FILE: PlatformFile = {
  label: "Shopify CSV",
  contentType: "text/csv",
  query: { profile: "shopify", shopUrl: SHOP_URL },
  head: `${COLUMNS.join(",")}\n`,
  tail: "",
  records,
};
