// Import profiles over HTTP: a platform's file (Shopify CSV, Merchant Center TSV) sent raw or as
// csvContent with the reading parameters, which pass to the catalog as given and are checked
// before a byte of the body is read; their place in the idempotency fingerprint; the feed export.
import { gzipSync } from "node:zlib";
import { hasCompleteResponse, openRaw, parseRawResponse } from "@catalog-kit/test-support/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { problemOf } from "./support/problem.ts";
import {
  product,
  productPath,
  SITE_A,
  SITE_A_OTHER_TYPE,
  SITE_B,
  startTestServer,
  type TestServer,
  TOKENS,
} from "./support/test-server.ts";

const BASE = "/external/product/v1";
const admin = { token: TOKENS.admin };
const site = (s = SITE_A) => `siteId=${s.siteId}&siteType=${s.siteType}`;
const SHOP = "https://shop.example";
const CSV = { "content-type": "text/csv" };
const TSV = { "content-type": "text/tab-separated-values" };

// Two products of Shopify's legacy export: a hoodie in two sizes and an image row, and a mug.
const SHOPIFY = [
  "Handle,Title,Body (HTML),Vendor,Tags,Option1 Name,Option1 Value,Variant SKU,Variant Price,Image Src,Image Position,Status",
  "hoodie,Zip Hoodie,<p>Warm</p>,Acme,winter,Size,M,HOOD-M,40.00,https://cdn.example/h1.jpg,1,active",
  "hoodie,,,,,,L,HOOD-L,42.00,,,",
  "hoodie,,,,,,,,,https://cdn.example/h2.jpg,2,",
  "mug,Mug,<p>Stoneware</p>,Acme,,Title,Default Title,MUG-1,12.50,https://cdn.example/m.jpg,1,active",
  "",
].join("\n");

const FEED_HEADER = "id\ttitle\tdescription\tlink\timage_link\tavailability\tprice";
const feedRow = (id: string, price: string) =>
  `${id}\tFeed ${id}\tFrom the feed\thttps://shop.example/${id}\thttps://img.example/${id}.png\tin_stock\t${price}`;

const NATIVE_HEADER = "id,sku,title,available,featured_image,url";

let server: TestServer;
beforeAll(async () => {
  // SITE_A's prices are in EUR by its configuration; SITE_B names no currency.
  server = await startTestServer({ siteCurrency: (s) => (s.siteId === SITE_A.siteId ? "EUR" : undefined) });
});
afterAll(() => server?.close());

// The product as stored (GET answers its retrieval shape, without prices and images); undefined when absent.
async function get(id: string, s = SITE_A): Promise<Record<string, unknown> | undefined> {
  const response = await server.request("GET", productPath(id, s), admin);
  if (response.status !== 200) return undefined;
  return { ...(await server.catalog.getProduct(s, id)) };
}

