// The standalone server as `npm start` and `catalog-kit serve` run it: demo mode, configuration
// files and their errors, the environment, graceful shutdown and the access log.
import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type CliProcess,
  hasCompleteResponse,
  openRaw,
  parseCurl,
  parseRawResponse,
  performCurl,
  startCli,
  stopCli,
} from "@catalog-kit/test-support/http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

let dir: string;
const running: CliProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "catalog-cli-"));
});
afterEach(async () => {
  await Promise.all(running.splice(0).map(stopCli));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function cli(env: Record<string, string> = {}): CliProcess {
  const process = startCli(env);
  running.push(process);
  return process;
}

async function configFile(name: string, config: unknown): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, typeof config === "string" ? config : JSON.stringify(config));
  return file;
}

const site = { siteId: "shop-1", siteType: "shopify" };
const validConfig = {
  sites: [site],
  tokens: [{ token: "admin-secret", sites: "*" }],
  storage: { adapter: "memory" },
  limits: { maxBodyBytes: 52428800, maxProductsPerRequest: 100000 },
};

/** The access-log lines (JSON objects) among a server's stdout. */
function accessLinesOf(stdout: string): string[] {
  return stdout.split("\n").filter((line) => line.startsWith('{"time":'));
}

describe("demo mode (no CATALOG_CONFIG)", () => {
  it("prints a token and curl lines that work as printed", async () => {
    const server = cli();
    const out = await server.waitForOutput(/Read it back:\n(curl .*)\n/);
    const token = /Access token: (\S+)/.exec(out)?.[1] as string;
    expect(token.length).toBeGreaterThanOrEqual(32);
    const lines = out.split("\n").filter((line) => line.startsWith("curl "));
    expect(lines).toHaveLength(2);

    const importRequest = parseCurl(lines[0] as string);
    expect(importRequest.headers["x-service-access-token"]).toBe(token);
    const imported = await performCurl(importRequest);
    expect(imported.status).toBe(200);
    expect(await imported.json()).toMatchObject({ total: 1, created: 1 });

    const read = await performCurl(parseCurl(lines[1] as string));
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ id: "demo-1", sku: "DEMO-SKU-1" });

    const logged = await server.waitForOutput(/"method":"GET","path":"\/external\/product\/v1\/demo-1","status":200,/);
    const accessLines = accessLinesOf(logged);
    expect(accessLines).toHaveLength(2);
    for (const line of accessLines) {
      expect(line).not.toContain(token);
      expect(line).not.toContain("?");
      expect(JSON.parse(line)).toEqual({
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        method: expect.stringMatching(/^(GET|POST)$/),
        path: expect.stringMatching(/^\/external\/product\/v1/),
        status: 200,
        durationMs: expect.any(Number),
        requestId: expect.stringMatching(/^[\w.~:-]+$/),
      });
    }
  });

  it("generates a new token on every start", async () => {
    const [first, second] = [cli(), cli()];
    const tokenOf = async (server: CliProcess) =>
      /Access token: (\S+)/.exec(await server.waitForOutput(/Access token: \S+/))?.[1];
    expect(await tokenOf(first)).not.toBe(await tokenOf(second));
  });
});

