// catalog-kit sites and tokens: a server's sites and tokens through its admin API, a refusal
// printed as its problem, a new token's secret alone on standard output.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { createCatalog, openTenantRegistry, type TenantRegistry } from "@catalog-kit/catalog-core";
import { fileTokenListings } from "@catalog-kit/http-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CatalogServer, SITE, startCatalogServer, TOKEN } from "./support/catalog-server.ts";
import { runCli } from "./support/run-cli.ts";

const ADMIN = "cli-admin-token";
let server: CatalogServer;
let registry: TenantRegistry;
let connect: string[];

beforeAll(async () => {
  const store = createMemoryStore();
  const tokens = [
    { token: TOKEN, sites: "*" as const },
    { token: ADMIN, sites: "*" as const, name: "ops", scopes: ["admin" as const] },
  ];
  registry = await openTenantRegistry({ store, file: { sites: [SITE], tokens: fileTokenListings(tokens) } });
  const catalog = createCatalog({ store, sites: [SITE], directory: registry });
  server = await startCatalogServer({ tokens, registry }, 0, catalog);
  await writeFile(join(server.dir, "admin"), `${ADMIN}\n`);
  connect = ["--url", server.url, "--token-file", join(server.dir, "admin")];
});
afterAll(async () => {
  registry?.close();
  await server?.close();
});

describe("catalog-kit sites", () => {
  it("creates, lists and deletes a site", async () => {
    const made = await runCli(["sites", "create", "woocommerce/shop-9", ...connect]);
    expect([made.code, made.stderr]).toEqual([0, "Made site woocommerce/shop-9\n"]);
    const listed = await runCli(["sites", "list", ...connect]);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^type +id +source +created +state$/);
    expect(lines[2]).toMatch(/^shopify +shop-1 +file$/);
    expect(lines[3]).toMatch(/^woocommerce +shop-9 +api +\d{4}-/);
    const json = await runCli(["sites", "list", "--json", ...connect]);
    expect(JSON.parse(json.stdout)).toHaveLength(2);
    const deleted = await runCli(["sites", "delete", "woocommerce/shop-9", "--delete-products", ...connect]);
    expect([deleted.code, deleted.stderr]).toEqual([0, "Site woocommerce/shop-9 deleted, with its 0 products\n"]);
  });

  it("prints the server's problem and exits 1 when refused, 2 when called wrong", async () => {
    const again = await runCli(["sites", "create", "shopify/shop-1", ...connect]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^409 CONFLICT: Site shopify\/shop-1 exists/);
    const forbidden = await runCli(["sites", "list", "--url", server.url], { env: { CATALOG_TOKEN: TOKEN } });
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toMatch(/^403 FORBIDDEN: This token lacks the admin scope/);
    expect((await runCli(["sites", "create", ...connect])).code).toBe(2);
    expect((await runCli(["sites", "create", "no-slash", ...connect])).stderr).toContain("TYPE/ID");
    expect((await runCli(["sites", "rename", ...connect])).code).toBe(2);
  });
});

describe("catalog-kit tokens", () => {
  it("creates a token whose secret alone goes to standard output, lists it without it, and revokes it", async () => {
    const made = await runCli([
      "tokens",
      "create",
      "--name",
      "feed",
      "--sites",
      "shopify/shop-1",
      "--scopes",
      "read,import",
      "--requests-per-minute",
      "600",
      ...connect,
    ]);
    expect(made.code).toBe(0);
    const secret = made.stdout.trimEnd();
    expect(secret).toMatch(/^ck_\S+$/);
    const id = /Made token (\S+) \("feed"\)/.exec(made.stderr)?.[1] as string;
    expect(made.stderr).toContain("shown this once");
    const page = await fetch(`${server.url}/external/product/v1?siteId=shop-1&siteType=shopify`, {
      headers: { "x-service-access-token": secret },
    });
    expect(page.status).toBe(200);
    const listed = await runCli(["tokens", "list", ...connect]);
    expect(listed.stdout).not.toContain(secret);
    expect(listed.stdout).toMatch(new RegExp(`${id} +feed +api +read,import +shopify/shop-1`));
    expect(listed.stdout).toMatch(/file:1 +ops +file +admin +\*/);
    const json = JSON.parse((await runCli(["tokens", "list", "--json", ...connect])).stdout);
    expect(json.find((t: { id: string }) => t.id === id)).toMatchObject({ rateLimits: { requestsPerMinute: 600 } });
    const revoked = await runCli(["tokens", "revoke", id, ...connect]);
    expect([revoked.code, revoked.stderr]).toEqual([0, expect.stringContaining(`Token ${id} ("feed") revoked`)]);
    const again = await runCli(["tokens", "revoke", id, ...connect]);
    expect([again.code, again.stderr]).toEqual([1, expect.stringMatching(/^404 TOKEN_NOT_FOUND/)]);
  });

  it("names what a creation lacks, and what the server refuses, by pointer", async () => {
    const missing = await runCli(["tokens", "create", "--name", "x", ...connect]);
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining("--scopes")]);
    const bad = await runCli(["tokens", "create", "--name", "x", "--sites", "*", "--scopes", "write", ...connect]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/400 VALIDATION_FAILED[\s\S]*body +\/scopes\/0 +Must be one of/);
    const self = await runCli(["tokens", "revoke", "file:1", ...connect]);
    expect([self.code, self.stderr]).toEqual([1, expect.stringMatching(/^409 CONFLICT/)]);
  });

  it("exits 3 when no server answers", async () => {
    const gone = await runCli(["tokens", "list", "--url", "http://127.0.0.1:9"], { env: { CATALOG_TOKEN: ADMIN } });
    expect(gone.code).toBe(3);
    expect(gone.stderr).toMatch(/^No answer from the server/);
  });
});
