// catalog-kit import against a server the test starts: progress on a pipe, the summary for people
// on standard error, the answer alone on standard output with --json, located problems as a
// table, the format from --format or the name, standard input, CATALOG_URL and CATALOG_TOKEN.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CatalogServer, productLine, SITE, startCatalogServer, TOKEN } from "./support/catalog-server.ts";
import { HEADERS } from "./support/platform-headers.ts";
import { type RecordingServer, startRecordingServer } from "./support/recording-server.ts";
import { runCli } from "./support/run-cli.ts";

let server: CatalogServer;
let recorder: RecordingServer;
beforeAll(async () => {
  server = await startCatalogServer();
  recorder = await startRecordingServer();
});
afterAll(async () => {
  await server?.close();
  await recorder?.close();
});

const file = (name: string) => join(server.dir, name);
const site = `${SITE.siteType}/${SITE.siteId}`;
const BAD_CSV = "id,sku,title,available,featured_image,url\nb1,B1,T,true,f,u\nb2,B2,T,maybe,f,u\nb3,,T,true,f,u\n";

describe("catalog-kit import", () => {
  it("streams a gzipped NDJSON file with progress lines on a pipe, 100% once, and the counts for people", async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) =>
      productLine(`p${i}`, { description: "x".repeat(200 + (i % 97)) }),
    );
    await writeFile(file("catalog.ndjson.gz"), gzipSync(lines.join("\n")));
    const { code, stdout, stderr } = await runCli([
      "import",
      file("catalog.ndjson.gz"),
      ...server.connect,
      "--progress-every",
      "0.001",
    ]);
    expect(stderr).toMatch(/\d+(\.\d)? [kM]?B of \d+(\.\d)? [kM]?B \(\d+%\), .*\/s, ETA/);
    expect(stderr.match(/\(100%\)/g)).toHaveLength(1);
    expect(stderr).toMatch(/^Idempotency-Key: [0-9a-f-]{36}$/m);
    expect(stderr).toMatch(/Sent \d+\.\d [kM]B in \d+\.\d s; this tool used \d+\.\d\d s of CPU/);
    expect(stderr).toContain("Imported 20,000 products: 20,000 created, 0 updated, 0 unchanged");
    expect(code).toBe(0);
    expect(stdout).toBe("");
    expect(await server.catalog.getProduct(SITE, "p19999")).toMatchObject({ sku: "S-p19999" });
  });

  it("prints a bad file's problems as a table of rows and columns, and exits 1", async () => {
    await writeFile(file("bad.csv"), BAD_CSV);
    const { code, stdout, stderr } = await runCli(["import", file("bad.csv"), ...server.connect]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toContain("400 VALIDATION_FAILED");
    expect(stderr).toMatch(/row 3\s+available\s+Must be true or false/);
    expect(stderr).toMatch(/row 4\s+sku\s+/);
    await expect(server.catalog.getProduct(SITE, "b1")).rejects.toMatchObject({ code: "PRODUCT_NOT_FOUND" });
  });

  it("with --json, standard output is the server's answer alone, one JSON line, success or problem", async () => {
    await writeFile(file("one.ndjson"), `${productLine("j1")}\n`);
    const ok = await runCli(["import", file("one.ndjson"), ...server.connect, "--json"]);
    expect(ok.code).toBe(0);
    expect(ok.stdout.endsWith("\n")).toBe(true);
    expect(ok.stdout.trimEnd().split("\n")).toHaveLength(1);
    expect(JSON.parse(ok.stdout)).toMatchObject({ total: 1, created: 1 });
    expect(ok.stderr).toContain("Imported 1 product: 1 created");
    const refused = await runCli(["import", file("bad.csv"), ...server.connect, "--json"]);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ status: 400, code: "VALIDATION_FAILED", errorCount: 2 });
    expect(refused.stderr).toMatch(/row 3\s+available/);
  });

  it("takes the format from --format over the name, and a JSON array with --replace and --dry-run", async () => {
    await writeFile(file("catalog.txt"), `${productLine("t1")}\n${productLine("t2")}\n`);
    expect((await runCli(["import", file("catalog.txt"), ...server.connect])).code).toBe(2);
    const typed = await runCli(["import", file("catalog.txt"), ...server.connect, "--format", "ndjson"]);
    expect(typed.stderr).toContain("Imported 2 products: 2 created");
    expect(typed.code).toBe(0);
    await writeFile(file("catalog.json"), JSON.stringify([JSON.parse(productLine("only"))]));
    const dry = await runCli(["import", file("catalog.json"), ...server.connect, "--replace", "--dry-run"]);
    expect(dry.stderr).toContain(
      "Dry run: 1 product checked (1 would be created, 0 updated, 0 unchanged, 20,003 deleted)",
    );
    expect(dry.code).toBe(0);
  });

  it("reads standard input with -, streamed as CSV, or a JSON body", async () => {
    const csv = "id,sku,title,available,featured_image,url\nin1,IN-1,T,true,f,u\nin2,IN-2,T,true,f,u\n";
    const streamed = await runCli(["import", "-", "--format", "csv", ...server.connect], { input: csv });
    expect(streamed.stderr).toContain("Imported 2 products: 2 created");
    expect(streamed.stderr).toMatch(/\d+ B sent, /);
    expect(streamed.code).toBe(0);
    expect(await server.catalog.getProduct(SITE, "in2")).toMatchObject({ sku: "IN-2" });
    const json = JSON.stringify({ products: [JSON.parse(productLine("in3"))] });
    const whole = await runCli(["import", "-", "--format", "json", ...server.connect], { input: json });
    expect(whole.stderr).toContain("Imported 1 product: 1 created");
    expect((await runCli(["import", "-", ...server.connect], { input: csv })).code).toBe(2);
  });

  it("takes the server and token from CATALOG_URL and CATALOG_TOKEN; the flags win", async () => {
    await writeFile(file("env.ndjson"), `${productLine("e1")}\n`);
    const fromEnv = await runCli(["import", file("env.ndjson"), "--site", site], {
      env: { CATALOG_URL: server.url, CATALOG_TOKEN: TOKEN },
    });
    expect(fromEnv.stderr).toContain("Imported 1 product: 1 created");
    expect(fromEnv.code).toBe(0);
    // Nothing listens on port 9 of this host; a token nobody has would be a 401.
    const flagsWin = await runCli(["import", file("env.ndjson"), ...server.connect, "--retries", "0"], {
      env: { CATALOG_URL: "http://127.0.0.1:9", CATALOG_TOKEN: "wrong" },
    });
    expect(flagsWin.stderr).toContain("Imported 1 product: 0 created, 0 updated, 1 unchanged");
    expect(flagsWin.code).toBe(0);
    const none = await runCli(["import", file("env.ndjson"), "--site", site], { env: { CATALOG_TOKEN: TOKEN } });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("CATALOG_URL");
  });
});

