// The standalone server's tenants: tokens of the file with a name and scopes, the admin API over
// the opened store, and its audit trail on stdout, one JSON line per action.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CliProcess, startCli, stopCli } from "@catalog-kit/test-support/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatAudit } from "../src/audit-log.ts";
import { ConfigError, parseConfig } from "../src/config.ts";

let dir: string;
let server: CliProcess | undefined;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "catalog-tenants-"));
});
afterAll(async () => {
  if (server !== undefined) await stopCli(server);
  await rm(dir, { recursive: true, force: true });
});

const site = { siteId: "shop-1", siteType: "shopify" };
const config = {
  sites: [site],
  tokens: [
    { token: "ops-secret", sites: "*", name: "ops", scopes: ["admin", "read"] },
    { token: "shop-secret", sites: [site] },
  ],
  storage: { adapter: "memory" },
};

describe("the configuration's tokens", () => {
  it("take an optional name and scopes, each scope known and given once", () => {
    expect(parseConfig(config).tokens[0]).toMatchObject({ name: "ops", scopes: ["admin", "read"] });
    expect(parseConfig(config).tokens[1]).not.toHaveProperty("scopes");
    const bad = { ...config, tokens: [{ token: "x", sites: "*", scopes: ["write", "read", "read"], name: "" }] };
    let issues: readonly string[] = [];
    try {
      parseConfig(bad);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      issues = (error as ConfigError).issues;
    }
    expect(issues.join("\n")).toMatch(/tokens\[0\]\.name/);
    expect(issues.join("\n")).toMatch(/tokens\[0\]\.scopes\[0\]: Must be one of "read", "import", "delete", "admin"/);
  });
});

describe("the admin API of the standalone server", () => {
  it("makes a site and a token at run time, and writes each admin action (a refused one too) as one audit line", async () => {
    const file = join(dir, "tenants.json");
    await writeFile(file, JSON.stringify(config));
    server = startCli({ CATALOG_CONFIG: file });
    const url = /listening on (http:\S+)/.exec(await server.waitForOutput(/listening on (http:\S+)/))?.[1] as string;
    const post = (path: string, body: unknown, token = "ops-secret") =>
      fetch(url + path, {
        method: "POST",
        headers: { "x-service-access-token": token, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const forbidden = await post("/admin/v1/sites", { siteId: "shop-2", siteType: "shopify" }, "shop-secret");
    expect(forbidden.status).toBe(403);
    expect((await post("/admin/v1/sites", { siteId: "shop-2", siteType: "shopify" })).status).toBe(201);
    const made = await post("/admin/v1/tokens", {
      name: "feed",
      sites: [{ siteId: "shop-2", siteType: "shopify" }],
      scopes: ["import"],
    });
    const { token, id } = (await made.json()) as { token: string; id: string };
    const imported = await post(
      "/external/product/v1/bulk",
      {
        products: [
          { id: "p1", sku: "P-1", title: "Mug", available: true, featured_image: "https://i/p", url: "https://u/p" },
        ],
      },
      token,
    );
    expect(imported.status).toBe(200);
    const listed = await fetch(`${url}/admin/v1/tokens`, { headers: { "x-service-access-token": "ops-secret" } });
    expect(((await listed.json()) as { tokens: { id: string; name: string }[] }).tokens.map((t) => t.name)).toEqual([
      "ops",
      "tokens[1]",
      "feed",
    ]);
    const out = await server.waitForOutput(/"event":"admin","action":"listTokens"/);
    const audit = out
      .split("\n")
      .filter((line) => line.includes('"event":"admin"'))
      .map((line) => JSON.parse(line));
    expect(audit).toEqual([
      expect.objectContaining({ action: "createSite", status: 403, tokenName: "tokens[1]", tokenId: "file:1" }),
      expect.objectContaining({
        action: "createSite",
        status: 201,
        tokenName: "ops",
        tokenId: "file:0",
        site: { siteId: "shop-2", siteType: "shopify" },
      }),
      expect.objectContaining({ action: "createToken", status: 201, tokenName: "ops", target: id }),
      expect.objectContaining({ action: "listTokens", status: 200, tokenName: "ops" }),
    ]);
    expect(out).not.toContain(token);
    expect(server.stderr()).toBe("");
  });

  it("formats an audit line as JSON with its time first", () => {
    const entry = {
      time: "2026-01-01T00:00:00.000Z",
      action: "revokeToken",
      status: 200,
      requestId: "r",
      tokenId: "file:0",
      tokenName: "ops",
      target: "abc",
    } as const;
    expect(formatAudit(entry)).toBe(
      '{"time":"2026-01-01T00:00:00.000Z","event":"admin","action":"revokeToken","status":200,"requestId":"r","tokenId":"file:0","tokenName":"ops","target":"abc"}',
    );
  });
});