describe("a Shopify export", () => {
  it("imports one product per handle, raw text/csv on /bulk, naming the profile and the columns not kept", async () => {
    const path = `${BASE}/bulk?${site()}&profile=shopify&shopUrl=${encodeURIComponent(SHOP)}`;
    const response = await server.request("POST", path, { ...admin, headers: CSV, body: SHOPIFY });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      total: 2,
      created: 2,
      profile: "shopify",
      ignoredColumns: ["Vendor", "Tags", "Option1 Name"],
    });
    expect(await get("hoodie")).toMatchObject({
      sku: "HOOD-M",
      title: "Zip Hoodie",
      price: 40,
      price_min: 40,
      price_max: 42,
      url: `${SHOP}/products/hoodie`,
      images: ["https://cdn.example/h1.jpg", "https://cdn.example/h2.jpg"],
    });
    expect(await get("mug")).toMatchObject({ sku: "MUG-1", price: 12.5 });
  });

  it("imports the same as csvContent on /bulk/csv, and variants=items makes a product per variant", async () => {
    const path = `${BASE}/bulk/csv?${site(SITE_B)}&profile=shopify&shopUrl=${encodeURIComponent(SHOP)}`;
    const response = await server.request("POST", path, { ...admin, json: { csvContent: SHOPIFY } });
    expect(await response.json()).toMatchObject({ total: 2, created: 2, profile: "shopify" });
    expect(await get("hoodie", SITE_B)).toMatchObject({ sku: "HOOD-M", price_max: 42 });
    // Ids of their own: a variant's id is its SKU, which the groups above hold.
    const variants = SHOPIFY.replaceAll("HOOD-", "ITEM-H").replace("MUG-1", "ITEM-MUG");
    const items = await server.request("POST", `${path}&variants=items&dryRun=true`, {
      ...admin,
      json: { csvContent: variants },
    });
    expect(await items.json()).toMatchObject({ total: 3, dryRun: true, profile: "shopify" });
  });

  it("dryRun checks and counts, and writes nothing", async () => {
    const path = `${BASE}/bulk/csv?${site()}&profile=shopify&shopUrl=${encodeURIComponent(SHOP)}&dryRun=true`;
    const body = SHOPIFY.replaceAll("hoodie", "dry-hoodie").replace("mug,Mug", "dry-mug,Mug").replace("MUG-1", "DRY-1");
    const response = await server.request("POST", path, {
      ...admin,
      headers: CSV,
      body: body.replaceAll("HOOD-", "DRY-H"),
    });
    expect(await response.json()).toMatchObject({ total: 2, created: 2, dryRun: true, profile: "shopify" });
    expect(await get("dry-hoodie")).toBeUndefined();
    expect(await get("dry-mug")).toBeUndefined();
  });

  it("sent as a native CSV, is refused naming the profile to use", async () => {
    const response = await server.request("POST", `${BASE}/bulk/csv?${site()}`, {
      ...admin,
      headers: CSV,
      body: SHOPIFY,
    });
    const problem = await problemOf(response, 400, "INVALID_CSV");
    expect(problem.errors[0]).toMatchObject({ row: 1, message: expect.stringContaining("profile=shopify") });
  });
});

// The same items as an RSS 2.0 feed, in Google's namespace.
const rss = (...items: [string, string][]) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0"><channel>${items
    .map(
      ([id, price]) =>
        `<item><g:id>${id}</g:id><title>Feed ${id}</title><description><![CDATA[<p>From the feed</p>]]></description><link>https://shop.example/${id}</link><g:image_link>https://img.example/${id}.png</g:image_link><g:availability>in stock</g:availability><g:price>${price}</g:price><g:brand>Acme</g:brand></item>`,
    )
    .join("")}</channel></rss>\n`;

describe("a Merchant Center feed (XML)", () => {
  it("an RSS feed imports on /bulk with its currency, gzipped too; a bad price is located at its item and element", async () => {
    const path = `${BASE}/bulk?${site()}&profile=google&currency=USD`;
    for (const type of ["application/rss+xml", "application/xml"]) {
      const response = await server.request("POST", path, {
        ...admin,
        headers: { "content-type": type, "content-encoding": "gzip" },
        body: gzipSync(rss(["xml-1", "9.90 USD"], ["xml-2", "19.00 USD"])),
      });
      expect(await response.json(), type).toMatchObject({ total: 2, profile: "google", ignoredColumns: ["brand"] });
    }
    expect(await get("xml-2")).toMatchObject({ description: "<p>From the feed</p>", price: 19 });
    const bad = await server.request("POST", path, {
      ...admin,
      headers: { "content-type": "application/rss+xml" },
      body: rss(["xml-3", "1.00 USD"], ["xml-4", "9,90 USD"]),
    });
    const problem = await problemOf(bad, 400, "VALIDATION_FAILED");
    expect(problem.errors).toEqual([expect.objectContaining({ item: 2, element: "price" })]);
    expect(await get("xml-3")).toBeUndefined();
  });

  it("without profile nor currency, a feed is Google's in the site's configured currency", async () => {
    const response = await server.request("POST", `${BASE}/bulk?${site()}`, {
      ...admin,
      headers: { "content-type": "application/rss+xml" },
      body: rss(["eur-1", "4.50 EUR"]),
    });
    expect(await response.json()).toMatchObject({ total: 1, profile: "google" });
    expect(await get("eur-1")).toMatchObject({ price: 4.5 });
  });

  it("a feed that declares entities is INVALID_XML, and nothing is written", async () => {
    const body = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>${rss(["xxe-1", "1.00 USD"]).replace(/^<\?xml[^>]*>\n/, "")}`;
    const response = await server.request("POST", `${BASE}/bulk?${site()}&profile=google&currency=USD`, {
      ...admin,
      headers: { "content-type": "application/xml" },
      body,
    });
    const problem = await problemOf(response, 400, "INVALID_XML");
    expect(problem.errors).toEqual([expect.objectContaining({ item: 0, message: expect.stringContaining("DTD") })]);
    expect(await get("xxe-1")).toBeUndefined();
  });
});

