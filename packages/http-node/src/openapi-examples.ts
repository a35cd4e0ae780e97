// Examples of the OpenAPI document: one request and one success answer per operation, and a file
// of each stream format. They are checked against the document's own schemas whenever the
// document is linted.
import type { StreamFormat } from "@catalog-kit/catalog-core";
import manifest from "../package.json" with { type: "json" };
import { summaryText } from "./success.ts";

const product = {
  id: "tshirt-001",
  sku: "TS-001-BLK-M",
  title: "Black T-shirt, M",
  description: "Organic cotton",
  price: 19.9,
  price_min: 17.5,
  price_max: 24.9,
  available: true,
  images: ["https://shop.example/img/ts-001-front.jpg"],
  featured_image: "https://shop.example/img/ts-001.jpg",
  url: "https://shop.example/products/tshirt-001",
};

/** The request and success examples of the OpenAPI document, by operation. */
export const EXAMPLES = {
  importProduct: { product },
  importProducts: {
    products: [
      product,
      {
        ...product,
        id: "tshirt-002",
        sku: "TS-002-WHT-M",
        title: "White T-shirt, M",
        images: ["https://shop.example/img/ts-002-front.jpg"],
        featured_image: "https://shop.example/img/ts-002.jpg",
        url: "https://shop.example/products/tshirt-002",
      },
    ],
  },
  importCsv: {
    csvContent:
      "id,sku,title,available,featured_image,url\ntshirt-001,TS-001-BLK-M,Black T-shirt,true,https://shop.example/img/ts-001.jpg,https://shop.example/products/tshirt-001\n",
  },
  // The very text the handler sends, so the example cannot drift from the answer.
  importSummary: JSON.parse(
    summaryText({
      total: 2,
      created: 1,
      updated: 1,
      unchanged: 0,
      dryRun: false,
      importId: "0192f3a4b5c6d7e8f9a0b1c2d3e4",
    }),
  ) as object,
  productView: {
    id: product.id,
    sku: product.sku,
    title: product.title,
    featured_image: product.featured_image,
    url: product.url,
  },
  productPage: {
    products: [
      {
        id: product.id,
        sku: product.sku,
        title: product.title,
        featured_image: product.featured_image,
        url: product.url,
      },
    ],
    nextCursor: "dHNoaXJ0LTAwMQ",
  },
  patchProduct: { price: 17.9, available: false, description: null },
  patched: (({ description: _, ...rest }) => ({ ...rest, price: 17.9, available: false }))(product),
  deleteResult: { message: 'Product "tshirt-001" (sku "TS-001-BLK-M") deleted' },
  health: { status: "ok" },
  openapi: { openapi: "3.1.0", info: { title: "catalog-kit product catalog", version: manifest.version }, paths: {} },
  problem: {
    type: "urn:catalog-kit:problem:method-not-allowed",
    title: "Method not allowed",
    status: 405,
    detail: "PUT is not allowed on /external/product/v1",
    code: "METHOD_NOT_ALLOWED",
    errors: [],
    errorCount: 0,
    instance: "urn:catalog-kit:request:3f2c9a",
  },
} as const;

/** An example file of each stream format: a raw import body, or an export. */
export const STREAM_EXAMPLES: Readonly<Record<StreamFormat, string>> = {
  ndjson:
    '{"id":"p1","sku":"MUG-1","title":"Blue mug","available":true,"featured_image":"https://img.example/p1.png","url":"https://shop.example/p1"}\n{"id":"p2","sku":"MUG-2","title":"Red mug","available":true,"featured_image":"https://img.example/p2.png","url":"https://shop.example/p2"}\n',
  csv: "id,sku,title,available,featured_image,url\np1,MUG-1,Blue mug,true,https://img.example/p1.png,https://shop.example/p1\n",
  // A feed as the export writes it (profile=google): it imports back with the same profile.
  tsv: "id\titem_group_id\ttitle\tdescription\tlink\timage_link\tadditional_image_link\tavailability\tprice\nCUP-1\tCUP-1\tGreen cup\tPorcelain\thttps://shop.example/cup-1\thttps://img.example/cup-1.png\t\tin_stock\t12.00 USD\n",
  xml: '<?xml version="1.0"?><rss version="2.0" xmlns:g="http://base.google.com/ns/1.0"><channel><item><g:id>BOWL-1</g:id><title>Red bowl</title><link>https://shop.example/bowl-1</link><g:image_link>https://img.example/bowl-1.png</g:image_link><g:availability>in_stock</g:availability><g:price>12.00 USD</g:price></item></channel></rss>\n',
};

/** A raw import body of the document, and the query parameters it is sent with. */
export interface RawExample {
  readonly text: string;
  readonly query?: Readonly<Record<string, string>>;
}

const GOOGLE = { profile: "google", currency: "USD" };

/** The name of a raw body example. */
export type RawExampleName = "nativeCsv" | "shopifyCsv" | "googleTsv" | "rss" | "atom";

/** The raw bodies the document shows, by name: the plain formats, and a platform's file of each. */
export const RAW_EXAMPLES: Readonly<Record<RawExampleName, RawExample>> = {
  nativeCsv: { text: STREAM_EXAMPLES.csv },
  shopifyCsv: {
    text: "Handle,Title,Body (HTML),Vendor,Option1 Name,Option1 Value,Variant SKU,Variant Price,Image Src,Image Position,Status\nblue-mug,Blue mug,<p>Stoneware</p>,Acme,Size,S,MUG-S,12.00,https://img.example/mug.png,1,active\nblue-mug,,,,,L,MUG-L,14.00,,,\n",
    query: { profile: "shopify", shopUrl: "https://shop.example" },
  },
  googleTsv: { text: STREAM_EXAMPLES.tsv, query: GOOGLE },
  rss: { text: STREAM_EXAMPLES.xml, query: GOOGLE },
  atom: {
    text: '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom" xmlns:g="http://base.google.com/ns/1.0"><title>Shop</title><entry><g:id>BOWL-1</g:id><title>Red bowl</title><link href="https://shop.example/bowl-1"/><g:image_link>https://img.example/bowl-1.png</g:image_link><g:availability>in_stock</g:availability><g:price>12.00 USD</g:price></entry></feed>\n',
    query: GOOGLE,
  },
};

/** The query with which the document's export example of each feed format is asked for. */
export const FEED_QUERY: Readonly<Partial<Record<StreamFormat, Readonly<Record<string, string>>>>> = { tsv: GOOGLE };
