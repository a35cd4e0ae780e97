// Small files shaped as each platform writes them, and the products the catalog must hold after
// importing them, for the profile clauses. Kept small: every store runs them.
import type { Product } from "../product.ts";

/** The shop the files come from, given as `shopUrl`. */
export const SHOP = "https://shop.example";
const CDN = "https://cdn.example/";

const lines = (rows: readonly string[]) => `${rows.join("\r\n")}\r\n`;

/**
 * A Shopify export with the legacy header: a tee of three variants (one sold out), its images
 * given out of position order, a variant image and an image-only row; then a one-variant mug.
 * The title holds a two-byte character, so that byte chunks can cut through it.
 */
export const SHOPIFY_CSV = lines([
  "Handle,Title,Body (HTML),Vendor,Published,Option1 Name,Option1 Value,Variant SKU,Variant Inventory Tracker,Variant Inventory Qty,Variant Inventory Policy,Variant Price,Image Src,Image Position,Variant Image,Status",
  `tee,Tée,"<p>Soft, warm</p>",Acme,TRUE,Size,S,TEE-S,shopify,3,deny,10.00,${CDN}tee-back.jpg,2,${CDN}tee-s.jpg,active`,
  `tee,,,,,,M,TEE-M,shopify,0,continue,12.50,${CDN}tee-front.jpg,1,,`,
  `tee,,,,,,L,TEE-L,shopify,0,deny,14.00,,,${CDN}tee-s.jpg,`,
  `tee,,,,,,,,,,,,${CDN}tee-detail.jpg,3,,`,
  `mug,Mug,,Acme,TRUE,Title,Default Title,MUG-1,,,deny,8.50,${CDN}mug.jpg,1,,active`,
]);

/** The columns of `SHOPIFY_CSV` that are Shopify's own, in the order of its header. */
export const SHOPIFY_IGNORED = ["Vendor", "Option1 Name"];

/** The products of `SHOPIFY_CSV`, in id order. */
export const SHOPIFY_PRODUCTS: readonly Product[] = [
  {
    id: "mug",
    sku: "MUG-1",
    title: "Mug",
    price: 8.5,
    available: true,
    images: [`${CDN}mug.jpg`],
    featured_image: `${CDN}mug.jpg`,
    url: `${SHOP}/products/mug`,
  },
  {
    id: "tee",
    sku: "TEE-S",
    title: "Tée",
    description: "<p>Soft, warm</p>",
    price: 10,
    price_min: 10,
    price_max: 14,
    available: true,
    images: ["front", "back", "detail", "s"].map((name) => `${CDN}tee-${name}.jpg`),
    featured_image: `${CDN}tee-front.jpg`,
    url: `${SHOP}/products/tee`,
  },
];

/** `SHOPIFY_CSV` with the mug's price written with a decimal comma: read with ".", it is a problem. */
export const SHOPIFY_BAD_PRICE = SHOPIFY_CSV.replace("8.50", '"8,50"');

/** A Shopify file whose tee rows are split by the mug's: the tee is one product, so this is a problem. */
export const SHOPIFY_SPLIT = lines([
  "Handle,Title,Variant SKU,Variant Price,Image Src",
  `tee,Tee,TEE-S,10.00,${CDN}tee.jpg`,
  `mug,Mug,MUG-1,8.50,${CDN}mug.jpg`,
  "tee,,TEE-M,12.00,",
]);

/**
 * A WooCommerce export: a hoodie's variation written before its parent (named `id:10`), a simple
 * cap between them, and a variation after the parent naming it by its SKU.
 */
export const WOOCOMMERCE_CSV = lines([
  "ID,Type,SKU,Name,Published,Description,In stock?,Sale price,Regular price,Images,Parent,Attribute 1 name,Attribute 1 value(s)",
  `11,variation,HOOD-S,,1,,1,,30,${SHOP}/img/hood-s.jpg,id:10,Size,S`,
  `20,simple,CAP,Cap,1,A cap\\nwith a brim,0,,9.5,${SHOP}/img/cap.jpg,,,`,
  `10,variable,HOOD,Hoodie,1,Warm,,,,"${SHOP}/img/hood.jpg, ${SHOP}/img/hood-back.jpg",,Size,"S, M"`,
  `12,variation,HOOD-M,,1,,1,28,32,${SHOP}/img/hood-m.jpg,HOOD,Size,M`,
]);

/** The products of `WOOCOMMERCE_CSV`, in id order. */
export const WOOCOMMERCE_PRODUCTS: readonly Product[] = [
  {
    id: "10",
    sku: "HOOD-S",
    title: "Hoodie",
    description: "Warm",
    price: 30,
    price_min: 28,
    price_max: 30,
    available: true,
    images: ["hood", "hood-back", "hood-s", "hood-m"].map((name) => `${SHOP}/img/${name}.jpg`),
    featured_image: `${SHOP}/img/hood.jpg`,
    url: `${SHOP}/?p=10`,
  },
  {
    id: "20",
    sku: "CAP",
    title: "Cap",
    description: "A cap\nwith a brim",
    price: 9.5,
    available: false,
    images: [`${SHOP}/img/cap.jpg`],
    featured_image: `${SHOP}/img/cap.jpg`,
    url: `${SHOP}/?p=20`,
  },
];