describe("a Merchant Center feed (TSV)", () => {
  it("imports with its currency, on /bulk and /bulk/csv", async () => {
    const feed = `${FEED_HEADER}\n${feedRow("tsv-1", "9.90 USD")}\n${feedRow("tsv-2", "19.00 USD")}\n`;
    for (const route of ["bulk", "bulk/csv"]) {
      const response = await server.request("POST", `${BASE}/${route}?${site()}&profile=google&currency=USD`, {
        ...admin,
        headers: TSV,
        body: feed,
      });
      expect(await response.json(), route).toMatchObject({ total: 2, profile: "google" });
    }
    expect(await get("tsv-2")).toMatchObject({ title: "Feed tsv-2", price: 19, url: "https://shop.example/tsv-2" });
    // Compressed, as any body.
    const gzip = await server.request("POST", `${BASE}/bulk?${site()}&profile=google&currency=USD&dryRun=true`, {
      ...admin,
      headers: { ...TSV, "content-encoding": "gzip" },
      body: gzipSync(feed.replaceAll("tsv-", "gz-")),
    });
    expect(await gzip.json()).toMatchObject({ total: 2, created: 2, dryRun: true, profile: "google" });
  });

  it("a price in another currency is a problem at its row and column, and nothing is written", async () => {
    const feed = `${FEED_HEADER}\n${feedRow("cur-1", "9.90 EUR")}\n${feedRow("cur-2", "5.00 USD")}\n`;
    const response = await server.request("POST", `${BASE}/bulk?${site()}&profile=google&currency=EUR`, {
      ...admin,
      headers: TSV,
      body: feed,
    });
    const problem = await problemOf(response, 400, "VALIDATION_FAILED");
    expect(problem.errors).toEqual([expect.objectContaining({ row: 3, column: "price" })]);
    expect(await get("cur-1")).toBeUndefined();
  });
});

