// Each rule that once had two copies now has one home; these tests pin what the callers get from
// it: the route table's actions and Allow headers, the token rules, the site fields of an import
// body, and the product limit the handler publishes.
import { type Site, SiteSchema, siteKey } from "@catalog-kit/catalog-core";
import { fc, test } from "@fast-check/vitest";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { hasOneSecret, isTokenSite } from "../src/access-token.ts";
import { readEnvelope } from "../src/envelope.ts";
import { ALLOW, actionOf, type Resource } from "../src/routes.ts";
import { startTestServer } from "./support/test-server.ts";

const KINDS: Resource["kind"][] = ["single", "bulk", "csv", "export", "product", "health", "openapi", "metrics"];
const METHODS = ["GET", "HEAD", "POST", "DELETE", "PUT", "PATCH", "OPTIONS", "TRACE", "get", ""];

describe("the route table", () => {
  it("gives the Allow headers of every resource, as published before", () => {
    expect(ALLOW).toEqual({
      single: "GET, HEAD, POST",
      bulk: "GET, HEAD, PATCH, DELETE, POST",
      csv: "POST",
      export: "GET, HEAD",
      product: "GET, HEAD, PATCH, DELETE",
      health: "GET, HEAD",
      openapi: "GET, HEAD",
      metrics: "GET, HEAD",
      adminSites: "GET, HEAD, POST",
      adminSite: "DELETE",
      adminTokens: "GET, HEAD, POST",
      adminToken: "DELETE",
      // The history's list, where PATCH and DELETE stay those of the product "imports".
      imports: "GET, HEAD, PATCH, DELETE",
      importRecord: "GET, HEAD",
      importProblems: "GET, HEAD",
    });
  });

  test.prop([fc.constantFrom(...KINDS), fc.oneof(fc.constantFrom(...METHODS), fc.string())])(
    "has an action for exactly the methods its Allow header lists",
    (kind, method) => {
      expect(actionOf(kind, method) !== undefined).toBe(ALLOW[kind].split(", ").includes(method));
    },
  );

  it("maps HEAD to GET, and GET/PATCH/DELETE on bulk to those of a product", () => {
    for (const kind of KINDS) expect(actionOf(kind, "HEAD")).toBe(actionOf(kind, "GET"));
    expect([
      actionOf("bulk", "GET"),
      actionOf("bulk", "PATCH"),
      actionOf("bulk", "DELETE"),
      actionOf("bulk", "POST"),
    ]).toEqual(["get", "patch", "delete", "bulk"]);
    expect(actionOf("product", undefined)).toBeUndefined();
  });
});

const site = fc.record({ siteId: fc.string(), siteType: fc.string() });

describe("the token rules", () => {
  test.prop([fc.option(fc.string(), { nil: undefined }), fc.option(fc.string(), { nil: undefined })])(
    "want exactly one of token and tokenSha256",
    (token, tokenSha256) => {
      expect(hasOneSecret({ token, tokenSha256 })).toBe((token === undefined) !== (tokenSha256 === undefined));
    },
  );

  test.prop([fc.array(site), site])("a default site must be one of the token's sites", (sites, candidate) => {
    const listed = sites.some((own: Site) => own.siteId === candidate.siteId && own.siteType === candidate.siteType);
    expect(isTokenSite(sites, candidate)).toBe(listed);
    expect(isTokenSite("*", candidate)).toBe(true);
    expect(isTokenSite([...sites, candidate], candidate)).toBe(true);
    expect(siteKey(candidate)).toBe(siteKey({ ...candidate }));
  });
});

describe("the site fields of an import body", () => {
  test.prop([
    fc.oneof(
      fc.string(),
      fc.constantFrom(" ", "\t\n", "x".repeat(257), " ".repeat(300)),
      fc.anything().filter((value) => value !== undefined),
    ),
  ])("follow SiteSchema, except that a name too long for any site goes on to be an unknown site", (value) => {
    const envelope = readEnvelope({ siteId: value, product: {} }, "product");
    const issues = v.safeParse(SiteSchema.entries.siteId, value).issues ?? [];
    const refused = issues.filter((issue) => issue.type !== "max_length");
    expect(envelope.problems).toEqual(refused.map((issue) => ({ pointer: "/siteId", message: issue.message })));
    expect(envelope.siteId).toBe(refused.length === 0 ? value : undefined);
  });
});

describe("the product limit in /openapi.json", () => {
  it("is the one the catalog enforces, unless the deprecated option replaces it", async () => {
    const limitOf = async (options: { maxProducts?: number; maxProductsPerRequest?: number }) => {
      const server = await startTestServer(options);
      try {
        const document = (await (await server.request("GET", "/openapi.json")).json()) as {
          "x-limits": { maxProductsPerRequest: number };
        };
        return document["x-limits"].maxProductsPerRequest;
      } finally {
        await server.close();
      }
    };
    expect(await limitOf({})).toBe(100_000);
    expect(await limitOf({ maxProducts: 7 })).toBe(7);
    expect(await limitOf({ maxProducts: 7, maxProductsPerRequest: 9 })).toBe(9);
  });
});
