// The tenants registry's rules over the memory store: sites and tokens made, listed and removed at
// run time, what the configuration file made kept, and two registries over one store agreeing.
import { hash } from "node:crypto";
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import {
  type CatalogStore,
  createCatalog,
  isCatalogError,
  openTenantRegistry,
  type Site,
  siteKey,
  type TenantRegistry,
  type TokenListing,
} from "@catalog-kit/catalog-core";
import { fc, test } from "@fast-check/vitest";
import { afterEach, describe, expect, it, vi } from "vitest";

const FILE_SITE: Site = { siteId: "file-shop", siteType: "shopify" };
const FILE_TOKEN: TokenListing = { id: "file:0", name: "ops", source: "file", sites: "*", scopes: ["admin"] };
const SHOP: Site = { siteId: "shop-1", siteType: "woocommerce" };
const opened: TenantRegistry[] = [];

async function open(store: CatalogStore = createMemoryStore(), refreshMs = 20): Promise<TenantRegistry> {
  const registry = await openTenantRegistry({
    store,
    refreshMs,
    file: { sites: [FILE_SITE], tokens: [FILE_TOKEN] },
  });
  opened.push(registry);
  return registry;
}

afterEach(() => {
  for (const registry of opened.splice(0)) registry.close();
});

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    if (isCatalogError(error)) return error.code;
    throw error;
  }
}

const product = (id: string) => ({
  id,
  sku: `SKU-${id}`,
  title: id,
  available: true,
  featured_image: "https://img.example/a.jpg",
  url: "https://shop.example/a",
});

describe("sites", () => {
  it("are made, listed with their source, seen by a catalog, and deleted", async () => {
    const store = createMemoryStore();
    const registry = await open(store);
    const catalog = createCatalog({ store, sites: [FILE_SITE], directory: registry });
    expect(catalog.hasSite(SHOP)).toBe(false);
    const made = await registry.createSite(SHOP);
    expect(made).toMatchObject({ ...SHOP, source: "api" });
    expect(catalog.hasSite(SHOP)).toBe(true);
    expect(registry.listSites().map((site) => [site.siteId, site.source])).toEqual([
      ["file-shop", "file"],
      ["shop-1", "api"],
    ]);
    await catalog.importProducts(SHOP, [product("a"), product("b")]);
    expect(await codeOf(registry.deleteSite(SHOP))).toBe("CONFLICT");
    expect(catalog.hasSite(SHOP)).toBe(true);
    expect(await registry.deleteSite(SHOP, { deleteProducts: true })).toEqual({ deleted: 2 });
    expect(catalog.hasSite(SHOP)).toBe(false);
    expect(await store.list(SHOP, undefined, 10)).toEqual([]);
    expect(await codeOf(catalog.listProducts(SHOP))).toBe("SITE_NOT_FOUND");
    // Made again, it is empty.
    await registry.createSite(SHOP);
    expect((await catalog.listProducts(SHOP)).products).toEqual([]);
  });

  it("answer CONFLICT for a site that exists, in the file or the registry, and for deleting the file's", async () => {
    const registry = await open();
    expect(await codeOf(registry.createSite(FILE_SITE))).toBe("CONFLICT");
    await registry.createSite(SHOP);
    expect(await codeOf(registry.createSite(SHOP))).toBe("CONFLICT");
    expect(await codeOf(registry.deleteSite(FILE_SITE, { deleteProducts: true }))).toBe("CONFLICT");
    expect(await codeOf(registry.deleteSite({ siteId: "none", siteType: "x" }))).toBe("SITE_NOT_FOUND");
  });

  it("refuse names that are not well-formed Unicode, blank or too long, located by pointer", async () => {
    const registry = await open();
    for (const siteId of ["\ud800", "a\udc00b", " ", "x".repeat(257), "a\u0000"]) {
      const error = await registry.createSite({ siteId, siteType: "shopify" }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "VALIDATION_FAILED", problems: [{ pointer: "/siteId" }] });
    }
    expect(await codeOf(registry.createSite({ siteId: "a", siteType: "b", extra: 1 }))).toBe("VALIDATION_FAILED");
    expect(registry.listSites()).toHaveLength(1);
  });

  it("are made empty, whatever a raced import left in the store under their names", async () => {
    const store = createMemoryStore();
    const registry = await open(store);
    // What an import that began before a deletion's mark, and committed after it, leaves behind.
    const staged = await store.beginImport(SHOP, { dryRun: false });
    await staged.add([product("left") as never], [0]);
    await staged.commit();
    await registry.createSite(SHOP);
    expect(await store.list(SHOP, undefined, 10)).toEqual([]);
  });

  it("made at once by two registries over one store: one is made, the other is told it exists", async () => {
    const store = createMemoryStore();
    const [one, two] = [await open(store), await open(store)];
    const codes = await Promise.all([codeOf(one.createSite(SHOP)), codeOf(two.createSite(SHOP))]);
    expect(codes.sort()).toEqual(["CONFLICT", undefined]);
    expect(one.listSites()).toEqual(two.listSites());
  });

  it("being deleted refuse imports, and a deletion cut short is resumed by deleting again", async () => {
    const store = createMemoryStore();
    const registry = await open(store);
    const catalog = createCatalog({ store, directory: registry });
    await registry.createSite(SHOP);
    await catalog.importProducts(SHOP, [product("a")]);
    // What a process that died after its mark leaves behind.
    const key = `site:${siteKey(SHOP)}`;
    const record = JSON.parse((await store.readTenants())?.entries.find((e) => e.key === key)?.value ?? "{}");
    await store.writeTenant({ key, value: JSON.stringify({ ...record, deleting: true }), when: "present" });
    await registry.refresh();
    expect(registry.listSites().at(-1)).toMatchObject({ ...SHOP, deleting: true });
    expect(await codeOf(catalog.importProducts(SHOP, [product("b")]))).toBe("SITE_NOT_FOUND");
    expect(await codeOf(registry.createSite(SHOP))).toBe("CONFLICT");
    expect(await registry.deleteSite(SHOP, { deleteProducts: true })).toEqual({ deleted: 1 });
    expect(registry.listSites()).toHaveLength(1);
  });
});

