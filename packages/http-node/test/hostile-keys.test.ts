// Hostile keys and sites on every store, each behind one server: odd but valid Unicode is stored
// and found exactly; a key or site no product or site can hold (NUL, a lone surrogate, too long)
// is a 400 not-found on every store alike, never a storage error, and never fails the ordinary
// lookups asked with it (PostgreSQL sends lookups asked together as one statement). Cases refused
// before any store (bodies, the memory peak) are in hostile.test.ts, on memory alone.
import type { Site } from "@catalog-kit/catalog-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachStore } from "./support/stores.ts";
import { product, productPath, SITE_A, startTestServer, type TestServer, TOKENS } from "./support/test-server.ts";

const BASE = "/external/product/v1";
const admin = { token: TOKENS.admin };

// Valid keys that a store could mangle: astral characters, U+FFFD (what a lone surrogate becomes
// in UTF-8 drivers), NFC and NFD forms of one letter (distinct keys), joiners, right-to-left
// text, URL syntax, the longest key a product may have.
const ODD_KEYS = [
  "😀-astral",
  "a\ufffd",
  "caf\u00e9",
  "cafe\u0301",
  "a\u200db",
  "\u05e9\u05dc\u05d5\u05dd",
  "日本語",
  "a/b?c#d%e+f g",
  "k".repeat(256),
];

describeEachStore("hostile keys and sites", (store) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ store: store.fresh() });
    const products = [
      ...ODD_KEYS.map((key, i) => product(key, `odd-${i}`)),
      ...Array.from({ length: 30 }, (_, i) => product(`n-${i}`, `N-${i}`)),
    ];
    const imported = await server.request("POST", `${BASE}/bulk`, { ...admin, json: { ...SITE_A, products } });
    expect(imported.status).toBe(200);
  });
  afterAll(() => server?.close());

  const get = (key: string, site: Site = SITE_A, extra = "") =>
    server.request("GET", productPath(key, site, extra), admin);
  const codeOf = async (response: Response) => ((await response.json()) as { code: string }).code;

  it("odd but valid Unicode keys are found exactly, by id and by sku, and only as written", async () => {
    for (const [i, key] of ODD_KEYS.entries()) {
      expect(await (await get(key)).json(), key).toMatchObject({ id: key, sku: `odd-${i}` });
      expect(await (await get(`odd-${i}`, SITE_A, "&by=sku")).json(), key).toMatchObject({ id: key });
    }
    // One letter's two forms, and a character and U+FFFD, are different keys.
    expect(await (await get("cafe\u0301")).json()).toMatchObject({ sku: "odd-3" });
    for (const near of ["a", "a\ufffd\ufffd", "cafe", "ab", "k".repeat(255)]) {
      expect(await codeOf(await get(near)), near).toBe("PRODUCT_NOT_FOUND");
    }
    expect(server.errors).toEqual([]);
  });

  it("30 GETs at once, one key with NUL and one with a lone surrogate: those are PRODUCT_NOT_FOUND, the others answer", async () => {
    const asks = Array.from({ length: 30 }, (_, i) => {
      if (i === 7) return get("n-7\u0000").then(async (r) => [r.status, await codeOf(r)]);
      // No URL can carry a lone surrogate (it has no UTF-8): the catalog is asked directly.
      if (i === 9)
        return server.catalog.getProduct(SITE_A, "n-9\ud800").then(
          () => [200, "found"],
          (error: { code: string }) => [400, error.code],
        );
      return get(`n-${i}`).then(async (r) => [r.status, ((await r.json()) as { id: string }).id]);
    });
    const answers = await Promise.all(asks);
    expect(answers).toEqual(answers.map((_, i) => (i === 7 || i === 9 ? [400, "PRODUCT_NOT_FOUND"] : [200, `n-${i}`])));
    expect(server.errors).toEqual([]);
  });

  it("30 DELETEs at once, one key with NUL and one with a lone surrogate: those are PRODUCT_NOT_FOUND, the others delete", async () => {
    const asks = Array.from({ length: 30 }, (_, i) => {
      if (i === 7) {
        const path = productPath("n-7\u0000", SITE_A);
        return server.request("DELETE", path, admin).then(async (r) => [r.status, await codeOf(r)]);
      }
      if (i === 9)
        return server.catalog.deleteProduct(SITE_A, "n-9\udc00").then(
          () => [200, "deleted"],
          (error: { code: string }) => [400, error.code],
        );
      return server
        .request("DELETE", productPath(`n-${i}`, SITE_A), admin)
        .then(async (r) => [r.status, ((await r.json()) as { message: string }).message.includes(`"n-${i}"`)]);
    });
    const answers = await Promise.all(asks);
    expect(answers).toEqual(answers.map((_, i) => (i === 7 || i === 9 ? [400, "PRODUCT_NOT_FOUND"] : [200, true])));
    for (let i = 0; i < 30; i++) {
      const response = await get(`n-${i}`);
      expect(response.status, `n-${i}`).toBe(i === 7 || i === 9 ? 200 : 400);
      await response.body?.cancel();
    }
    expect(server.errors).toEqual([]);
  });

  it("keys longer than any product's are PRODUCT_NOT_FOUND, the longest valid one is found", async () => {
    for (const length of [257, 1_000, 4_000]) {
      const response = await get("k".repeat(length));
      expect(response.status, String(length)).toBe(400);
      expect(await codeOf(response)).toBe("PRODUCT_NOT_FOUND");
      const removed = await server.request("DELETE", productPath("k".repeat(length), SITE_A), admin);
      expect(await codeOf(removed)).toBe("PRODUCT_NOT_FOUND");
    }
    expect(await (await get("k".repeat(256))).json()).toMatchObject({ id: "k".repeat(256) });
    expect(server.errors).toEqual([]);
  });

  it("a site holding NUL or a lone surrogate is a 400 before the store, on GET, DELETE, a page and an import", async () => {
    const nul: Site[] = [
      { ...SITE_A, siteId: `${SITE_A.siteId}\u0000` },
      { ...SITE_A, siteType: `\u0000${SITE_A.siteType}` },
    ];
    for (const site of nul) {
      expect(await codeOf(await get("n-1", site))).toBe("SITE_NOT_FOUND");
      expect(await codeOf(await server.request("DELETE", productPath("n-1", site), admin))).toBe("SITE_NOT_FOUND");
      const query = new URLSearchParams({ siteId: site.siteId, siteType: site.siteType });
      expect(await codeOf(await server.request("GET", `${BASE}?${query}`, admin))).toBe("SITE_NOT_FOUND");
      const imported = await server.request("POST", `${BASE}?${query}`, { ...admin, json: { product: product("x") } });
      expect(imported.status).toBe(400);
    }
    // A lone surrogate can come only in a JSON body's (deprecated) site fields.
    const body = JSON.stringify({ siteId: "@", siteType: SITE_A.siteType, product: product("x") }).replace(
      '"@"',
      `"${SITE_A.siteId}\\ud800"`,
    );
    const imported = await server.request("POST", BASE, {
      ...admin,
      body,
      headers: { "content-type": "application/json" },
    });
    expect(imported.status).toBe(400);
    expect(await codeOf(await get("x"))).toBe("PRODUCT_NOT_FOUND");
    expect(await (await get("n-7")).json()).toMatchObject({ id: "n-7" });
    expect(server.errors).toEqual([]);
  });
});
