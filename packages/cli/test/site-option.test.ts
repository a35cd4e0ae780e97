// --site is the site's TYPE/ID, and may be left out when the token has a default site: the server
// then picks it, for every kind of file and for export alike.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CatalogServer, productLine, SITE, startCatalogServer, TOKEN } from "./support/catalog-server.ts";
import { runCli } from "./support/run-cli.ts";

let server: CatalogServer;
// A token of one site: that site is its default.
beforeAll(async () => {
  server = await startCatalogServer({ tokens: [{ token: TOKEN, sites: [SITE] }] });
});
afterAll(async () => {
  await server?.close();
});

const connect = () => ["--url", server.url, "--token-file", join(server.dir, "token")];

describe("--site", () => {
  it("may be left out when the token has a default site: import (NDJSON, CSV, JSON) and export use it", async () => {
    const files: [string, string][] = [
      ["a.ndjson", `${productLine("nd-1")}\n`],
      ["b.csv", "id,sku,title,available,featured_image,url\ncsv-1,S-csv-1,T,true,f,u\n"],
      ["c.json", JSON.stringify([JSON.parse(productLine("json-1"))])],
    ];
    for (const [name, text] of files) {
      await writeFile(join(server.dir, name), text);
      const imported = await runCli(["import", join(server.dir, name), ...connect()]);
      expect(imported.stderr, name).not.toContain("--site");
      expect(imported.code, name).toBe(0);
    }
    for (const id of ["nd-1", "csv-1", "json-1"]) expect((await server.catalog.getProduct(SITE, id)).id).toBe(id);
    const exported = await runCli(["export", ...connect(), "--format", "ndjson"]);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain('"id":"json-1"');
  });

  it("names what is wrong with a --site that is not TYPE/ID", async () => {
    await writeFile(join(server.dir, "x.ndjson"), `${productLine("x")}\n`);
    for (const [given, wrong] of [
      ["shop-1", /"shop-1" has no slash/],
      ["/shop-1", /"\/shop-1" has no type before its slash/],
      ["shopify/", /"shopify\/" has no id after its slash/],
    ] as const) {
      const result = await runCli(["import", join(server.dir, "x.ndjson"), ...connect(), "--site", given]);
      expect(result.code, given).toBe(2);
      expect(result.stderr, given).toMatch(wrong);
      expect(result.stderr, given).toContain("TYPE/ID");
    }
  });
});
