// The request around the catalog: routing, media types and bodies, the access log. None of it is
// the store's: a request is routed, and its body's type and syntax judged, before the catalog
// is asked. So one store serves it, the memory store.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { problemOf } from "./support/problem.ts";
import { product, productPath, SITE_A, startTestServer, type TestServer, TOKENS } from "./support/test-server.ts";

const BASE = "/external/product/v1";
const A = { siteId: SITE_A.siteId, siteType: SITE_A.siteType };
const admin = { token: TOKENS.admin };

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  await server.request("POST", BASE, { ...admin, json: { ...A, product: product("g-1") } });
});
afterAll(() => server.close());

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
      ["PUT", `${BASE}/bulk`, "GET, HEAD, PATCH, DELETE, POST"],
      ["GET", `${BASE}/bulk/csv`, "POST"],
      ["POST", `${BASE}/some-id`, "GET, HEAD, PATCH, DELETE"],
      ["PUT", `${BASE}/some-id`, "GET, HEAD, PATCH, DELETE"],
      ["PATCH", BASE, "GET, HEAD, POST"],
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