describe("a native CSV's dialect", () => {
  it("delimiter=; reads a semicolon CSV, and a tab arrives as %09", async () => {
    const semicolon = `${NATIVE_HEADER.replaceAll(",", ";")}\nsemi-1;S-1;Semi;true;https://i.example/s.png;https://u.example/s\n`;
    const response = await server.request("POST", `${BASE}/bulk/csv?${site()}&delimiter=%3B`, {
      ...admin,
      headers: CSV,
      body: semicolon,
    });
    expect(await response.json()).toMatchObject({ total: 1, created: 1 });
    expect(await get("semi-1")).toMatchObject({ sku: "S-1", title: "Semi" });
    const tabbed = semicolon.replaceAll(";", "\t").replaceAll("semi-1", "tab-1").replace("S-1", "T-1");
    const tab = await server.request("POST", `${BASE}/bulk?${site()}&delimiter=%09`, {
      ...admin,
      headers: CSV,
      body: tabbed,
    });
    expect(await tab.json()).toMatchObject({ total: 1, created: 1 });
    // Without the delimiter, the header is one column nobody knows.
    const plain = await server.request("POST", `${BASE}/bulk/csv?${site()}`, {
      ...admin,
      headers: CSV,
      body: semicolon,
    });
    await problemOf(plain, 400, "INVALID_CSV");
  });

  it("unknownColumns=ignore lists the column it read past; by default it is a problem at that column", async () => {
    const csv = `${NATIVE_HEADER},colour\nign-1,I-1,Ignored,true,https://i.example/i.png,https://u.example/i,blue\n`;
    const refused = await server.request("POST", `${BASE}/bulk/csv?${site()}`, { ...admin, json: { csvContent: csv } });
    const problem = await problemOf(refused, 400, "INVALID_CSV");
    expect(problem.errors[0]).toMatchObject({ column: "colour" });
    const ignored = await server.request("POST", `${BASE}/bulk/csv?${site()}&unknownColumns=ignore`, {
      ...admin,
      json: { csvContent: csv },
    });
    expect(await ignored.json()).toMatchObject({ total: 1, profile: "native", ignoredColumns: ["colour"] });
  });

  it("a bad value is the catalog's VALIDATION_FAILED naming the parameter", async () => {
    const cases: [string, string][] = [
      ["delimiter=%3A", "delimiter"],
      ["unknownColumns=keep", "unknownColumns"],
      ["profile=amazon", "profile"],
      ["profile=shopify&shopUrl=ftp%3A%2F%2Fshop", "shopUrl"],
      ["profile=google&currency=dollars", "currency"],
      ["profile=woocommerce&shopUrl=https%3A%2F%2Fs.example&decimal=%3B", "decimal"],
      ["profile=shopify&shopUrl=https%3A%2F%2Fs.example&variants=all", "variants"],
      // A profile's parameter with a value that cannot be is refused even where it is unused.
      ["currency=", "currency"],
      ["profile=native&currency=dollars", "currency"],
      ["shopUrl=shop", "shopUrl"],
      ["decimal=%3B", "decimal"],
      ["profile=google&currency=USD&variants=all", "variants"],
    ];
    for (const [query, parameter] of cases) {
      const response = await server.request("POST", `${BASE}/bulk/csv?${site()}&${query}`, {
        ...admin,
        headers: CSV,
        body: SHOPIFY,
      });
      const problem = await problemOf(response, 400, "VALIDATION_FAILED");
      expect(problem.errors, query).toEqual([expect.objectContaining({ parameter })]);
    }
    // A TSV is always tab-separated.
    const tsv = await server.request("POST", `${BASE}/bulk/csv?${site()}&delimiter=%3B`, {
      ...admin,
      headers: TSV,
      body: `${NATIVE_HEADER.replaceAll(",", "\t")}\n`,
    });
    expect((await problemOf(tsv, 400, "VALIDATION_FAILED")).errors[0]).toMatchObject({ parameter: "delimiter" });
  });
});

// A request whose head is sent with a declared body that never comes: the answer must not wait for it.
async function beforeTheBody(path: string, contentType: string) {
  const raw = await openRaw(server.url);
  const head = `POST ${path} HTTP/1.1\r\nHost: test\r\nX-Service-Access-Token: ${TOKENS.admin}\r\nContent-Type: ${contentType}\r\nContent-Length: 100000\r\n\r\n`;
  await raw.write(head);
  await raw.write("Handle,Title\n");
  const response = parseRawResponse(await raw.waitFor(hasCompleteResponse));
  await raw.closed;
  return response as { status: number; headers: string; body: { code: string; errors: Record<string, unknown>[] } };
}

