// Lookups and deletes by id and sku, the site an import lands in, the token a request needs, and
// /healthz (which asks the store): on every store, each behind one server, with the same products in it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { problemOf } from "./support/problem.ts";
import { describeEachStore } from "./support/stores.ts";
import {
  product,
  productPath,
  SITE_A,
  SITE_B,
  startTestServer,
  type TestServer,
  TOKENS,
} from "./support/test-server.ts";

const BASE = "/external/product/v1";
const A = { siteId: SITE_A.siteId, siteType: SITE_A.siteType };
const B = { siteId: SITE_B.siteId, siteType: SITE_B.siteType };
const admin = { token: TOKENS.admin };

describeEachStore("lookups and deletes", (store) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ store: store.fresh() });
    const products = [
      product("g-1", "G-SKU-1", { description: "hidden", price: 4 }),
      product("g-2", "g-1"),
      product("a/b c%ü", "slash/sku"),
      product("bulk", "BULK-SKU"),
    ];
    await server.request("POST", `${BASE}/bulk`, { ...admin, json: { ...A, products } });
  });
  afterAll(() => server?.close());

  describe("GET /external/product/v1/:productId", () => {
    it("answers exactly id, sku, title, featured_image and url with a correct Content-Length", async () => {
      const response = await server.request("GET", productPath("g-1", SITE_A), admin);
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(Number(response.headers.get("content-length"))).toBe(Buffer.byteLength(text));
      expect(JSON.parse(text)).toEqual({
        id: "g-1",
        sku: "G-SKU-1",
        title: "Product g-1",
        featured_image: "https://img.example/g-1.jpg",
        url: "https://shop.example/p/g-1",
      });
    });

    it("matches the id first, then the sku; by=id and by=sku match only that field", async () => {
      expect(await (await server.request("GET", productPath("g-1", SITE_A), admin)).json()).toMatchObject({
        id: "g-1",
      });
      expect(await (await server.request("GET", productPath("g-1", SITE_A, "&by=sku"), admin)).json()).toMatchObject({
        id: "g-2",
      });
      expect(await (await server.request("GET", productPath("G-SKU-1", SITE_A), admin)).json()).toMatchObject({
        id: "g-1",
      });
      await problemOf(
        await server.request("GET", productPath("G-SKU-1", SITE_A, "&by=id"), admin),
        400,
        "PRODUCT_NOT_FOUND",
      );
      const bad = await problemOf(
        await server.request("GET", productPath("g-1", SITE_A, "&by=title"), admin),
        400,
        "VALIDATION_FAILED",
      );
      expect(bad.errors).toEqual([{ parameter: "by", message: expect.any(String) }]);
    });

    it("decodes percent-encoded ids exactly once, and rejects bad encoding", async () => {
      const response = await server.request("GET", productPath("a/b c%ü", SITE_A), admin);
      expect(await response.json()).toMatchObject({ id: "a/b c%ü", sku: "slash/sku" });
      expect(await (await server.request("GET", productPath("slash/sku", SITE_A), admin)).json()).toMatchObject({
        id: "a/b c%ü",
      });
      // "a%252Fb" decodes once, to "a%2Fb", which is not an id here.
      await problemOf(
        await server.request("GET", `${BASE}/a%252Fb?siteId=shop-a&siteType=shopify`, admin),
        400,
        "PRODUCT_NOT_FOUND",
      );
      const bad = await problemOf(
        await server.request("GET", `${BASE}/%E0%A4%A?siteId=shop-a&siteType=shopify`, admin),
        400,
        "VALIDATION_FAILED",
      );
      expect(bad.errors).toEqual([{ parameter: "productId", message: expect.any(String) }]);
    });

    it("GET /external/product/v1/bulk addresses the product whose id is bulk", async () => {
      const response = await server.request("GET", `${BASE}/bulk?siteId=shop-a&siteType=shopify`, admin);
      expect(await response.json()).toMatchObject({ id: "bulk", sku: "BULK-SKU" });
    });

    it("requires siteId and siteType of a token without a default site, naming each missing parameter", async () => {
      const none = await problemOf(await server.request("GET", `${BASE}/g-1`, admin), 400, "SITE_REQUIRED");
      expect(none.errors).toEqual([
        { parameter: "siteId", message: expect.any(String) },
        { parameter: "siteType", message: expect.any(String) },
      ]);
      const empty = await problemOf(
        await server.request("GET", `${BASE}/g-1?siteId=&siteType=shopify`, admin),
        400,
        "VALIDATION_FAILED",
      );
      expect(empty.errors).toEqual([{ parameter: "siteId", message: expect.any(String) }]);
      const twice = await problemOf(
        await server.request("GET", `${BASE}/g-1?siteId=shop-a&siteId=shop-b&siteType=shopify`, admin),
        400,
        "VALIDATION_FAILED",
      );
      expect(twice.errors).toEqual([{ parameter: "siteId", message: expect.stringContaining("more than once") }]);
      const badEncoding = await problemOf(
        await server.request("GET", `${BASE}/g-1?siteId=%ZZ&siteType=shopify`, admin),
        400,
        "VALIDATION_FAILED",
      );
      expect(badEncoding.errors).toEqual([{ parameter: "siteId", message: expect.any(String) }]);
    });

    it("decodes query values as form data", async () => {
      const response = await server.request("GET", `${BASE}/g-1?siteId=shop%2Da&siteType=shop+ify`, admin);
      await problemOf(response, 400, "SITE_NOT_FOUND"); // "shop ify" is not "shopify": the + was a space
      const ok = await server.request("GET", `${BASE}/g-1?siteId=shop%2Da&siteType=shop%69fy`, admin);
      expect(ok.status).toBe(200);
    });

    it("answers SITE_NOT_FOUND and PRODUCT_NOT_FOUND with 400", async () => {
      await problemOf(
        await server.request("GET", productPath("g-1", { siteId: "x", siteType: "y" }), admin),
        400,
        "SITE_NOT_FOUND",
      );
      await problemOf(await server.request("GET", productPath("nothing", SITE_A), admin), 400, "PRODUCT_NOT_FOUND");
    });

    it("answers HEAD like GET, without a body", async () => {
      const response = await server.request("HEAD", productPath("g-1", SITE_A), admin);
      expect(response.status).toBe(200);
      expect(Number(response.headers.get("content-length"))).toBeGreaterThan(0);
      expect(await response.text()).toBe("");
    });
  });

  describe("DELETE /external/product/v1/:productId", () => {
    it("deletes by id, answers {message} and frees the sku", async () => {
      await server.request("POST", BASE, { ...admin, json: { ...A, product: product("d-1", "D-SKU") } });
      const response = await server.request("DELETE", productPath("d-1", SITE_A), admin);
      expect(response.status).toBe(200);
      const body = (await response.json()) as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(["message"]);
      expect(body.message).toContain("d-1");
      await problemOf(await server.request("GET", productPath("d-1", SITE_A), admin), 400, "PRODUCT_NOT_FOUND");
      const reuse = await server.request("POST", BASE, { ...admin, json: { ...A, product: product("d-2", "D-SKU") } });
      expect(await reuse.json()).toMatchObject({ created: 1 });
    });

    it("deletes by sku with by=sku, and answers PRODUCT_NOT_FOUND the second time", async () => {
      await server.request("POST", BASE, { ...admin, json: { ...A, product: product("d-3", "D-SKU-3") } });
      await problemOf(
        await server.request("DELETE", productPath("D-SKU-3", SITE_A, "&by=id"), admin),
        400,
        "PRODUCT_NOT_FOUND",
      );
      expect((await server.request("DELETE", productPath("D-SKU-3", SITE_A, "&by=sku"), admin)).status).toBe(200);
      await problemOf(await server.request("DELETE", productPath("D-SKU-3", SITE_A), admin), 400, "PRODUCT_NOT_FOUND");
    });

    it("DELETE /external/product/v1/bulk deletes the product whose id is bulk", async () => {
      await server.request("POST", BASE, { ...admin, json: { ...B, product: product("bulk", "B-BULK") } });
      expect((await server.request("DELETE", `${BASE}/bulk?siteId=shop-b&siteType=shopify`, admin)).status).toBe(200);
      await problemOf(
        await server.request("GET", `${BASE}/bulk?siteId=shop-b&siteType=shopify`, admin),
        400,
        "PRODUCT_NOT_FOUND",
      );
    });

    it("requires siteId and siteType both, or neither", async () => {
      const body = await problemOf(
        await server.request("DELETE", `${BASE}/x?siteType=shopify`, admin),
        400,
        "SITE_REQUIRED",
      );
      expect(body.errors).toEqual([{ parameter: "siteId", message: expect.any(String) }]);
    });
  });

  describe("site selection on imports", () => {
    it("uses the only site of a one-site token, without a Deprecation header", async () => {
      const response = await server.request("POST", BASE, { token: TOKENS.a, json: { product: product("default-a") } });
      expect(response.status).toBe(200);
      expect(response.headers.get("deprecation")).toBeNull();
      expect((await server.request("GET", productPath("default-a", SITE_A), admin)).status).toBe(200);
    });

    it("uses the token's defaultSite", async () => {
      const response = await server.request("POST", `${BASE}/bulk`, {
        token: TOKENS.abDefaultB,
        json: { products: [product("default-b")] },
      });
      expect(response.status).toBe(200);
      expect((await server.request("GET", productPath("default-b", SITE_B), admin)).status).toBe(200);
      await problemOf(await server.request("GET", productPath("default-b", SITE_A), admin), 400, "PRODUCT_NOT_FOUND");
    });

    it("answers SITE_REQUIRED when the token has no default site", async () => {
      for (const token of [TOKENS.ab, TOKENS.admin]) {
        const body = await problemOf(
          await server.request("POST", BASE, { token, json: { product: product("nowhere") } }),
          400,
          "SITE_REQUIRED",
        );
        expect(body.errors.map((error) => error.parameter)).toEqual(["siteId", "siteType"]);
      }
    });

    it("answers SITE_REQUIRED when only one of siteId and siteType is given, with a Deprecation header", async () => {
      const onlyId = await server.request("POST", BASE, {
        token: TOKENS.a,
        json: { siteId: "shop-a", product: product("half") },
      });
      expect(onlyId.headers.get("deprecation")).toBe("true");
      const body = await problemOf(onlyId, 400, "SITE_REQUIRED");
      expect(body.errors).toEqual([{ parameter: "siteType", message: expect.any(String) }]);
      const onlyType = await problemOf(
        await server.request("POST", BASE, {
          token: TOKENS.a,
          json: { siteType: "shopify", product: product("half") },
        }),
        400,
        "SITE_REQUIRED",
      );
      expect(onlyType.errors).toEqual([{ parameter: "siteId", message: expect.any(String) }]);
    });

    it("marks successful requests that use the body's siteId/siteType as deprecated", async () => {
      const response = await server.request("POST", BASE, {
        token: TOKENS.a,
        json: { ...A, product: product("explicit") },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get("deprecation")).toBe("true");
    });
  });

  describe("authentication", () => {
    it("answers 401 UNAUTHORIZED to a missing, empty or unknown token on every product endpoint", async () => {
      const calls: [string, string][] = [
        ["POST", BASE],
        ["POST", `${BASE}/bulk`],
        ["POST", `${BASE}/bulk/csv`],
        ["GET", productPath("g-1", SITE_A)],
        ["DELETE", productPath("g-1", SITE_A)],
      ];
      for (const [method, path] of calls) {
        for (const token of [undefined, "", "wrong", `${TOKENS.admin}x`, TOKENS.admin.slice(0, -1)]) {
          const init = method === "POST" ? { json: { ...A, products: [] } } : {};
          const response = await server.request(method, path, token === undefined ? init : { ...init, token });
          await problemOf(response, 401, "UNAUTHORIZED");
        }
      }
      expect((await server.request("GET", productPath("g-1", SITE_A), admin)).status).toBe(200);
    });

    it("accepts a token configured by its SHA-256", async () => {
      const response = await server.request("GET", productPath("g-1", SITE_A), { token: TOKENS.hashed });
      expect(response.status).toBe(200);
      await problemOf(
        await server.request("GET", productPath("g-1", SITE_B), { token: TOKENS.hashed }),
        400,
        "SITE_NOT_FOUND",
      );
    });
  });

  describe("/healthz and /openapi.json", () => {
    it("need no token", async () => {
      const health = await server.request("GET", "/healthz");
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: "ok" });
      const openapi = await server.request("GET", "/openapi.json?x=1");
      expect(openapi.status).toBe(200);
      expect(await openapi.json()).toMatchObject({ openapi: "3.1.0" });
    });
  });
});
