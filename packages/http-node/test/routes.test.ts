import { CatalogError } from "@catalog-kit/catalog-core";
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { decodeProductId, parseFlag, parseQuery, pathOf } from "../src/request-target.ts";
import { matchRoute } from "../src/routes.ts";

describe("matchRoute", () => {
  it("maps the fixed paths and product ids", () => {
    expect(matchRoute("/external/product/v1")).toEqual({ kind: "single" });
    expect(matchRoute("/external/product/v1/bulk")).toEqual({ kind: "bulk" });
    expect(matchRoute("/external/product/v1/bulk/csv")).toEqual({ kind: "csv" });
    expect(matchRoute("/external/product/v1/abc%2F")).toEqual({ kind: "product", rawId: "abc%2F" });
    expect(matchRoute("/healthz")).toEqual({ kind: "health" });
    expect(matchRoute("/openapi.json")).toEqual({ kind: "openapi" });
    for (const path of [
      "",
      "/",
      "/external/product/v1/",
      "/external/product/v1x",
      "/external/product/v1/a/b",
      "/external/product/v1/bulk/csv2",
    ]) {
      expect(matchRoute(path)).toBeUndefined();
    }
  });

  test.prop([fc.string({ minLength: 1 }).filter((s) => !s.includes("/") && s !== "bulk")])(
    "any one segment is a product id",
    (segment) => {
      expect(matchRoute(`/external/product/v1/${segment}`)).toEqual({ kind: "product", rawId: segment });
    },
  );
});

describe("pathOf", () => {
  it("strips the query, and scheme and authority of absolute-form targets", () => {
    expect(pathOf("/a/b?x=1", 4)).toBe("/a/b");
    expect(pathOf("/a/b", -1)).toBe("/a/b");
    expect(pathOf("http://host:1/a?x", 15)).toBe("/a");
    expect(pathOf("http://host:1", -1)).toBe("/");
    expect(pathOf("*", -1)).toBe("*");
  });
});

describe("decodeProductId", () => {
  test.prop([fc.string({ unit: "grapheme" })])("decodes encodeURIComponent exactly once", (id) => {
    expect(decodeProductId(encodeURIComponent(id))).toBe(id);
    expect(decodeProductId(encodeURIComponent(encodeURIComponent(id)))).toBe(encodeURIComponent(id));
  });

  it("rejects bad encoding as VALIDATION_FAILED naming productId", () => {
    for (const raw of ["%", "%E0%A4%A", "%zz", "%C0%AF"]) {
      expect(() => decodeProductId(raw)).toThrow(
        expect.objectContaining({
          code: "VALIDATION_FAILED",
          problems: [expect.objectContaining({ parameter: "productId" })],
        }),
      );
    }
  });
});

describe("parseQuery", () => {
  const names = ["siteId", "siteType", "by"] as const;

  test.prop([
    fc.record(
      { siteId: fc.string(), siteType: fc.string({ unit: "grapheme" }), by: fc.string() },
      { requiredKeys: [] },
    ),
  ])("reads back what URLSearchParams wrote", (values) => {
    expect(parseQuery(new URLSearchParams(values).toString(), names)).toEqual(values);
  });

  test.prop([fc.string()])("any text either parses or is VALIDATION_FAILED", (query) => {
    try {
      const values = parseQuery(query, names);
      expect(Object.keys(values).every((name) => (names as readonly string[]).includes(name))).toBe(true);
    } catch (error) {
      expect(error).toBeInstanceOf(CatalogError);
      expect((error as CatalogError).code).toBe("VALIDATION_FAILED");
    }
  });

  it("reports unknown, repeated and badly encoded parameters together", () => {
    try {
      parseQuery("siteId=a&siteId=b&dryrun=1&siteType=%zz&__proto__=x&&", names);
      expect.unreachable();
    } catch (error) {
      expect((error as CatalogError).problems.map((p) => (p as { parameter?: string }).parameter)).toEqual([
        "siteId",
        "dryrun",
        "siteType",
        "__proto__",
      ]);
    }
  });

  it("reads dryRun as true or false only", () => {
    expect(parseFlag("dryRun", undefined)).toBe(false);
    expect(parseFlag("dryRun", "false")).toBe(false);
    expect(parseFlag("dryRun", "true")).toBe(true);
    for (const value of ["", "1", "TRUE", "yes"]) expect(() => parseFlag("dryRun", value)).toThrow(CatalogError);
  });
});