describe("reading parameters are checked before a byte of the body is read", () => {
  it("a Shopify import without shopUrl is a 400 naming shopUrl, the body left unread", async () => {
    const response = await beforeTheBody(`${BASE}/bulk?${site()}&profile=shopify`, "text/csv");
    expect(response.status).toBe(400);
    expect(response.headers).toContain("connection: close");
    expect(response.body).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ parameter: "shopUrl" }] });
  });

  it("an XML feed: with a profile that reads no XML, or without a currency (none asked, none configured)", async () => {
    // SITE_B has no currency of its own; an XML feed without a profile is Google's.
    const cases: [string, string, string][] = [
      ["", "application/rss+xml", "currency"],
      ["&profile=shopify&shopUrl=https%3A%2F%2Fs.example", "application/xml", "profile"],
      ["&profile=google", "application/atom+xml", "currency"],
      ["&profile=meta", "text/xml", "currency"],
    ];
    for (const [query, type, parameter] of cases) {
      const response = await beforeTheBody(`${BASE}/bulk?${site(SITE_B)}${query}`, type);
      expect(response.status, type).toBe(400);
      expect(response.body, type).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ parameter }] });
    }
    // XML is /bulk's: /bulk/csv takes CSV and TSV only.
    expect((await beforeTheBody(`${BASE}/bulk/csv?${site()}&profile=google`, "application/xml")).status).toBe(415);
  });
});

describe("a body that is no platform's file takes no reading parameter", () => {
  it("a JSON product list, NDJSON and one product are refused naming the parameter", async () => {
    const list = await server.request("POST", `${BASE}/bulk?${site()}&profile=shopify`, {
      ...admin,
      json: { products: [product("json-1")] },
    });
    expect((await problemOf(list, 400, "VALIDATION_FAILED")).errors).toEqual([
      expect.objectContaining({ parameter: "profile" }),
    ]);
    const ndjson = await server.request("POST", `${BASE}/bulk?${site()}&delimiter=%3B`, {
      ...admin,
      headers: { "content-type": "application/x-ndjson" },
      body: `${JSON.stringify(product("json-2"))}\n`,
    });
    expect((await problemOf(ndjson, 400, "VALIDATION_FAILED")).errors[0]).toMatchObject({ parameter: "delimiter" });
    // Even the default profile: a client that names one believes it sends a document.
    const single = await server.request("POST", `${BASE}?${site()}&profile=native`, {
      ...admin,
      json: { product: product("json-3") },
    });
    expect((await problemOf(single, 400, "VALIDATION_FAILED")).errors[0]).toMatchObject({ parameter: "profile" });
    for (const id of ["json-1", "json-2", "json-3"]) expect(await get(id)).toBeUndefined();
  });
});

describe("the idempotency fingerprint", () => {
  it("covers the reading parameters: the same key with another profile parameter is IDEMPOTENCY_KEY_REUSED", async () => {
    const body = SHOPIFY.replaceAll("hoodie", "key-hoodie").replace("mug,Mug", "key-mug,Mug");
    const send = (query: string) =>
      server.request("POST", `${BASE}/bulk?${site(SITE_B)}&profile=shopify&${query}`, {
        ...admin,
        headers: { ...CSV, "idempotency-key": "profile-key-1" },
        body: body.replaceAll("HOOD-", "KEY-H").replace("MUG-1", "KEY-M"),
      });
    const first = await send(`shopUrl=${encodeURIComponent(SHOP)}`);
    expect(first.status).toBe(200);
    const again = await send(`shopUrl=${encodeURIComponent(SHOP)}`);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    for (const other of [`shopUrl=${encodeURIComponent("https://other.example")}`, `shopUrl=${SHOP}&variants=items`]) {
      await problemOf(await send(other), 422, "IDEMPOTENCY_KEY_REUSED");
    }
  });
});