describe("CATALOG_CONFIG", () => {
  it("starts with a valid file, accepts tokenSha256, and applies notFoundStatus", async () => {
    const file = await configFile("valid.json", {
      ...validConfig,
      tokens: [{ tokenSha256: createHash("sha256").update("hashed-secret").digest("hex"), sites: [site] }],
      notFoundStatus: 404,
    });
    const server = cli({ CATALOG_CONFIG: file });
    const out = await server.waitForOutput(/listening on (http:\S+)/);
    expect(out).not.toContain("hashed-secret");
    const url = /listening on (http:\S+)/.exec(out)?.[1] as string;
    const headers = { "x-service-access-token": "hashed-secret" };
    const missing = await fetch(`${url}/external/product/v1/nothing?siteId=shop-1&siteType=shopify`, { headers });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: "PRODUCT_NOT_FOUND" });
  });

  it("applies the configured rate limits, a token's own over them, with their headers", async () => {
    const file = await configFile("limited.json", {
      ...validConfig,
      tokens: [
        { token: "admin-secret", sites: "*" },
        { token: "own-secret", sites: "*", rateLimits: { requestsPerMinute: 1 } },
      ],
      rateLimits: { requestsPerMinute: 100, importsPerSite: 2 },
    });
    const server = cli({ CATALOG_CONFIG: file });
    const url = /listening on (http:\S+)/.exec(await server.waitForOutput(/listening on (http:\S+)/))?.[1] as string;
    const get = (token: string) =>
      fetch(`${url}/external/product/v1/nothing?siteId=shop-1&siteType=shopify`, {
        headers: { "x-service-access-token": token },
      });
    const first = await get("admin-secret");
    expect(first.headers.get("ratelimit-policy")).toBe('"requests";q=100;w=60, "imports";q=2;qu="concurrent-requests"');
    expect(first.headers.get("ratelimit")).toMatch(/^"requests";r=99;t=\d+$/);
    expect((await get("own-secret")).status).toBe(400);
    // A minute may end between two requests: the third is refused then.
    let refused = await get("own-secret");
    if (refused.status !== 429) refused = await get("own-secret");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({ code: "RATE_LIMITED", quota: "requests", limit: 1, window: 60 });
  });

  it("exports a site's feed in the currency its configuration names", async () => {
    const file = await configFile("currency.json", { ...validConfig, sites: [{ ...site, currency: "EUR" }] });
    const server = cli({ CATALOG_CONFIG: file });
    const url = /listening on (http:\S+)/.exec(await server.waitForOutput(/listening on (http:\S+)/))?.[1] as string;
    const headers = { "x-service-access-token": "admin-secret", "content-type": "application/json" };
    const product = {
      id: "p1",
      sku: "P-1",
      title: "Mug",
      price: 12.5,
      available: true,
      featured_image: "https://i.example/p1.png",
      url: "https://shop.example/p1",
    };
    const query = "siteId=shop-1&siteType=shopify";
    const imported = await fetch(`${url}/external/product/v1?${query}`, {
      method: "POST",
      headers,
      body: JSON.stringify({ product }),
    });
    expect(imported.status).toBe(200);
    const feed = await fetch(`${url}/external/product/v1/bulk/export?${query}&profile=google`, { headers });
    expect(feed.status).toBe(200);
    expect(feed.headers.get("content-type")).toBe("text/tab-separated-values; charset=utf-8");
    expect(await feed.text()).toContain("\t12.50 EUR\n");
  });

  const invalid: [string, unknown, string][] = [
    ["an unknown top-level key", { ...validConfig, site: [] }, "site: Unknown key"],
    ["an unknown token key", { ...validConfig, tokens: [{ tokn: "x", sites: "*" }] }, "tokens[0].tokn: Unknown key"],
    ["a negative limit", { ...validConfig, limits: { maxBodyBytes: -1 } }, "limits.maxBodyBytes"],
    ["an unknown adapter", { ...validConfig, storage: { adapter: "mongo" } }, "storage.adapter"],
    ["a redis storage with no url", { ...validConfig, storage: { adapter: "redis" } }, "storage"],
    ["a bad notFoundStatus", { ...validConfig, notFoundStatus: 410 }, "notFoundStatus"],
    ["a bad accessLog", { ...validConfig, accessLog: "yes" }, "accessLog: Must be true or false"],
    [
      "a token site that is not configured",
      { ...validConfig, tokens: [{ token: "t", sites: [{ siteId: "x", siteType: "y" }] }] },
      "tokens[0].sites[0]",
    ],
    ["a blank siteId", { ...validConfig, sites: [{ siteId: " ", siteType: "y" }] }, "sites[0].siteId"],
    ["a bad site currency", { ...validConfig, sites: [{ ...site, currency: "euro" }] }, "sites[0].currency: Must be"],
    [
      "a token with both token and tokenSha256",
      { ...validConfig, tokens: [{ token: "t", tokenSha256: "0".repeat(64), sites: "*" }] },
      "tokens[0]",
    ],
    ["a bad tokenSha256", { ...validConfig, tokens: [{ tokenSha256: "abc", sites: "*" }] }, "tokens[0].tokenSha256"],
    ["text that is not JSON", "{ sites: [", "Not valid JSON"],
    // Spliced as text: in an object literal __proto__ sets the prototype, so JSON.stringify never writes it.
    [
      "a __proto__ key",
      JSON.stringify(validConfig).replace("{", '{"__proto__":{"sites":"*","polluted":true},'),
      "__proto__: Unknown key",
    ],
  ];
  for (const [what, config, named] of invalid) {
    it(`refuses to start with ${what}, naming ${named}`, async () => {
      const server = cli({
        CATALOG_CONFIG: await configFile(`bad-${invalid.findIndex(([w]) => w === what)}.json`, config),
      });
      const code = await server.exited;
      expect(code).not.toBe(0);
      expect(server.stderr()).toContain(named);
      expect(server.stdout()).not.toContain("listening");
    });
  }

  it("refuses to start with a missing file or a bad PORT", async () => {
    const missing = cli({ CATALOG_CONFIG: join(dir, "does-not-exist.json") });
    expect(await missing.exited).not.toBe(0);
    expect(missing.stderr()).toContain("does-not-exist.json");
    const badPort = cli({ PORT: "eighty" });
    expect(await badPort.exited).not.toBe(0);
    expect(badPort.stderr()).toContain("PORT");
  });

  it("exits with an error when the port is taken", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    try {
      const server = cli({ PORT: String((taken.address() as AddressInfo).port) });
      expect(await server.exited).not.toBe(0);
      expect(server.stderr()).toContain("EADDRINUSE");
    } finally {
      taken.close();
    }
  });
});