describe("catalog-kit import: a platform's file, with its profile", () => {
  const SUMMARY = { total: 1, created: 1, updated: 0, unchanged: 0 };
  const at = (name: string) => join(recorder.dir, name);
  // The request the command sent last, and its query as an object.
  const last = () => {
    const request = recorder.requests.at(-1);
    if (request === undefined) throw new Error("No request was sent");
    return { ...request, query: Object.fromEntries(request.url.searchParams) };
  };

  it("names a Shopify CSV by its header, says so in one line, and sends the profile's parameters", async () => {
    recorder.answer = {
      status: 200,
      type: "application/json",
      body: JSON.stringify({ ...SUMMARY, ignoredColumns: ["Vendor", "Tags"] }),
    };
    await writeFile(at("products.csv"), `\uFEFF${HEADERS.shopifyCurrent.replaceAll(",", ";")}\n`);
    const shop = "https://shop.example";
    const options = ["--shop-url", shop, "--decimal", ",", "--variants", "items", "--delimiter", ";"];
    const { code, stderr } = await runCli([
      "import",
      at("products.csv"),
      ...recorder.connect,
      ...options,
      "--unknown-columns",
      "ignore",
    ]);
    expect(stderr).toContain(
      `catalog-kit: ${at("products.csv")} is a Shopify product CSV: importing with --profile shopify\n`,
    );
    expect(stderr).toContain("Imported 1 product: 1 created");
    expect(stderr).toContain("Ignored columns (not kept by the catalog): Vendor, Tags\n");
    expect(code).toBe(0);
    const sent = last();
    expect(sent.url.pathname).toBe("/external/product/v1/bulk/csv");
    expect(sent.headers["content-type"]).toBe("text/csv");
    expect(sent.query).toEqual({
      siteId: "shop-1",
      siteType: "shopify",
      profile: "shopify",
      shopUrl: shop,
      decimal: ",",
      variants: "items",
      delimiter: ";",
      unknownColumns: "ignore",
    });
  });

  it("sends a Merchant Center TSV as text/tab-separated-values, a gzipped RSS feed as application/xml", async () => {
    recorder.answer = { status: 200, type: "application/json", body: JSON.stringify(SUMMARY) };
    await writeFile(at("google.tsv"), `${HEADERS.google}\n`);
    const tsv = await runCli(["import", at("google.tsv"), ...recorder.connect, "--currency", "EUR"]);
    expect(tsv.stderr).toContain("is a Google Merchant Center feed: importing with --profile google");
    expect(tsv.code).toBe(0);
    expect(last().headers["content-type"]).toBe("text/tab-separated-values");
    expect(last().query).toMatchObject({ profile: "google", currency: "EUR" });

    const rss = '<?xml version="1.0"?>\n<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0"><channel/></rss>\n';
    await writeFile(at("feed.rss.gz"), gzipSync(rss));
    const feed = await runCli(["import", at("feed.rss.gz"), ...recorder.connect, "--currency", "USD"]);
    expect(feed.stderr).toContain("is an RSS feed: importing with --profile google (a Meta feed: give --profile meta)");
    expect(feed.code).toBe(0);
    expect(last().url.pathname).toBe("/external/product/v1/bulk");
    expect(last().headers).toMatchObject({ "content-type": "application/xml", "content-encoding": "gzip" });
    expect(last().query).toMatchObject({ profile: "google", currency: "USD" });

    const meta = await runCli([
      "import",
      at("feed.rss.gz"),
      ...recorder.connect,
      "--profile",
      "meta",
      "--currency",
      "USD",
    ]);
    expect(meta.stderr).not.toContain("importing with");
    expect(last().query).toMatchObject({ profile: "meta", currency: "USD" });
  });

  it("refuses, before any request, a profile that lacks its parameter, naming the flag", async () => {
    await writeFile(at("shop.csv"), `${HEADERS.shopifyLegacy}\nh,T\n`);
    await writeFile(at("woo.csv"), `${HEADERS.woocommerce}\n`);
    const before = recorder.requests.length;
    const detected = await runCli(["import", at("shop.csv"), ...recorder.connect]);
    expect(detected.code).toBe(2);
    expect(detected.stderr).toContain("catalog-kit: The shopify profile needs --shop-url URL");
    const woo = await runCli(["import", at("woo.csv"), ...recorder.connect]);
    expect(woo.stderr).toContain("The woocommerce profile needs --shop-url URL");
    const named = await runCli(["import", at("google.tsv"), ...recorder.connect, "--profile", "meta"]);
    expect(named.code).toBe(2);
    expect(named.stderr).toContain("The meta profile needs --currency CODE");
    expect(recorder.requests.length).toBe(before);
  });

  it("--profile native turns detection off and sends the file as the catalog's own", async () => {
    recorder.answer = { status: 200, type: "application/json", body: JSON.stringify(SUMMARY) };
    const { code, stderr } = await runCli(["import", at("shop.csv"), ...recorder.connect, "--profile", "native"]);
    expect(stderr).not.toContain("importing with");
    expect(code).toBe(0);
    expect(last().query).toEqual({ siteId: "shop-1", siteType: "shopify", profile: "native" });
    const stray = await runCli([
      "import",
      at("shop.csv"),
      ...recorder.connect,
      "--profile",
      "native",
      "--currency",
      "EUR",
    ]);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain("--currency is for a platform's file");
  });
});
