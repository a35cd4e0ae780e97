import { connect } from "node:net";
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { CatalogError, type CatalogStore, createCatalog } from "@catalog-kit/catalog-core";
import { hasCompleteResponse, openRaw, parseRawResponse } from "@catalog-kit/test-support/http";
import { describe, expect, it } from "vitest";
import { createCatalogHandler, startServer } from "../src/index.ts";
import { urlOf } from "../src/server.ts";
import { product, productPath, SITE_A, startTestServer, TOKENS } from "./support/test-server.ts";

const admin = { token: TOKENS.admin };

/** A memory store whose operations can be made to fail. */
function failingStore(failure: () => unknown): CatalogStore & { failing: boolean } {
  const inner = createMemoryStore();
  const store = {
    failing: false,
    beginImport: (...args: Parameters<CatalogStore["beginImport"]>) =>
      store.failing ? Promise.reject(failure()) : inner.beginImport(...args),
    list: (...args: Parameters<CatalogStore["list"]>) =>
      store.failing ? Promise.reject(failure()) : inner.list(...args),
    find: (...args: Parameters<CatalogStore["find"]>) =>
      store.failing ? Promise.reject(failure()) : inner.find(...args),
    remove: (...args: Parameters<CatalogStore["remove"]>) =>
      store.failing ? Promise.reject(failure()) : inner.remove(...args),
    claimKey: (...args: Parameters<CatalogStore["claimKey"]>) =>
      store.failing ? Promise.reject(failure()) : inner.claimKey(...args),
    readTenants: (...args: Parameters<CatalogStore["readTenants"]>) =>
      store.failing ? Promise.reject(failure()) : inner.readTenants(...args),
    writeTenant: (...args: Parameters<CatalogStore["writeTenant"]>) =>
      store.failing ? Promise.reject(failure()) : inner.writeTenant(...args),
    countUsage: (...args: Parameters<CatalogStore["countUsage"]>) =>
      store.failing ? Promise.reject(failure()) : inner.countUsage(...args),
    saveImport: (...args: Parameters<CatalogStore["saveImport"]>) =>
      store.failing ? Promise.reject(failure()) : inner.saveImport(...args),
    readImport: (...args: Parameters<CatalogStore["readImport"]>) =>
      store.failing ? Promise.reject(failure()) : inner.readImport(...args),
    listImports: (...args: Parameters<CatalogStore["listImports"]>) =>
      store.failing ? Promise.reject(failure()) : inner.listImports(...args),
    readImportProblems: (...args: Parameters<CatalogStore["readImportProblems"]>) =>
      store.failing ? Promise.reject(failure()) : inner.readImportProblems(...args),
    claimDeliveries: (...args: Parameters<CatalogStore["claimDeliveries"]>) =>
      store.failing ? Promise.reject(failure()) : inner.claimDeliveries(...args),
    settleDelivery: (...args: Parameters<CatalogStore["settleDelivery"]>) =>
      store.failing ? Promise.reject(failure()) : inner.settleDelivery(...args),
    ping: () => (store.failing ? Promise.reject(failure()) : inner.ping()),
    close: () => inner.close(),
  };
  return store;
}