describe("graceful shutdown", () => {
  it("on SIGTERM, finishes a request in flight, then exits with 0", async () => {
    const server = cli();
    const out = await server.waitForOutput(/Read it back:/);
    const url = /listening on (http:\S+)/.exec(out)?.[1] as string;
    const token = /Access token: (\S+)/.exec(out)?.[1] as string;
    const body = JSON.stringify({
      product: {
        id: "slow",
        sku: "SLOW",
        title: "Slow",
        available: true,
        featured_image: "https://i",
        url: "https://u",
      },
    });
    const raw = await openRaw(url);
    await raw.write(
      `POST /external/product/v1 HTTP/1.1\r\nHost: x\r\nX-Service-Access-Token: ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    await raw.write(body.slice(0, 20));
    await new Promise((resolve) => setTimeout(resolve, 200));

    server.child.kill("SIGTERM");
    await server.waitForOutput(/SIGTERM: finishing in-flight requests/);
    expect(server.child.exitCode).toBeNull();

    await raw.write(body.slice(20));
    const response = parseRawResponse(await raw.waitFor(hasCompleteResponse));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ created: 1 });
    expect(await server.exited).toBe(0);
    expect(server.stdout()).toContain('"method":"POST","path":"/external/product/v1","status":200');
  });

  it("on SIGTERM, writes every access-log line still queued before it exits", async () => {
    const server = cli();
    const out = await server.waitForOutput(/Read it back:/);
    const url = /listening on (http:\S+)/.exec(out)?.[1] as string;
    const ids = Array.from({ length: 25 }, (_, i) => `flush-${i}`);
    for (const id of ids) await fetch(`${url}/healthz`, { headers: { "x-request-id": id } });
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    const logged = accessLinesOf(server.stdout()).map((line) => (JSON.parse(line) as { requestId: string }).requestId);
    expect(logged).toEqual(ids);
  });

  it("writes no access log with ACCESS_LOG=off, and refuses a bad ACCESS_LOG", async () => {
    const server = cli({ ACCESS_LOG: "off" });
    const out = await server.waitForOutput(/Read it back:/);
    const url = /listening on (http:\S+)/.exec(out)?.[1] as string;
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    expect(accessLinesOf(server.stdout())).toEqual([]);
    const bad = cli({ ACCESS_LOG: "maybe" });
    expect(await bad.exited).not.toBe(0);
    expect(bad.stderr()).toContain("ACCESS_LOG");
  });

  it("on SIGINT with nothing in flight, exits with 0 at once", async () => {
    const server = cli();
    await server.waitForOutput(/listening/);
    server.child.kill("SIGINT");
    expect(await server.exited).toBe(0);
  });
});