describe("tokens", () => {
  it("are made with a secret shown once, found by its digest only, listed without it, and revoked", async () => {
    const registry = await open();
    const { token, secret } = await registry.createToken({ name: "shop feed", sites: "*", scopes: ["read"] });
    expect(secret).toMatch(/^ck_[A-Za-z0-9_-]{43}$/);
    expect(registry.tokenByDigest(hash("sha256", secret, "hex"))).toMatchObject({ id: token.id, name: "shop feed" });
    expect(registry.tokenByDigest(hash("sha256", `${secret}x`, "hex"))).toBeUndefined();
    const listed = registry.listTokens();
    expect(listed).toEqual([FILE_TOKEN, { ...token, source: "api" }]);
    expect(JSON.stringify(listed)).not.toContain(secret.slice(3));
    expect(JSON.stringify(listed)).not.toContain(hash("sha256", secret, "hex"));
    expect(await codeOf(registry.revokeToken(token.id, token.id))).toBe("CONFLICT");
    await registry.revokeToken(token.id, "file:0");
    expect(registry.tokenByDigest(hash("sha256", secret, "hex"))).toBeUndefined();
    expect(await codeOf(registry.revokeToken(token.id))).toBe("TOKEN_NOT_FOUND");
    expect(await codeOf(registry.revokeToken("file:0"))).toBe("CONFLICT");
  });

  it("have ids a command line takes as they are: never one that begins with a dash", async () => {
    const registry = await open();
    // With ids of random base64url, one in 64 began with "-" (`catalog-kit tokens revoke -x...`
    // then read it as an option): among 300, one did with a chance of 99 %.
    const ids = [];
    for (let i = 0; i < 300; i++)
      ids.push((await registry.createToken({ name: `t${i}`, sites: "*", scopes: ["read"] })).token.id);
    expect(ids.filter((id) => !/^[0-9a-f]{24}$/.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(300);
  });

  it("expire: found until expiresAt, not after", async () => {
    const registry = await open();
    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    const { secret } = await registry.createToken({ name: "t", sites: "*", scopes: ["read"], expiresAt });
    const digest = hash("sha256", secret, "hex");
    expect(registry.tokenByDigest(digest)).toBeDefined();
    expect(registry.tokenByDigest(digest, Date.parse(expiresAt))).toBeUndefined();
    const past = { name: "t", sites: "*", scopes: ["read"], expiresAt: "2000-01-01T00:00:00Z" };
    expect(await codeOf(registry.createToken(past))).toBe("VALIDATION_FAILED");
  });

  it("refuse a bad request, located by pointer: unknown sites, scopes, limits, names", async () => {
    const registry = await open();
    const bad = [
      [{ name: "t", sites: [SHOP], scopes: ["read"] }, "/sites/0"],
      [{ name: "t", sites: "*", scopes: ["write"] }, "/scopes/0"],
      [{ name: "t", sites: "*", scopes: [] }, "/scopes"],
      [{ name: "", sites: "*", scopes: ["read"] }, "/name"],
      [
        { name: "t", sites: "*", scopes: ["read"], rateLimits: { requestsPerMinute: 0 } },
        "/rateLimits/requestsPerMinute",
      ],
      [{ name: "t", sites: "*", scopes: ["read"], expiresAt: "tomorrow" }, "/expiresAt"],
    ] as const;
    for (const [input, pointer] of bad) {
      const error = await registry.createToken(input).catch((e: unknown) => e);
      expect(error, pointer).toMatchObject({ code: "VALIDATION_FAILED", problems: [{ pointer }] });
    }
    expect(registry.listTokens()).toEqual([FILE_TOKEN]);
  });

  it("ten thousand of them: each found by its digest in constant work", async () => {
    const store = createMemoryStore();
    const registry = await open(store, 60_000);
    const secrets: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      const record = {
        id: `t${i}`,
        name: `token ${i}`,
        sites: "*",
        scopes: ["read"],
        sha256: hash("sha256", `secret-${i}`, "hex"),
        createdAt: new Date(0).toISOString(),
      };
      await store.writeTenant({ key: `token:t${i}`, value: JSON.stringify(record), when: "absent" });
      secrets.push(`secret-${i}`);
    }
    const started = performance.now();
    await registry.refresh();
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(registry.listTokens()).toHaveLength(10_001);
    expect(registry.tokenByDigest(hash("sha256", "secret-9999", "hex"))?.id).toBe("t9999");
  });
});

describe("two registries over one store", () => {
  it("see each other's changes within refreshMs, without being told", async () => {
    const store = createMemoryStore();
    const [one, two] = [await open(store, 50), await open(store, 50)];
    const { secret, token } = await one.createToken({ name: "t", sites: "*", scopes: ["read"] });
    await one.createSite(SHOP);
    // Polled, never refreshed by hand: only `two`'s own timer can make these hold.
    await vi.waitFor(() => expect(two.hasSite(SHOP)).toBe(true), { timeout: 2_000, interval: 10 });
    expect(two.tokenByDigest(hash("sha256", secret, "hex"))?.id).toBe(token.id);
    await one.revokeToken(token.id);
    await vi.waitFor(() => expect(two.tokenByDigest(hash("sha256", secret, "hex"))).toBeUndefined(), {
      timeout: 2_000,
      interval: 10,
    });
  });
});

// A model of the registry: the sites and token ids made through it, which every answer must match.
const SITES = [SHOP, { siteId: "shop-2", siteType: "woocommerce" }, FILE_SITE];
const command = fc.oneof(
  fc.record({ kind: fc.constant("createSite" as const), site: fc.constantFrom(...SITES) }),
  fc.record({
    kind: fc.constant("deleteSite" as const),
    site: fc.constantFrom(...SITES),
    deleteProducts: fc.boolean(),
  }),
  fc.record({ kind: fc.constant("import" as const), site: fc.constantFrom(...SITES) }),
  fc.record({ kind: fc.constant("createToken" as const), site: fc.option(fc.constantFrom(...SITES)) }),
  fc.record({ kind: fc.constant("revokeToken" as const), index: fc.nat(5) }),
);

test.prop([fc.array(command, { maxLength: 12 })], { numRuns: 40 })(
  "admin commands in any order keep the registry equal to a simple model",
  async (commands) => {
    const store = createMemoryStore();
    const registry = await openTenantRegistry({
      store,
      refreshMs: 1,
      file: { sites: [FILE_SITE], tokens: [FILE_TOKEN] },
    });
    const catalog = createCatalog({ store, sites: [FILE_SITE], directory: registry });
    const sites = new Map<string, number>([[siteKey(FILE_SITE), 0]]); // key → products
    const tokens: string[] = ["file:0"];
    const revoked = new Set<string>();
    try {
      for (const c of commands) {
        const key = "site" in c && c.site !== null ? siteKey(c.site) : "";
        if (c.kind === "createSite") {
          const code = await codeOf(registry.createSite(c.site));
          expect(code).toBe(sites.has(key) ? "CONFLICT" : undefined);
          if (!sites.has(key)) sites.set(key, 0);
        } else if (c.kind === "deleteSite") {
          const held = sites.get(key);
          const expected =
            held === undefined
              ? "SITE_NOT_FOUND"
              : key === siteKey(FILE_SITE) || (held > 0 && !c.deleteProducts)
                ? "CONFLICT"
                : undefined;
          expect(await codeOf(registry.deleteSite(c.site, { deleteProducts: c.deleteProducts }))).toBe(expected);
          if (expected === undefined) sites.delete(key);
        } else if (c.kind === "import") {
          const code = await codeOf(catalog.importProducts(c.site, [product(`p${sites.get(key) ?? 0}`)]));
          expect(code).toBe(sites.has(key) ? undefined : "SITE_NOT_FOUND");
          if (sites.has(key)) sites.set(key, (sites.get(key) ?? 0) + 1);
        } else if (c.kind === "createToken") {
          const known = c.site === null || sites.has(siteKey(c.site));
          const input = { name: "t", sites: c.site === null ? "*" : [c.site], scopes: ["read"] };
          const made = await registry.createToken(input).catch((e: unknown) => e);
          if (known) tokens.push((made as { token: TokenListing }).token.id);
          else expect(made).toMatchObject({ code: "VALIDATION_FAILED" });
        } else {
          const id = tokens[c.index % tokens.length] as string;
          const expected = id.startsWith("file:") ? "CONFLICT" : revoked.has(id) ? "TOKEN_NOT_FOUND" : undefined;
          expect(await codeOf(registry.revokeToken(id))).toBe(expected);
          if (expected === undefined) revoked.add(id);
        }
        const apiSites = [...sites.keys()].filter((k) => k !== siteKey(FILE_SITE)).sort();
        expect(registry.listSites().map((site) => siteKey(site))).toEqual([siteKey(FILE_SITE), ...apiSites]);
        const listed = registry.listTokens().map((token) => token.id);
        expect(listed.sort()).toEqual(tokens.filter((id) => !revoked.has(id)).sort());
        for (const site of SITES) expect(catalog.hasSite(site)).toBe(sites.has(siteKey(site)));
      }
    } finally {
      registry.close();
    }
  },
);

describe("a store that fails", () => {
  it("at start-up opens the registry with the file's tenants when told where errors go, and reads it once it answers", async () => {
    const store = createMemoryStore();
    await store.writeTenant({
      key: `site:${siteKey(SHOP)}`,
      value: JSON.stringify({ ...SHOP, createdAt: new Date(0).toISOString() }),
      when: "absent",
    });
    let failing = true;
    const errors: unknown[] = [];
    const flaky = {
      ...store,
      readTenants: (since?: number) => (failing ? Promise.reject(new Error("down")) : store.readTenants(since)),
    };
    await expect(openTenantRegistry({ store: flaky })).rejects.toThrow("down");
    const registry = await openTenantRegistry({
      store: flaky,
      refreshMs: 10,
      file: { sites: [FILE_SITE], tokens: [] },
      onError: (error) => errors.push(error),
    });
    opened.push(registry);
    expect(registry.hasSite(FILE_SITE)).toBe(true);
    expect(registry.hasSite(SHOP)).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 50));
    failing = false;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(registry.hasSite(SHOP)).toBe(true);
    expect(errors.length).toBeGreaterThan(1);
  });
});
