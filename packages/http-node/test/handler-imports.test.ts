// The import endpoints over HTTP (bulk JSON, csvContent, one product): counts, dry runs, every
// refusal with its problem, and nothing written by a refused request. On every store, each
// behind one server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { problemOf } from "./support/problem.ts";
import { describeEachStore } from "./support/stores.ts";
import { product, productPath, SITE_A, startTestServer, type TestServer, TOKENS } from "./support/test-server.ts";

const BASE = "/external/product/v1";
const A = { siteId: SITE_A.siteId, siteType: SITE_A.siteType };
const admin = { token: TOKENS.admin };

describeEachStore("imports", (store) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ store: store.fresh() });
  });
  afterAll(() => server?.close());

  describe("POST /external/product/v1/bulk", () => {
    it("creates, updates and leaves unchanged, with counts", async () => {
      const first = await server.request("POST", `${BASE}/bulk`, {
        ...admin,
        json: { ...A, products: [product("b1"), product("b2")] },
      });
      expect(first.status).toBe(200);
      expect(first.headers.get("content-type")).toBe("application/json");
      expect(await first.json()).toEqual({
        message: expect.any(String),
        total: 2,
        created: 2,
        updated: 0,
        unchanged: 0,
        importId: expect.stringMatching(/^[0-9a-f]{28}$/),
      });

      const products = [product("b1"), product("b2", "SKU-b2", { price: 3 }), product("b3")];
      const second = await server.request("POST", `${BASE}/bulk`, { ...admin, json: { ...A, products } });
      expect(await second.json()).toMatchObject({ total: 3, created: 1, updated: 1, unchanged: 1 });
    });

    it("dryRun=true checks and counts but writes nothing; dryRun=false writes", async () => {
      const json = { ...A, products: [product("dry-1")] };
      const dry = await server.request("POST", `${BASE}/bulk?dryRun=true`, { ...admin, json });
      expect(await dry.json()).toMatchObject({ total: 1, created: 1, dryRun: true });
      const missing = await server.request("GET", productPath("dry-1", SITE_A), admin);
      await problemOf(missing, 400, "PRODUCT_NOT_FOUND");

      const wet = await server.request("POST", `${BASE}/bulk?dryRun=false`, { ...admin, json });
      const summary = (await wet.json()) as Record<string, unknown>;
      expect(summary).toMatchObject({ total: 1, created: 1 });
      expect(summary).not.toHaveProperty("dryRun");
      expect((await server.request("GET", productPath("dry-1", SITE_A), admin)).status).toBe(200);
    });

    it("rejects other dryRun values and unknown query parameters", async () => {
      const json = { ...A, products: [product("q-1")] };
      const bad = await problemOf(
        await server.request("POST", `${BASE}/bulk?dryRun=yes`, { ...admin, json }),
        400,
        "VALIDATION_FAILED",
      );
      expect(bad.errors).toEqual([{ parameter: "dryRun", message: expect.any(String) }]);
      const typo = await problemOf(
        await server.request("POST", `${BASE}/bulk?dryrun=true`, { ...admin, json }),
        400,
        "VALIDATION_FAILED",
      );
      expect(typo.errors).toEqual([{ parameter: "dryrun", message: expect.stringContaining("Unknown") }]);
      await problemOf(await server.request("GET", productPath("q-1", SITE_A), admin), 400, "PRODUCT_NOT_FOUND");
    });

    it("lists every invalid field with a JSON pointer and writes nothing", async () => {
      const products = [product("v1"), product("v2", "", { price: -1 }), { ...product("v3"), colour: "red" }];
      const body = await problemOf(
        await server.request("POST", `${BASE}/bulk`, { ...admin, json: { ...A, products } }),
        400,
        "VALIDATION_FAILED",
      );
      const pointers = body.errors.map((error) => error.pointer);
      expect(pointers).toEqual(expect.arrayContaining(["/products/1/sku", "/products/1/price", "/products/2/colour"]));
      expect(body.errorCount).toBe(3);
      await problemOf(await server.request("GET", productPath("v1", SITE_A), admin), 400, "PRODUCT_NOT_FOUND");
    });

    it("rejects unknown top-level fields and bodies that are not objects", async () => {
      const unknown = await problemOf(
        await server.request("POST", `${BASE}/bulk`, { ...admin, json: { ...A, prodcts: [] } }),
        400,
        "VALIDATION_FAILED",
      );
      expect(unknown.errors).toContainEqual({ pointer: "/prodcts", message: 'Unknown field "prodcts"' });
      for (const json of [[], "text", 1, null, true]) {
        const body = await problemOf(
          await server.request("POST", `${BASE}/bulk`, { ...admin, json }),
          400,
          "VALIDATION_FAILED",
        );
        expect(body.errors[0]).toMatchObject({ pointer: "" });
      }
      const missing = await problemOf(
        await server.request("POST", `${BASE}/bulk`, { ...admin, json: A }),
        400,
        "VALIDATION_FAILED",
      );
      expect(missing.errors[0]).toMatchObject({ pointer: "/products" });
      const badSite = await problemOf(
        await server.request("POST", `${BASE}/bulk`, { ...admin, json: { siteId: 7, siteType: " ", products: [] } }),
        400,
        "VALIDATION_FAILED",
      );
      expect(badSite.errors.map((error) => error.pointer)).toEqual(["/siteId", "/siteType"]);
    });

    it("answers SKU_CONFLICT naming the sku and the id that holds it", async () => {
      await server.request("POST", `${BASE}/bulk`, {
        ...admin,
        json: { ...A, products: [product("holder", "TAKEN")] },
      });
      const body = await problemOf(
        await server.request("POST", `${BASE}/bulk`, {
          ...admin,
          json: { ...A, products: [product("ok"), product("claimer", "TAKEN")] },
        }),
        400,
        "SKU_CONFLICT",
      );
      expect(body.errors).toEqual([
        { pointer: "/products/1/sku", message: expect.any(String), sku: "TAKEN", heldBy: "holder" },
      ]);
      await problemOf(await server.request("GET", productPath("ok", SITE_A), admin), 400, "PRODUCT_NOT_FOUND");
    });

    it("answers SITE_NOT_FOUND for an unknown site", async () => {
      const json = { siteId: "nope", siteType: "shopify", products: [product("x")] };
      const body = await problemOf(
        await server.request("POST", `${BASE}/bulk`, { ...admin, json }),
        400,
        "SITE_NOT_FOUND",
      );
      expect(body.detail).toContain("nope");
    });
  });

  describe("TOO_MANY_PRODUCTS", () => {
    it("answers 413 with limit and received, writing nothing", async () => {
      const small = await startTestServer({ store: store.fresh(), maxProducts: 2 });
      try {
        const products = [product("m1"), product("m2"), product("m3")];
        const body = await problemOf(
          await small.request("POST", `${BASE}/bulk`, { ...admin, json: { ...A, products } }),
          413,
          "TOO_MANY_PRODUCTS",
        );
        expect(body).toMatchObject({ limit: 2, received: 3 });
        const csvContent = `id,sku,title,available,featured_image,url\n${[1, 2, 3].map((n) => `c${n},S${n},T,true,i,u`).join("\n")}`;
        const csv = await problemOf(
          await small.request("POST", `${BASE}/bulk/csv`, { ...admin, json: { ...A, csvContent } }),
          413,
          "TOO_MANY_PRODUCTS",
        );
        expect(csv).toMatchObject({ limit: 2, received: 3 });
        await problemOf(await small.request("GET", productPath("m1", SITE_A), admin), 400, "PRODUCT_NOT_FOUND");
      } finally {
        await small.close();
      }
    });
  });

  describe("POST /external/product/v1/bulk/csv", () => {
    const header = "id,sku,title,description,price,price_min,price_max,available,images,featured_image,url";

    it("imports the rows of csvContent", async () => {
      const csvContent = `${header}\ncsv-1,CSV-1,"Shirt, blue","Says ""hi""",19.99,,,true,"[""https://i/1.jpg"",""https://i/2.jpg""]",https://i/1.jpg,https://s/1\ncsv-2,CSV-2,Hat,,5,,,FALSE,https://i/h.jpg,https://i/h.jpg,https://s/2\n`;
      const response = await server.request("POST", `${BASE}/bulk/csv`, { ...admin, json: { ...A, csvContent } });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ total: 2, created: 2 });
      const view = await (await server.request("GET", productPath("csv-1", SITE_A), admin)).json();
      expect(view).toEqual({
        id: "csv-1",
        sku: "CSV-1",
        title: "Shirt, blue",
        featured_image: "https://i/1.jpg",
        url: "https://s/1",
      });
    });

    it("reports structure errors as INVALID_CSV and cell errors as VALIDATION_FAILED, by row and column", async () => {
      const structure = await problemOf(
        await server.request("POST", `${BASE}/bulk/csv`, {
          ...admin,
          json: { ...A, csvContent: "id,sku,colour\n1,2,3" },
        }),
        400,
        "INVALID_CSV",
      );
      expect(structure.errors).toContainEqual(expect.objectContaining({ row: 1, column: "colour" }));
      const cells = await problemOf(
        await server.request("POST", `${BASE}/bulk/csv`, {
          ...admin,
          json: {
            ...A,
            csvContent: `${header}\nc-ok,S-ok,T,,1,,,true,,https://i,https://u\nc-bad,S-bad,T,,-3,,,maybe,,https://i,https://u`,
          },
        }),
        400,
        "VALIDATION_FAILED",
      );
      expect(cells.errors).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ row: 3, column: "price" }),
          expect.objectContaining({ row: 3, column: "available" }),
        ]),
      );
      await problemOf(await server.request("GET", productPath("c-ok", SITE_A), admin), 400, "PRODUCT_NOT_FOUND");
    });

    it("requires csvContent to be a string", async () => {
      const body = await problemOf(
        await server.request("POST", `${BASE}/bulk/csv`, { ...admin, json: { ...A, csvContent: ["a"] } }),
        400,
        "VALIDATION_FAILED",
      );
      expect(body.errors[0]).toMatchObject({ pointer: "/csvContent" });
    });

    it("supports dryRun", async () => {
      const csvContent = `${header}\ncsv-dry,CSV-DRY,T,,,,,true,,https://i,https://u`;
      const response = await server.request("POST", `${BASE}/bulk/csv?dryRun=true`, {
        ...admin,
        json: { ...A, csvContent },
      });
      expect(await response.json()).toMatchObject({ total: 1, created: 1, dryRun: true });
      await problemOf(await server.request("GET", productPath("csv-dry", SITE_A), admin), 400, "PRODUCT_NOT_FOUND");
    });
  });

  describe("POST /external/product/v1", () => {
    it("imports one product", async () => {
      const response = await server.request("POST", BASE, { ...admin, json: { ...A, product: product("single-1") } });
      expect(await response.json()).toEqual({
        message: expect.any(String),
        total: 1,
        created: 1,
        updated: 0,
        unchanged: 0,
        importId: expect.stringMatching(/^[0-9a-f]{28}$/),
      });
      const again = await server.request("POST", BASE, { ...admin, json: { ...A, product: product("single-1") } });
      expect(await again.json()).toMatchObject({ total: 1, unchanged: 1 });
    });

    it("points problems into the product", async () => {
      const body = await problemOf(
        await server.request("POST", BASE, {
          ...admin,
          json: { ...A, product: { ...product("s2"), available: "yes" } },
        }),
        400,
        "VALIDATION_FAILED",
      );
      expect(body.errors).toEqual([{ pointer: "/product/available", message: expect.any(String) }]);
      const missing = await problemOf(
        await server.request("POST", BASE, { ...admin, json: A }),
        400,
        "VALIDATION_FAILED",
      );
      expect(missing.errors[0]).toMatchObject({ pointer: "/product" });
    });

    it("supports dryRun", async () => {
      const response = await server.request("POST", `${BASE}?dryRun=true`, {
        ...admin,
        json: { ...A, product: product("single-dry") },
      });
      expect(await response.json()).toMatchObject({ created: 1, dryRun: true });
      await problemOf(await server.request("GET", productPath("single-dry", SITE_A), admin), 400, "PRODUCT_NOT_FOUND");
    });
  });
});
