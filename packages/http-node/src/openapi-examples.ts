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
  importSummary: JSON.parse(summaryText({ total: 2, created: 1, updated: 1, unchanged: 0, dryRun: false })) as object,
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
  tsv: "id\ttitle\tlink\timage_link\tavailability\tprice\nMUG-1\tBlue mug\thttps://shop.example/p1\thttps://img.example/p1.png\tin_stock\t12.00 USD\n",
  xml: '<?xml version="1.0"?><rss version="2.0" xmlns:g="http://base.google.com/ns/1.0"><channel><item><g:id>MUG-1</g:id><title>Blue mug</title><link>https://shop.example/p1</link><g:image_link>https://img.example/p1.png</g:image_link><g:availability>in_stock</g:availability><g:price>12.00 USD</g:price></item></channel></rss>\n',
};
