import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

async function problemOf(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  const body = (await response.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ status, code, type: expect.stringContaining(":problem:"), title: expect.any(String) });
  expect(typeof body.detail).toBe("string");
  expect(Array.isArray(body.errors)).toBe(true);
  expect(body.errorCount).toBeGreaterThanOrEqual((body.errors as unknown[]).length);
  return body as {
    detail: string;
    errors: Record<string, unknown>[];
    errorCount: number;
    limit?: number;
    received?: number;
  };
}

const admin = { token: TOKENS.admin };

describe("POST /external/product/v1/bulk", () => {
  it("creates, updates and leaves unchanged, with counts", async () => {
    const first = await server.request("POST", `${BASE}/bulk`, {
      ...admin,
      json: { ...A, products: [product("b1"), product("b2")] },
    });
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("application/json");
    expect(await first.json()).toEqual({ message: expect.any(String), total: 2, created: 2, updated: 0, unchanged: 0 });

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
    await server.request("POST", `${BASE}/bulk`, { ...admin, json: { ...A, products: [product("holder", "TAKEN")] } });
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
    const small = await startTestServer({ maxProducts: 2 });
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
    });
    const again = await server.request("POST", BASE, { ...admin, json: { ...A, product: product("single-1") } });
    expect(await again.json()).toMatchObject({ total: 1, unchanged: 1 });
  });

  it("points problems into the product", async () => {
    const body = await problemOf(
      await server.request("POST", BASE, { ...admin, json: { ...A, product: { ...product("s2"), available: "yes" } } }),
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
      expect(body.errors.map((error) => error.pointer)).toEqual(["/siteId", "/siteType"]);
    }
  });

  it("answers SITE_REQUIRED when only one of siteId and siteType is given, with a Deprecation header", async () => {
    const onlyId = await server.request("POST", BASE, {
      token: TOKENS.a,
      json: { siteId: "shop-a", product: product("half") },
    });
    expect(onlyId.headers.get("deprecation")).toBe("true");
    const body = await problemOf(onlyId, 400, "SITE_REQUIRED");
    expect(body.errors).toEqual([{ pointer: "/siteType", message: expect.any(String) }]);
    const onlyType = await problemOf(
      await server.request("POST", BASE, { token: TOKENS.a, json: { siteType: "shopify", product: product("half") } }),
      400,
      "SITE_REQUIRED",
    );
    expect(onlyType.errors).toEqual([{ pointer: "/siteId", message: expect.any(String) }]);
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

describe("GET /external/product/v1/:productId", () => {
  beforeAll(async () => {
    const products = [
      product("g-1", "G-SKU-1", { description: "hidden", price: 4 }),
      product("g-2", "g-1"),
      product("a/b c%ü", "slash/sku"),
      product("bulk", "BULK-SKU"),
    ];
    await server.request("POST", `${BASE}/bulk`, { ...admin, json: { ...A, products } });
  });

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
    expect(await (await server.request("GET", productPath("g-1", SITE_A), admin)).json()).toMatchObject({ id: "g-1" });
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

  it("requires siteId and siteType, naming each missing parameter", async () => {
    const none = await problemOf(await server.request("GET", `${BASE}/g-1`, admin), 400, "VALIDATION_FAILED");
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

  it("requires siteId and siteType", async () => {
    const body = await problemOf(
      await server.request("DELETE", `${BASE}/x?siteType=shopify`, admin),
      400,
      "VALIDATION_FAILED",
    );
    expect(body.errors).toEqual([{ parameter: "siteId", message: expect.any(String) }]);
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

describe("routing", () => {
  it("answers 404 NOT_FOUND for unknown paths", async () => {
    for (const path of [
      "/",
      "/external/product/v2/bulk",
      `${BASE}/`,
      `${BASE}/a/b`,
      `${BASE}x`,
      `${BASE}/bulk/csv/`,
      `${BASE}/bulk/xml`,
      "/healthz/",
    ]) {
      await problemOf(await server.request("GET", path, admin), 404, "NOT_FOUND");
    }
  });

  it("answers 405 METHOD_NOT_ALLOWED with Allow", async () => {
    const cases: [string, string, string][] = [
      ["DELETE", BASE, "GET, HEAD, POST"],
      ["PUT", `${BASE}/bulk`, "GET, HEAD, DELETE, POST"],
      ["GET", `${BASE}/bulk/csv`, "POST"],
      ["POST", `${BASE}/some-id`, "GET, HEAD, DELETE"],
      ["PATCH", `${BASE}/some-id`, "GET, HEAD, DELETE"],
      ["POST", "/healthz", "GET, HEAD"],
      ["DELETE", "/openapi.json", "GET, HEAD"],
    ];
    for (const [method, path, allow] of cases) {
      const response = await server.request(method, path);
      expect(response.headers.get("allow")).toBe(allow);
      await problemOf(response, 405, "METHOD_NOT_ALLOWED");
    }
  });

  it("accepts absolute-form request targets", async () => {
    const { openRaw, hasCompleteResponse, parseRawResponse } = await import("@catalog-kit/test-support/http");
    const raw = await openRaw(server.url);
    await raw.write(`GET ${server.url}/healthz HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(parseRawResponse(await raw.waitFor(hasCompleteResponse)).status).toBe(200);
    raw.destroy();
  });
});

describe("content type and body", () => {
  it("answers 415 to POSTs that are not JSON in UTF-8", async () => {
    for (const type of [
      undefined,
      "text/plain",
      "application/x-www-form-urlencoded",
      "application/json; charset=latin1",
      "multipart/form-data",
    ]) {
      const headers: Record<string, string> = type === undefined ? {} : { "content-type": type };
      const response = await server.request("POST", BASE, {
        ...admin,
        headers,
        body: JSON.stringify({ ...A, product: product("ct") }),
      });
      await problemOf(response, 415, "UNSUPPORTED_MEDIA_TYPE");
    }
    for (const type of ["application/json; charset=utf-8", "Application/JSON", "application/vnd.api+json"]) {
      const response = await server.request("POST", BASE, {
        ...admin,
        headers: { "content-type": type },
        body: JSON.stringify({ ...A, product: product("ct") }),
      });
      expect(response.status).toBe(200);
    }
  });

  it("answers 400 INVALID_JSON to malformed JSON, an empty body and bad UTF-8", async () => {
    const bodies: (string | Uint8Array)[] = [
      "{",
      "",
      '{"products": [}',
      new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
    ];
    for (const body of bodies) {
      const response = await server.request("POST", `${BASE}/bulk`, {
        ...admin,
        headers: { "content-type": "application/json" },
        body,
      });
      await problemOf(response, 400, "INVALID_JSON");
    }
  });

  it("accepts a leading byte order mark", async () => {
    const body = `\uFEFF${JSON.stringify({ ...A, product: product("bom") })}`;
    const response = await server.request("POST", BASE, {
      ...admin,
      headers: { "content-type": "application/json" },
      body,
    });
    expect(response.status).toBe(200);
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

describe("access log", () => {
  it("records method, path without query, status and duration; never the token", async () => {
    server.log.length = 0;
    await server.request("GET", productPath("g-1", SITE_A), admin);
    await server.request("GET", "/nowhere?token=1");
    expect(server.log).toEqual([
      {
        method: "GET",
        path: "/external/product/v1/g-1",
        status: 200,
        durationMs: expect.any(Number),
        requestId: expect.any(String),
        route: "get",
      },
      {
        method: "GET",
        path: "/nowhere",
        status: 404,
        durationMs: expect.any(Number),
        requestId: expect.any(String),
        route: "unknown",
      },
    ]);
    expect(JSON.stringify(server.log)).not.toContain(TOKENS.admin);
  });
});