describe("storage failures", () => {
  it("answer 503 STORAGE_UNAVAILABLE with Retry-After, on /healthz and on product endpoints", async () => {
    const cause = new Error("connect ECONNREFUSED 10.1.2.3:6379");
    const store = failingStore(() => new CatalogError("STORAGE_UNAVAILABLE", "Redis does not answer", { cause }));
    const server = await startTestServer({ store });
    try {
      store.failing = true;
      for (const response of [
        await server.request("GET", "/healthz"),
        await server.request("GET", productPath("x", SITE_A), admin),
        await server.request("POST", "/external/product/v1", { ...admin, json: { ...SITE_A, product: product("x") } }),
      ]) {
        expect(response.status).toBe(503);
        expect(response.headers.get("retry-after")).toBe("5");
        expect(await response.json()).toMatchObject({ status: 503, code: "STORAGE_UNAVAILABLE" });
      }
      // The operator's log gets what failed, with its cause; the answers never name it.
      expect(server.errors).toHaveLength(3);
      expect(server.errors.every((error) => (error as Error).cause === cause)).toBe(true);
      store.failing = false;
      expect((await server.request("GET", "/healthz")).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("an unexpected error is a 500 that leaks neither message nor stack, and is reported to onError", async () => {
    const store = failingStore(() => new Error("secret detail at /srv/app/internal.js:12"));
    const server = await startTestServer({ store });
    try {
      store.failing = true;
      const response = await server.request("GET", productPath("x", SITE_A), admin);
      expect(response.status).toBe(500);
      const text = await response.text();
      expect(text).not.toContain("secret");
      expect(text).not.toContain("internal.js");
      expect(JSON.parse(text)).toMatchObject({ status: 500, code: "INTERNAL_ERROR", errors: [], errorCount: 0 });
      expect(server.errors).toHaveLength(1);
      expect(String(server.errors[0])).toContain("secret detail");
      // A failing health check is a 503, whatever the error.
      expect((await server.request("GET", "/healthz")).status).toBe(503);
    } finally {
      await server.close();
    }
  });
});

describe("startServer", () => {
  it("answers 408 and closes the connection of a client that is too slow to send its headers", async () => {
    const handler = createCatalogHandler(createCatalog({ store: createMemoryStore() }), { tokens: [] });
    const server = await startServer({ handler, port: 0, headersTimeout: 300, requestTimeout: 300 });
    try {
      const raw = await openRaw(server.url);
      await raw.write("GET /healthz HTTP/1.1\r\nHost: slow\r\n");
      const started = Date.now();
      await raw.closed;
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(raw.received()).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      await server.close();
    }
  });

  it("close() lets an in-flight request finish, refuses new connections and closes idle ones", async () => {
    const store = createMemoryStore();
    const catalog = createCatalog({ store, sites: [SITE_A] });
    const handler = createCatalogHandler(catalog, { tokens: [{ token: "t", sites: "*" }] });
    const server = await startServer({ handler, port: 0 });

    const idle = await openRaw(server.url);
    await idle.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    await idle.waitFor(hasCompleteResponse);

    const body = JSON.stringify({ ...SITE_A, product: product("in-flight") });
    const busy = await openRaw(server.url);
    await busy.write(
      `POST /external/product/v1 HTTP/1.1\r\nHost: x\r\nX-Service-Access-Token: t\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    await busy.write(body.slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));

    let closed = false;
    const closing = server.close().then(() => {
      closed = true;
    });
    expect(server.close()).toBe(server.close());
    await idle.closed;
    await expect(
      new Promise((resolve, reject) =>
        connect(server.address.port, "127.0.0.1").once("connect", resolve).once("error", reject),
      ),
    ).rejects.toThrow(/ECONNREFUSED/);
    expect(closed).toBe(false);

    await busy.write(body.slice(10));
    const response = parseRawResponse(await busy.waitFor(hasCompleteResponse));
    expect(response.status).toBe(200);
    await busy.closed;
    await closing;
    expect(await store.find(SITE_A, "in-flight")).toMatchObject({ id: "in-flight" });
  });

  it("gives usable URLs for wildcard and IPv6 addresses", () => {
    expect(urlOf({ address: "0.0.0.0", family: "IPv4", port: 80 })).toBe("http://127.0.0.1:80");
    expect(urlOf({ address: "::", family: "IPv6", port: 81 })).toBe("http://[::1]:81");
    expect(urlOf({ address: "::1", family: "IPv6", port: 82 })).toBe("http://[::1]:82");
    expect(urlOf({ address: "10.1.2.3", family: "IPv4", port: 83 })).toBe("http://10.1.2.3:83");
  });
});
