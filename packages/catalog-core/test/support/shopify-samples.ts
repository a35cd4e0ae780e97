// Two files shaped exactly as Shopify's exports, one a header set, and the products they hold.
import { CURRENT_HEADER, LEGACY_HEADER, shopifyCsv } from "./shopify-files.ts";

/** The shop's address, with a trailing slash the product pages must not repeat. */
export const SHOP = "https://shop.example/";
/** Where Shopify keeps a shop's images. */
export const CDN = "https://cdn.shopify.com/s/files/1/0001/files/";

/**
 * The legacy header's file. Hoodie: three variants over three rows (the first carries the product's
 * columns, its description spans two lines) and two image-only rows, positions out of file order.
 * Then single-variant products: a draft, one sold out (deny at 0), one unpublished without SKU, one
 * sold out written in capitals.
 */
export const LEGACY_CSV = shopifyCsv(LEGACY_HEADER, [
  {
    Handle: "hoodie",
    Title: "Zip Hoodie",
    "Body (HTML)": "<p>Warm.</p>\n<p>Soft.</p>",
    Vendor: "Acme",
    "Product Category": "Apparel & Accessories > Clothing",
    Type: "Hoodies",
    Tags: "winter, cotton",
    Published: "TRUE",
    "Option1 Name": "Size",
    "Option1 Value": "S",
    "Option2 Name": "Color",
    "Option2 Value": "Grey",
    "Variant SKU": "HOOD-S",
    "Variant Grams": "500",
    "Variant Inventory Tracker": "shopify",
    "Variant Inventory Qty": "5",
    "Variant Inventory Policy": "deny",
    "Variant Fulfillment Service": "manual",
    "Variant Price": "40.00",
    "Variant Compare At Price": "50.00",
    "Variant Requires Shipping": "TRUE",
    "Variant Taxable": "TRUE",
    "Image Src": `${CDN}hoodie-back.jpg`,
    "Image Position": "2",
    "Image Alt Text": "Back",
    "Gift Card": "FALSE",
    "Variant Image": `${CDN}hoodie-s.jpg`,
    "Variant Weight Unit": "kg",
    "Included / United States": "TRUE",
    Status: "active",
  },
  {
    Handle: "hoodie",
    "Option1 Value": "M",
    "Option2 Value": "Grey",
    "Variant SKU": "HOOD-M",
    "Variant Inventory Tracker": "shopify",
    "Variant Inventory Qty": "0",
    "Variant Inventory Policy": "continue",
    "Variant Price": "42.00",
    "Image Src": `${CDN}hoodie-front.jpg`,
    "Image Position": "1",
    "Variant Image": `${CDN}hoodie-m.jpg`,
  },
  {
    Handle: "hoodie",
    "Option1 Value": "L",
    "Option2 Value": "Grey",
    "Variant SKU": "HOOD-L",
    "Variant Inventory Tracker": "shopify",
    "Variant Inventory Qty": "0",
    "Variant Inventory Policy": "deny",
    "Variant Price": "45.00",
    "Variant Image": `${CDN}hoodie-s.jpg`,
  },
  { Handle: "hoodie", "Image Src": `${CDN}hoodie-side.jpg`, "Image Position": "4", "Image Alt Text": "Side" },
  { Handle: "hoodie", "Image Src": `${CDN}hoodie-detail.jpg`, "Image Position": "3" },
  ...[
    ["mug", "Mug", "MUG-1", "3", "deny", "12.50", "TRUE", "draft"],
    ["cap", "Cap", "CAP-1", "0", "deny", "15.00", "TRUE", "active"],
    ["scarf", "Scarf", "", "", "deny", "9.99", "FALSE", "active"],
    ["beanie", "Beanie", "BEA-1", "-2", "DENY", "20.00", "", "Active"],
  ].map(([handle, title, sku, quantity, policy, price, published, status]) => ({
    Handle: handle as string,
    Title: title as string,
    Published: published as string,
    "Option1 Name": "Title",
    "Option1 Value": "Default Title",
    "Variant SKU": sku as string,
    "Variant Inventory Tracker": quantity === "" ? "" : handle === "beanie" ? "Shopify" : "shopify",
    "Variant Inventory Qty": quantity as string,
    "Variant Inventory Policy": policy as string,
    "Variant Price": price as string,
    "Image Src": `${CDN}${handle}.jpg`,
    "Image Position": "1",
    Status: status as string,
  })),
]);

/** The hoodie of `LEGACY_CSV`, one product of its three variants. */
export const hoodie = {
  id: "hoodie",
  sku: "HOOD-S",
  title: "Zip Hoodie",
  description: "<p>Warm.</p>\n<p>Soft.</p>",
  price: 40,
  price_min: 40,
  price_max: 45,
  available: true,
  images: ["front", "back", "detail", "side", "s", "m"].map((name) => `${CDN}hoodie-${name}.jpg`),
  featured_image: `${CDN}hoodie-front.jpg`,
  url: "https://shop.example/products/hoodie",
};

/** A single-variant product of the samples, unavailable, with one image. */
export function single(handle: string, title: string, sku: string, price: number) {
  const image = `${CDN}${handle}.jpg`;
  const url = `https://shop.example/products/${handle}`;
  return { id: handle, sku, title, price, available: false, images: [image], featured_image: image, url };
}

/**
 * The current header's file, prices written with a decimal comma. Linen shirt: a variant sold out
 * and denied ("Continue selling" FALSE), one continuing at 0, an image-only row; an archived tote;
 * a pin not published.
 */
export const CURRENT_CSV = shopifyCsv(CURRENT_HEADER, [
  {
    Title: "Linen Shirt",
    "URL handle": "linen-shirt",
    Description: "<p>Light.</p>",
    Vendor: "Acme",
    "Published on online store": "TRUE",
    Status: "Active",
    SKU: "SHIRT-S",
    "Option1 name": "Size",
    "Option1 value": "S",
    Price: "39,90",
    "Price / International": "45,00",
    "Compare-at price": "49,90",
    "Charge tax": "TRUE",
    "Inventory tracker": "shopify",
    "Inventory quantity": "0",
    "Continue selling when out of stock": "FALSE",
    "Weight value (grams)": "200",
    "Weight unit for display": "g",
    "Requires shipping": "TRUE",
    "Fulfillment service": "manual",
    "Product image URL": `${CDN}shirt-1.jpg`,
    "Image position": "1",
    "Variant image URL": `${CDN}shirt-s.jpg`,
    "Gift card": "FALSE",
    "Included / International": "TRUE",
  },
  {
    "URL handle": "linen-shirt",
    SKU: "SHIRT-M",
    "Option1 value": "M",
    Price: "41,50",
    "Inventory tracker": "shopify",
    "Inventory quantity": "0",
    "Continue selling when out of stock": "TRUE",
    "Variant image URL": `${CDN}shirt-m.jpg`,
  },
  { "URL handle": "linen-shirt", "Product image URL": `${CDN}shirt-2.jpg`, "Image position": "2" },
  ...[
    ["tote", "Tote", "TOTE-1", "10,00", "TRUE", "Archived"],
    ["pin", "Pin", "PIN-1", "3,5", "FALSE", "active"],
  ].map(([handle, title, sku, price, published, status]) => ({
    Title: title as string,
    "URL handle": handle as string,
    "Published on online store": published as string,
    Status: status as string,
    SKU: sku as string,
    "Option1 name": "Title",
    "Option1 value": "Default Title",
    Price: price as string,
    "Product image URL": `${CDN}${handle}.jpg`,
    "Image position": "1",
  })),
]);