describe("the feed export", () => {
  // A site of their own, configured in EUR like SITE_A, holding only what the export tests import.
  const FEED_SITE = SITE_A_OTHER_TYPE;

  it("profile=google answers the site as a Merchant Center TSV in its currency, which imports back unchanged", async () => {
    // A feed's image_link is also the first of the product's images: products that say so come back equal.
    const image = (id: string) => ({ images: [`https://img.example/${id}.jpg`] });
    const products = [
      product("feed-1", "feed-1", { price: 10, description: "One", ...image("feed-1") }),
      product("feed-2", "feed-2", { price: 24.5, available: false, ...image("feed-2") }),
    ];
    const seeded = await server.request("POST", `${BASE}/bulk?${site(FEED_SITE)}`, { ...admin, json: { products } });
    expect(seeded.status).toBe(200);
    const exported = await server.request("GET", `${BASE}/bulk/export?${site(FEED_SITE)}&profile=google`, admin);
    expect(exported.status).toBe(200);
    expect(exported.headers.get("content-type")).toBe("text/tab-separated-values; charset=utf-8");
    const feed = await exported.text();
    expect(feed.split("\n")[0]?.split("\t")).toEqual(expect.arrayContaining(["id", "title", "price", "availability"]));
    expect(feed).toContain("\t10.00 EUR");
    expect(feed).toContain("\t24.50 EUR");
    const back = await server.request("POST", `${BASE}/bulk?${site(FEED_SITE)}&profile=google&currency=EUR`, {
      ...admin,
      headers: TSV,
      body: feed,
    });
    const summary = (await back.json()) as Record<string, number>;
    expect(summary).toMatchObject({ profile: "google", total: 2, created: 0, updated: 0 });
    expect(summary.unchanged).toBe(summary.total);
    const stored = await Promise.all(products.map((p) => server.catalog.getProduct(FEED_SITE, p.id as string)));
    expect(stored).toEqual(products.map((p) => expect.objectContaining(p)));
  });

  it("?currency= overrides the site's; without either, the export is a 400 naming currency", async () => {
    const usd = await server.request("GET", `${BASE}/bulk/export?${site(FEED_SITE)}&profile=meta&currency=USD`, admin);
    const text = await usd.text();
    expect(text).toContain("\t10.00 USD");
    expect(text).toContain("in stock");
    const none = await server.request("GET", `${BASE}/bulk/export?${site(SITE_B)}&profile=google`, admin);
    expect((await problemOf(none, 400, "VALIDATION_FAILED")).errors[0]).toMatchObject({ parameter: "currency" });
    // The native file has no currency: one given is checked all the same, never silently unused.
    for (const query of ["currency=", "currency=dollars", "profile=native&currency=US"]) {
      const bad = await server.request("GET", `${BASE}/bulk/export?${site(SITE_B)}&${query}`, admin);
      expect((await problemOf(bad, 400, "VALIDATION_FAILED")).errors[0], query).toMatchObject({
        parameter: "currency",
      });
    }
    const unused = await server.request("GET", `${BASE}/bulk/export?${site(SITE_B)}&currency=usd`, admin);
    expect(unused.status).toBe(200);
    expect((await unused.text()).split("\n")[0]).toMatch(/^id,sku,/);
  });

  it("profile=native or none is the CSV or NDJSON Accept chooses; any other profile is a 400 naming it", async () => {
    const native = await server.request("GET", `${BASE}/bulk/export?${site()}&profile=native`, {
      ...admin,
      headers: { accept: "application/x-ndjson" },
    });
    expect(native.headers.get("content-type")).toBe("application/x-ndjson");
    const csv = await server.request("GET", `${BASE}/bulk/export?${site()}`, admin);
    expect((await csv.text()).split("\n")[0]).toMatch(/^id,sku,/);
    for (const profile of ["shopify", "amazon", ""]) {
      const refused = await server.request("GET", `${BASE}/bulk/export?${site()}&profile=${profile}`, admin);
      expect((await problemOf(refused, 400, "VALIDATION_FAILED")).errors[0], profile).toMatchObject({
        parameter: "profile",
      });
    }
    // A TSV is a feed: asking for one by Accept names no platform.
    const tsv = await server.request("GET", `${BASE}/bulk/export?${site()}`, {
      ...admin,
      headers: { accept: "text/tab-separated-values" },
    });
    expect((await problemOf(tsv, 400, "VALIDATION_FAILED")).errors[0]).toMatchObject({ parameter: "profile" });
  });
});
