// catalog-kit export: the site to standard output or a file, as CSV, NDJSON or one JSON array
// that import takes back; a reader that stops early (| head) ends it quietly, exit 0.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CatalogServer, productLine, SITE, startCatalogServer, TOKEN } from "./support/catalog-server.ts";
import { startRecordingServer } from "./support/recording-server.ts";
import { runCli, spawnCli } from "./support/run-cli.ts";

const COUNT = 20_000;
let server: CatalogServer;
beforeAll(async () => {
  server = await startCatalogServer();
  const products = Array.from({ length: COUNT }, (_, i) => JSON.parse(productLine(`p${String(i).padStart(5, "0")}`)));
  await server.catalog.importProducts(SITE, products);
});
afterAll(async () => {
  await server?.close();
});

describe("catalog-kit export", () => {
  it("writes the site as CSV (the default) or NDJSON to standard output", async () => {
    const csv = await runCli(["export", ...server.connect]);
    expect(csv.code).toBe(0);
    const rows = csv.stdout.trimEnd().split("\n");
    expect(rows[0]).toBe("id,sku,title,description,price,price_min,price_max,available,images,featured_image,url");
    expect(rows[1]).toBe("p00000,S-p00000,T p00000,,,,,true,,f,u");
    expect(rows).toHaveLength(COUNT + 1);
    expect(csv.stderr).toMatch(/^Exported \d+\.\d [kM]B\n$/);
    const ndjson = await runCli(["export", "-", ...server.connect, "--format", "ndjson"]);
    const lines = ndjson.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(COUNT);
    expect(JSON.parse(lines[COUNT - 1] as string)).toMatchObject({ id: "p19999" });
  });

  it("writes one JSON array to a file named .json, which import takes back; CATALOG_URL and CATALOG_TOKEN", async () => {
    const file = join(server.dir, "site.json");
    const site = `${SITE.siteType}/${SITE.siteId}`;
    const env = { CATALOG_URL: server.url, CATALOG_TOKEN: TOKEN };
    const exported = await runCli(["export", file, "--site", site], { env });
    expect(exported.code).toBe(0);
    expect(exported.stdout).toBe("");
    const products = JSON.parse(await readFile(file, "utf8"));
    expect(products).toHaveLength(COUNT);
    expect(products[0]).toMatchObject({ id: "p00000", sku: "S-p00000" });
    const back = await runCli(["import", file, "--site", site, "--replace"], { env });
    expect(back.stderr).toContain("Imported 20,000 products: 0 created, 0 updated, 20,000 unchanged, 0 deleted");
    expect(back.code).toBe(0);
  });

  it("ends quietly with exit 0 when the reader stops early, as | head does", async () => {
    const child = spawnCli(["export", ...server.connect, "--format", "ndjson"]);
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    // The first chunk is all the reader wants: it closes its end of the pipe, as head does.
    const first = await new Promise<string>((resolve) => child.stdout.once("data", (chunk) => resolve(String(chunk))));
    child.stdout.destroy();
    expect(first).toContain('"id":"p00000"');
    expect(await exited).toBe(0);
    expect(stderr).toBe("");
  });

  it("shows the server's problem and exits 1; with nothing listening, exit 3", async () => {
    const unknown = await runCli(["export", ...server.connect, "--site", "shopify/nope"]);
    expect(unknown.stderr).toContain("SITE_NOT_FOUND");
    expect(unknown.code).toBe(1);
    const away = await runCli(["export", ...server.connect, "--url", "http://127.0.0.1:9", "--retries", "0"]);
    expect(away.stderr).toContain("No answer from the server");
    expect(away.code).toBe(3);
  });
});

describe("catalog-kit export --profile", () => {
  it("asks /bulk/export for Google's or Meta's feed in a currency, and writes what comes", async () => {
    const recorder = await startRecordingServer();
    try {
      const feed = "id\ttitle\nS-1\tT\n";
      recorder.answer = { status: 200, type: "text/tab-separated-values", body: feed };
      const google = await runCli(["export", ...recorder.connect, "--profile", "google", "--currency", "EUR"]);
      expect(google.code).toBe(0);
      expect(google.stdout).toBe(feed);
      const [sent] = recorder.requests;
      expect(sent?.method).toBe("GET");
      expect(sent?.url.pathname).toBe("/external/product/v1/bulk/export");
      expect(Object.fromEntries(sent?.url.searchParams ?? [])).toEqual({
        siteId: "shop-1",
        siteType: "shopify",
        profile: "google",
        currency: "EUR",
      });
      expect(sent?.headers.accept).toBe("text/tab-separated-values");
      const noCurrency = await runCli(["export", ...recorder.connect, "--profile", "meta"]);
      expect(noCurrency.code).toBe(2);
      expect(noCurrency.stderr).toContain("The meta feed needs --currency CODE");
      const shopify = await runCli(["export", ...recorder.connect, "--profile", "shopify", "--currency", "EUR"]);
      expect(shopify.code).toBe(2);
      expect(recorder.requests).toHaveLength(1);
    } finally {
      await recorder.close();
    }
  });
});
