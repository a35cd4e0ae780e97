import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../src/config.ts";
import { catalogSites, siteCurrencies } from "../src/sites.ts";
import { checkStorage } from "../src/storage/load.ts";
import { WEBHOOK_DELIVERY_DEFAULTS } from "../src/webhooks/webhook-config.ts";
import { configIssues } from "./support/config-issues.ts";

// The example of the API contract, verbatim.
const contractExample = {
  sites: [{ siteId: "shop-1", siteType: "shopify" }],
  tokens: [
    { token: "admin-secret", sites: "*" },
    { token: "shop1-secret", sites: [{ siteId: "shop-1", siteType: "shopify" }] },
  ],
  storage: { adapter: "memory" },
  limits: { maxBodyBytes: 52428800, maxProductsPerRequest: 100000 },
};

const issuesOf = configIssues;

// A storage as loadConfig gives it: parsed, then its options validated by its adapter's module.
async function storageOf(storage: unknown): Promise<unknown> {
  const { storage: parsed } = parseConfig({ ...contractExample, storage });
  return (await checkStorage(parsed, { configDir: process.cwd() }, "configuration")).storage;
}

async function storageIssues(storage: unknown): Promise<readonly string[]> {
  const error = await storageOf(storage).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).issues;
}

describe("parseConfig", () => {
  it("accepts the contract's example and fills in defaults", () => {
    expect(parseConfig(contractExample)).toEqual({
      ...contractExample,
      limits: {
        ...contractExample.limits,
        maxConcurrentImports: 4,
        maxStreamBytes: 1_073_741_824,
        maxProductsPerStream: 10_000_000,
        requestTimeoutMs: 600_000,
        maxUploadsPerToken: 2,
        bodyBytesInFlight: 4 * 52428800,
        bodyIdleTimeoutMs: 10_000,
      },
      idempotency: { retentionMs: 86_400_000 },
      notFoundStatus: 400,
      accessLog: true,
      metrics: true,
      history: { keep: 1_000, maxAgeMs: 2_592_000_000, maxReportProblems: 10_000 },
      webhooks: [],
      webhookTargets: { allowPrivate: false },
      webhookDelivery: WEBHOOK_DELIVERY_DEFAULTS,
    });
    // The budget follows the body limit unless it is given.
    const small = parseConfig({ ...contractExample, limits: { maxBodyBytes: 1_000 } });
    expect(small.limits.bodyBytesInFlight).toBe(4_000);
    const minimal = parseConfig({ sites: contractExample.sites, tokens: [{ token: "t", sites: "*" }] });
    expect(minimal).toMatchObject({
      storage: { adapter: "sqlite" },
      limits: { maxBodyBytes: 52428800, maxProductsPerRequest: 100000, maxConcurrentImports: 4 },
      notFoundStatus: 400,
    });
  });

  it("accepts both redis forms, with a default key prefix", async () => {
    const url = await storageOf({ adapter: "redis", url: "redis://127.0.0.1:6390" });
    expect(url).toEqual({ adapter: "redis", url: "redis://127.0.0.1:6390", keyPrefix: "catalog" });
    const cluster = await storageOf({ adapter: "redis", cluster: ["redis://a:1", "redis://b:2"], keyPrefix: "p" });
    expect(cluster).toEqual({ adapter: "redis", cluster: ["redis://a:1", "redis://b:2"], keyPrefix: "p" });
    const waiting = {
      adapter: "redis",
      url: "redis://r:6379",
      keyPrefix: "p",
      waitForReplicas: { replicas: 1, timeoutMs: 500 },
    };
    expect(await storageOf(waiting)).toEqual(waiting);
    expect(await storageIssues({ ...waiting, waitForReplicas: { replicas: 0, timeout: 5 } })).toEqual([
      "storage.waitForReplicas.replicas: Must be at least 1",
      "storage.waitForReplicas.timeoutMs: Required key is missing",
      "storage.waitForReplicas.timeout: Unknown key",
    ]);
  });

  it("refuses a redis storage with both or neither of url and cluster, or a foreign url", async () => {
    const needs = ["storage: A redis storage needs exactly one of url and cluster"];
    expect(await storageIssues({ adapter: "redis" })).toEqual(needs);
    expect(await storageIssues({ adapter: "redis", url: "redis://x", cluster: ["redis://y"] })).toEqual(needs);
    expect(await storageIssues({ adapter: "redis", url: "http://x" })).toEqual([
      "storage.url: Must start with redis:// or rediss://",
    ]);
    expect(await storageIssues({ adapter: "redis", cluster: [] })).toEqual([
      "storage.cluster: Must list at least one node",
    ]);
  });

  it("accepts a postgres storage, with the adapter's default schema and pool size", async () => {
    for (const url of ["postgres://catalog@db:5432/catalog", "postgresql://u:p@db/catalog?sslmode=require"]) {
      expect(await storageOf({ adapter: "postgres", url })).toEqual({
        adapter: "postgres",
        url,
        schema: "catalog",
        poolSize: 10,
        queryTimeoutMs: 10_000,
      });
    }
    const tuned = {
      adapter: "postgres",
      url: "postgres://db/catalog",
      schema: "shop",
      poolSize: 25,
      queryTimeoutMs: 2_000,
    };
    expect(await storageOf(tuned)).toEqual(tuned);
  });

  it("refuses a postgres storage with a foreign url, a bad schema or pool size, or an unknown key", async () => {
    const issues = (rest: object) => storageIssues({ adapter: "postgres", ...rest });
    expect(await issues({})).toEqual(["storage.url: Required key is missing"]);
    for (const url of ["redis://db:6379", "http://db/catalog", "db:5432/catalog", "POSTGRES://db/catalog"]) {
      expect(await issues({ url })).toEqual(["storage.url: Must start with postgres:// or postgresql://"]);
    }
    const url = "postgres://db/catalog";
    expect(await issues({ url, schema: "", poolSize: 0 })).toEqual([
      "storage.schema: Must not be empty",
      "storage.poolSize: Must be at least 2",
    ]);
    // One connection would leave lookups none while an import holds it.
    expect(await issues({ url, poolSize: 1 })).toEqual(["storage.poolSize: Must be at least 2"]);
    expect(await issues({ url, poolSize: 2.5 })).toEqual(["storage.poolSize: Must be an integer"]);
    // 0 would mean "no timeout" to the driver: a silent network would then hang every call.
    expect(await issues({ url, queryTimeoutMs: 0 })).toEqual(["storage.queryTimeoutMs: Must be at least 1"]);
    expect(await issues({ url, queryTimeoutMs: 2 ** 31 })).toEqual([
      "storage.queryTimeoutMs: Must be at most 2147483647",
    ]);
    expect(await issues({ url, keyPrefix: "p" })).toEqual(["storage.keyPrefix: Unknown key"]);
    expect(await issues({ url, pool_size: 5 })).toEqual(["storage.pool_size: Unknown key"]);
  });

  it("takes any adapter name when parsing, and refuses a storage without one", () => {
    const outside = { adapter: "@acme/catalog-store", region: "eu", nested: { depth: 1 } };
    expect(parseConfig({ ...contractExample, storage: outside }).storage).toEqual(outside);
    expect(issuesOf({ ...contractExample, storage: { url: "redis://x" } })).toEqual([
      "storage.adapter: Required key is missing",
    ]);
    expect(issuesOf({ ...contractExample, storage: { adapter: "" } })).toEqual(["storage.adapter: Must not be empty"]);
    expect(issuesOf({ ...contractExample, storage: { adapter: 1 } })).toEqual(["storage.adapter: Must be a string"]);
    expect(issuesOf({ ...contractExample, storage: "memory" })).toEqual([
      'storage: Must be { "adapter": "<name>", ... }: memory, redis, postgres, sqlite, a package or a path',
    ]);
  });

  it("names every offending key path at once", () => {
    const issues = issuesOf({
      ...contractExample,
      extra: 1,
      tokens: [{ token: "", sites: "*", scope: "all" }],
      limits: { maxBodyBytes: 1.5 },
      storage: { adapter: "redis", url: "redis://x", cluster: ["redis://y"] },
    });
    expect(issues.join("\n")).toMatch(/^extra: Unknown key$/m);
    expect(issues.join("\n")).toMatch(/^tokens\[0\]\.token: /m);
    expect(issues.join("\n")).toMatch(/^tokens\[0\]\.scope: Unknown key$/m);
    expect(issues.join("\n")).toMatch(/^limits\.maxBodyBytes: Must be an integer$/m);
  });

  it("takes the fairness limits, and names a misspelt or bad one", () => {
    const limits = { maxUploadsPerToken: 1, bodyBytesInFlight: 1_000_000, bodyIdleTimeoutMs: 5_000 };
    expect(parseConfig({ ...contractExample, limits }).limits).toMatchObject(limits);
    const issues = issuesOf({ ...contractExample, limits: { bodyIdleTimeout: 5_000, maxUploadsPerToken: 0 } });
    expect(issues).toEqual(["limits.maxUploadsPerToken: Must be at least 1", "limits.bodyIdleTimeout: Unknown key"]);
  });

  it("takes rate limits, at the top and per token, and names a bad quota at its key", () => {
    const rateLimits = { requestsPerMinute: 6000, importBytesPerMinute: 2147483648, importsPerSite: 2 };
    const tokens = [{ token: "t", sites: "*", rateLimits: { requestsPerMinute: 10 } }];
    const config = parseConfig({ ...contractExample, rateLimits, tokens });
    expect(config.rateLimits).toEqual(rateLimits);
    expect(config.tokens[0]?.rateLimits).toEqual({ requestsPerMinute: 10 });
    expect(parseConfig(contractExample).rateLimits).toBeUndefined();
    const issues = issuesOf({
      ...contractExample,
      rateLimits: { requestsPerMinute: 0, importsPerSite: 1.5, requestsPerHour: 1 },
      tokens: [{ token: "t", sites: "*", rateLimits: { importBytesPerMinute: "1" } }],
    });
    expect(issues).toEqual([
      "tokens[0].rateLimits.importBytesPerMinute: Must be a number",
      "rateLimits.requestsPerMinute: Must be at least 1",
      "rateLimits.importsPerSite: Must be a whole number",
      "rateLimits.requestsPerHour: Unknown key",
    ]);
  });

  it("checks that token sites and default sites are configured sites of the token", () => {
    const other = { siteId: "shop-2", siteType: "shopify" };
    expect(issuesOf({ ...contractExample, tokens: [{ token: "t", sites: "*", defaultSite: other }] })).toEqual([
      'tokens[0].defaultSite: Site shopify/shop-2 is not in "sites"',
    ]);
    const two = { ...contractExample, sites: [...contractExample.sites, other] };
    expect(
      issuesOf({ ...two, tokens: [{ token: "t", sites: [other], defaultSite: contractExample.sites[0] }] }),
    ).toEqual(["tokens[0].defaultSite: Must be one of the token's sites"]);
  });

  it("takes a site's currency, for its feeds, and names a bad one at its site", () => {
    const priced = { siteId: "shop-2", siteType: "shopify", currency: "EUR" };
    const config = parseConfig({ ...contractExample, sites: [...contractExample.sites, priced] });
    expect(config.sites[1]).toEqual(priced);
    // The catalog knows a site by its names; the handler asks for its currency.
    expect(catalogSites(config)).toEqual([contractExample.sites[0], { siteId: "shop-2", siteType: "shopify" }]);
    const currency = siteCurrencies(config);
    expect(currency({ siteId: "shop-2", siteType: "shopify" })).toBe("EUR");
    expect(currency({ siteId: "shop-1", siteType: "shopify" })).toBeUndefined();
    const bad = (value: unknown) =>
      issuesOf({ ...contractExample, sites: [contractExample.sites[0], { ...priced, currency: value }] });
    const message = "sites[1].currency: Must be an ISO 4217 currency code: three capital letters, such as USD";
    for (const value of ["eur", "EURO", "", "E1R"]) expect(bad(value), value).toEqual([message]);
    expect(bad(978)).toEqual(["sites[1].currency: Must be a string"]);
    // A token's site is named, not priced: the currency is the site's configuration.
    expect(issuesOf({ ...contractExample, tokens: [{ token: "t", sites: [priced] }] })).toEqual([
      'tokens[0].sites: Must be "*" or a list of sites',
    ]);
  });

  it("requires sites and tokens", () => {
    expect(issuesOf({})).toEqual(["sites: Required key is missing", "tokens: Required key is missing"]);
    expect(issuesOf({ ...contractExample, sites: [] })).toEqual(["sites: Must list at least one site"]);
    expect(issuesOf("text")[0]).toMatch(/^\(top level\): /);
  });
});