const tsv = (rows: readonly (readonly string[])[]) => `${rows.map((cells) => cells.join("\t")).join("\n")}\n`;

/** A Merchant Center TSV feed: a shirt's two sizes tied by `item_group_id`, and a mug without a group. */
export const GOOGLE_TSV = tsv([
  ["id", "title", "description", "link", "image_link", "additional_image_link", "availability", "price"].concat([
    "item_group_id",
    "brand",
  ]),
  ["SHIRT-S", "Shirt S", "A shirt", `${SHOP}/shirt?s`, `${SHOP}/img/shirt-s.jpg`].concat([
    `${SHOP}/img/shirt-back.jpg,${SHOP}/img/shirt-side.jpg`,
    "in_stock",
    "15.00 USD",
    "SHIRT",
    "Acme",
  ]),
  ["SHIRT-M", "Shirt M", "A shirt", `${SHOP}/shirt?m`, `${SHOP}/img/shirt-m.jpg`].concat([
    "",
    "out of stock",
    "17.50 USD",
    "SHIRT",
    "Acme",
  ]),
  ["MUG", "Mug", "", `${SHOP}/mug`, `${SHOP}/img/mug.jpg`, "", "out_of_stock", "8.00", "", "Acme"],
]);

const xmlText = (text: string) => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;");

// The items of `GOOGLE_TSV`, each cell an element (`g:` for Google's attributes, RSS's own for
// title, link and description); additional images as repeated elements.
function feedItems(entry: string, link: (url: string) => string): string {
  const [header, ...rows] = GOOGLE_TSV.trimEnd()
    .split("\n")
    .map((line) => line.split("\t"));
  const own = new Set(["title", "description"]);
  return rows
    .map((cells) => {
      const elements = (header as string[]).flatMap((name, c) => {
        const value = cells[c] as string;
        if (value === "") return [];
        if (name === "link") return [link(value)];
        if (name === "additional_image_link") {
          return value.split(",").map((url) => `<g:additional_image_link>${xmlText(url)}</g:additional_image_link>`);
        }
        const tag = own.has(name) ? name : `g:${name}`;
        return [`<${tag}>${xmlText(value)}</${tag}>`];
      });
      return `<${entry}>${elements.join("")}</${entry}>`;
    })
    .join("\n");
}

/** `GOOGLE_TSV` as an RSS 2.0 feed. */
export const GOOGLE_RSS = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0"><channel><title>Shop</title>
${feedItems("item", (url) => `<link>${xmlText(url)}</link>`)}
</channel></rss>
`;

/** `GOOGLE_TSV` as an Atom 1.0 feed. */
export const GOOGLE_ATOM = `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:g="http://base.google.com/ns/1.0"><title>Shop</title>
${feedItems("entry", (url) => `<link href="${xmlText(url).replaceAll('"', "&quot;")}"/>`)}
</feed>
`;

/** The products of `GOOGLE_TSV` (and of its RSS and Atom forms), in id order. */
export const GOOGLE_PRODUCTS: readonly Product[] = [
  {
    id: "MUG",
    sku: "MUG",
    title: "Mug",
    price: 8,
    available: false,
    images: [`${SHOP}/img/mug.jpg`],
    featured_image: `${SHOP}/img/mug.jpg`,
    url: `${SHOP}/mug`,
  },
  {
    id: "SHIRT",
    sku: "SHIRT-S",
    title: "Shirt S",
    description: "A shirt",
    price: 15,
    price_min: 15,
    price_max: 17.5,
    available: true,
    images: ["shirt-s", "shirt-back", "shirt-side", "shirt-m"].map((name) => `${SHOP}/img/${name}.jpg`),
    featured_image: `${SHOP}/img/shirt-s.jpg`,
    url: `${SHOP}/shirt?s`,
  },
];

/** `GOOGLE_TSV` with the mug between the shirt's sizes: a group written apart. */
export const GOOGLE_SPLIT = (() => {
  const [header, small, medium, mug] = GOOGLE_TSV.trimEnd().split("\n");
  return `${[header, small, mug, medium].join("\n")}\n`;
})();

/**
 * Products a Merchant Center feed carries whole: no `price_min` or `price_max` (a feed has no
 * attribute for them), the featured image first of `images`, and one without a description, one
 * without a price, one unavailable, one whose image URL holds a comma.
 */
export const FEED_PRODUCTS: readonly Product[] = [
  {
    id: "a-lamp",
    sku: "LAMP-1",
    title: "Lamp, brass",
    description: 'Tall "reading" lamp',
    price: 49.9,
    available: true,
    images: [`${CDN}lamp.jpg`, `${CDN}lamp,side.jpg`],
    featured_image: `${CDN}lamp.jpg`,
    url: `${SHOP}/lamp`,
  },
  {
    id: "b-rug",
    sku: "RUG-1",
    title: "Rug",
    available: false,
    images: [`${CDN}rug.jpg`],
    featured_image: `${CDN}rug.jpg`,
    url: `${SHOP}/rug`,
  },
  {
    id: "c-vase",
    sku: "VASE-1",
    title: "Vase",
    description: "Blue",
    price: 12,
    available: true,
    images: [`${CDN}vase.jpg`],
    featured_image: `${CDN}vase.jpg`,
    url: `${SHOP}/vase`,
  },
];
