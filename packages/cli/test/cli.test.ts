// The catalog-kit command against a server the test starts: imports with progress to a pipe,
// located problems as a table with a failing exit code, retries after a 503, export, config check.
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { type Catalog, createCatalog } from "@catalog-kit/catalog-core";
import { createCatalogHandler, type RunningServer, startServer } from "@catalog-kit/http-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const MAIN = fileURLToPath(new URL("../src/main.ts", import.meta.url));
const SITE = { siteId: "shop-1", siteType: "shopify" };
const TOKEN = "cli-test-token";

let dir: string;
let server: RunningServer;
let catalog: Catalog;
// Answers the next `unavailable` POSTs with 503 before they reach the catalog.
let unavailable = 0;
let posts = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "catalog-cli-"));
  await writeFile(join(dir, "token"), `${TOKEN}\n`);
  catalog = createCatalog({ store: createMemoryStore(), sites: [SITE] });
  const handler = createCatalogHandler(catalog, { tokens: [{ token: TOKEN, sites: "*" }] });
  server = await startServer({
    port: 0,
    handler: (req: IncomingMessage, res: ServerResponse) => {
      if (req.method === "POST") posts++;
      if (req.method === "POST" && unavailable > 0) {
        unavailable--;
        res
          .writeHead(503, { "retry-after": "1", connection: "close" })
          .end('{"status":503,"code":"STORAGE_UNAVAILABLE"}');
        return;
      }
      return handler(req, res);
    },
  });
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--conditions=@catalog-kit/source", "--import", "tsx", MAIN, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr })));
}

const connect = () => [
  "--url",
  server.url,
  "--site",
  `${SITE.siteType}/${SITE.siteId}`,
  "--token-file",
  join(dir, "token"),
];
const line = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id, sku: `S-${id}`, title: `T ${id}`, available: true, featured_image: "f", url: "u", ...extra });

describe("catalog-kit import", () => {
  it("streams a gzipped NDJSON file with progress lines on a pipe, and prints the summary", async () => {
    const file = join(dir, "catalog.ndjson.gz");
    const lines = Array.from({ length: 20_000 }, (_, i) => line(`p${i}`, { description: "x".repeat(200 + (i % 97)) }));
    await writeFile(file, gzipSync(lines.join("\n")));
    const { code, stdout, stderr } = await run("import", file, ...connect(), "--progress-every", "0.001");
    expect(stderr).toMatch(/\d+(\.\d)? [kM]?B of \d+(\.\d)? [kM]?B \(\d+%\), .*\/s, ETA/);
    expect(stderr).toMatch(/\(100%\)/);
    expect(stderr).toMatch(/this tool used \d+\.\d\d s of CPU/);
    expect(code).toBe(0);
    expect(JSON.parse(stdout.split("\n")[1] as string)).toMatchObject({ total: 20_000, created: 20_000 });
    expect(await catalog.getProduct(SITE, "p19999")).toMatchObject({ sku: "S-p19999" });
  });

  it("prints a bad file's problems as a table of rows and columns, and exits 1", async () => {
    const file = join(dir, "bad.csv");
    await writeFile(
      file,
      "id,sku,title,available,featured_image,url\nb1,B1,T,true,f,u\nb2,B2,T,maybe,f,u\nb3,,T,true,f,u\n",
    );
    const { code, stderr } = await run("import", file, ...connect());
    expect(code).toBe(1);
    expect(stderr).toContain("VALIDATION_FAILED");
    expect(stderr).toMatch(/row 3\s+available\s+Must be true or false/);
    expect(stderr).toMatch(/row 4\s+sku\s+/);
    await expect(catalog.getProduct(SITE, "b1")).rejects.toMatchObject({ code: "PRODUCT_NOT_FOUND" });
  });

  it("sends again after a 503, when Retry-After says, and a JSON array file with --replace", async () => {
    const file = join(dir, "catalog.json");
    await writeFile(file, JSON.stringify([JSON.parse(line("only"))]));
    unavailable = 1;
    posts = 0;
    const { code, stdout, stderr } = await run("import", file, ...connect(), "--replace");
    expect(stderr).toContain("503 from the server: trying again in 1 s");
    expect(posts).toBe(2);
    expect(code).toBe(0);
    expect(JSON.parse(stdout.split("\n")[1] as string)).toMatchObject({ total: 1, deleted: 20_000 });
  });

  it("refuses a call it cannot make with the usage and exit code 2", async () => {
    expect((await run("import", join(dir, "catalog.txt"), ...connect())).code).toBe(2);
    expect((await run("import", join(dir, "bad.csv"), "--url", server.url)).code).toBe(2);
    const unknown = await run("frobnicate");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Usage:");
  });
});

describe("catalog-kit export and config check", () => {
  it("writes the site as CSV or NDJSON to standard output", async () => {
    const ndjson = await run("export", ...connect(), "--format", "ndjson");
    expect(ndjson.code).toBe(0);
    expect(
      ndjson.stdout
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l).id),
    ).toEqual(["only"]);
    const csv = await run("export", ...connect());
    expect(csv.stdout).toBe(
      "id,sku,title,description,price,price_min,price_max,available,images,featured_image,url\nonly,S-only,T only,,,,,true,,f,u\n",
    );
  });

  it("validates a configuration and prints its settings with secrets redacted", async () => {
    const good = join(dir, "good.json");
    await writeFile(
      good,
      JSON.stringify({
        sites: [SITE],
        tokens: [{ token: "very-secret-token", sites: "*" }],
        storage: { adapter: "redis", url: "redis://user:hunter2@127.0.0.1:6379" },
      }),
    );
    const ok = await run("config", "check", good);
    expect(ok.code).toBe(0);
    expect(ok.stdout).not.toContain("very-secret-token");
    expect(ok.stdout).not.toContain("hunter2");
    expect(JSON.parse(ok.stdout)).toMatchObject({
      tokens: [{ token: "<redacted>" }],
      limits: { maxStreamBytes: 1_073_741_824 },
    });
    const bad = join(dir, "bad.json");
    await writeFile(
      bad,
      JSON.stringify({ sites: [SITE], tokens: [{ token: "t", sites: "*" }], limits: { maxBodyBytez: 1 } }),
    );
    const refused = await run("config", "check", bad);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("maxBodyBytez");
  });

  it("redacts a PostgreSQL password, in the URL's user part or as its parameter, and prints the defaults", async () => {
    const file = join(dir, "postgres.json");
    const url = "postgres://app:hunter2@127.0.0.1:5432/catalog?password=swordfish&sslmode=disable";
    const storage = { adapter: "postgres", url };
    await writeFile(file, JSON.stringify({ sites: [SITE], tokens: [{ token: "t", sites: "*" }], storage }));
    const ok = await run("config", "check", file);
    expect(ok.code).toBe(0);
    expect(ok.stdout).not.toContain("hunter2");
    expect(ok.stdout).not.toContain("swordfish");
    expect(JSON.parse(ok.stdout).storage).toEqual({
      adapter: "postgres",
      url: "postgres://app:redacted@127.0.0.1:5432/catalog?password=redacted&sslmode=disable",
      schema: "catalog",
      poolSize: 10,
    });
  });
});
