// catalog-kit import --merge: a file of some columns changes those fields of the products it
// names, by id or sku; --missing says what a row that names none does; the mistakes of the
// options are said before anything is sent.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type CatalogServer, SITE, startCatalogServer } from "./support/catalog-server.ts";
import { runCli } from "./support/run-cli.ts";

let server: CatalogServer;
beforeAll(async () => {
  server = await startCatalogServer();
  const product = (id: string) => ({
    id,
    sku: `SKU-${id}`,
    title: `Mug ${id}`,
    price: 10,
    available: true,
    featured_image: "https://img.example/m.png",
    url: `https://shop.example/${id}`,
  });
  await server.catalog.importProducts(SITE, [product("m1"), product("m2")]);
});
afterAll(() => server?.close());

const file = (name: string) => join(server.dir, name);

it("merges a sku,price,available CSV: only those fields change; --missing skip counts the rest", async () => {
  await writeFile(file("prices.csv"), "sku,price,available\nSKU-m1,12.5,false\nSKU-nobody,1,true\n");
  const refused = await runCli(["import", file("prices.csv"), ...server.connect, "--merge"]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain("400 PRODUCT_NOT_FOUND");
  expect(refused.stderr).toMatch(/row 3\s+sku\s+No product with sku "SKU-nobody"/);
  expect(await server.catalog.getProduct(SITE, "m1")).toMatchObject({ price: 10, available: true });

  const { code, stdout, stderr } = await runCli([
    "import",
    file("prices.csv"),
    ...server.connect,
    "--merge",
    "--missing",
    "skip",
    "--json",
  ]);
  expect(code).toBe(0);
  expect(JSON.parse(stdout)).toMatchObject({ total: 1, updated: 1, skipped: 1, skippedKeys: ["SKU-nobody"] });
  expect(stderr).toContain("Imported 1 product: 0 created, 1 updated, 0 unchanged, 1 skipped (SKU-nobody)");
  expect(server.posts.at(-1)?.["content-type"]).toBe("text/csv");
  expect(await server.catalog.getProduct(SITE, "m1")).toMatchObject({ title: "Mug m1", price: 12.5, available: false });
  expect(await server.catalog.getProduct(SITE, "m2")).toMatchObject({ price: 10, available: true });
});

it("says a mistake of --merge and --missing before sending anything, with exit code 2", async () => {
  await writeFile(file("stock.ndjson"), `${JSON.stringify({ id: "m2", available: false })}\n`);
  const sent = server.posts.length;
  for (const [args, said] of [
    [["--missing", "skip"], "--missing takes effect with --merge only"],
    [["--merge", "--missing", "maybe"], "--missing takes error, skip or create"],
    [["--merge", "--replace"], "Give --replace or --merge, not both"],
  ] as const) {
    const { code, stderr } = await runCli(["import", file("stock.ndjson"), ...server.connect, ...args]);
    expect(code, args.join(" ")).toBe(2);
    expect(stderr).toContain(said);
  }
  expect(server.posts.length).toBe(sent);
  const merged = await runCli(["import", file("stock.ndjson"), ...server.connect, "--merge", "--missing", "create"]);
  expect(merged.code).toBe(0);
  expect(await server.catalog.getProduct(SITE, "m2")).toMatchObject({ price: 10, available: false });
});

it("import --help names --merge and --missing", async () => {
  const { stdout } = await runCli(["import", "--help"]);
  expect(stdout).toContain("--merge");
  expect(stdout).toContain("--missing error|skip|create");
});
