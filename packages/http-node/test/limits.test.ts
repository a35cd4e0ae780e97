import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { hasCompleteResponse, openRaw, parseRawResponse } from "@catalog-kit/test-support/http";
import { wrapStaged } from "@catalog-kit/test-support/staged";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { product, SITE_A, startTestServer, type TestServer, TOKENS } from "./support/test-server.ts";

const LIMIT = 2_000;
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ maxBodyBytes: LIMIT });
});
afterAll(() => server.close());

function head(path: string, headers: Record<string, string | number>): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `POST ${path} HTTP/1.1\r\nHost: test\r\n${lines.join("")}\r\n`;
}

const auth = { "X-Service-Access-Token": TOKENS.admin, "Content-Type": "application/json" };

describe("body size limit", () => {
  it("refuses a declared Content-Length over the limit before any of the body is sent", async () => {
    const raw = await openRaw(server.url);
    await raw.write(head("/external/product/v1/bulk", { ...auth, "Content-Length": 5_000_000 }));
    const response = parseRawResponse(await raw.waitFor(hasCompleteResponse));
    expect(response.status).toBe(413);
    expect(response.headers).toContain("content-type: application/problem+json");
    expect(response.body).toMatchObject({ code: "PAYLOAD_TOO_LARGE", limit: LIMIT, received: 5_000_000 });
    await raw.closed;
  });

  it("refuses a chunked body as soon as it passes the limit, without reading the rest", async () => {
    const raw = await openRaw(server.url);
    await raw.write(head("/external/product/v1/bulk", { ...auth, "Transfer-Encoding": "chunked" }));
    const chunk = `{"products":[${" ".repeat(500)}`;
    let sent = 0;
    // Keep sending until the server answers; the terminating chunk never comes.
    while (!hasCompleteResponse(raw.received()) && sent < 20) {
      await raw.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      sent++;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const response = parseRawResponse(await raw.waitFor(hasCompleteResponse));
    expect(response.status).toBe(413);
    const body = response.body as { limit: number; received: number };
    expect(body).toMatchObject({ code: "PAYLOAD_TOO_LARGE", limit: LIMIT });
    expect(body.received).toBeGreaterThan(LIMIT);
    expect(body.received).toBeLessThanOrEqual(LIMIT + chunk.length);
    expect(sent).toBeLessThan(10);
    await raw.closed;
  });

  it("answers 413 to fetch with a body over the limit", async () => {
    const products = Array.from({ length: 30 }, (_, n) => product(`big-${n}`));
    const response = await server.request("POST", "/external/product/v1/bulk", {
      token: TOKENS.admin,
      json: { ...SITE_A, products },
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: "PAYLOAD_TOO_LARGE", limit: LIMIT });
  });

  it("accepts a body of exactly the limit", async () => {
    const json = JSON.stringify({ ...SITE_A, product: product("exact") });
    const body = json.slice(0, -1) + " ".repeat(LIMIT - json.length) + "}";
    expect(Buffer.byteLength(body)).toBe(LIMIT);
    const response = await server.request("POST", "/external/product/v1", {
      token: TOKENS.admin,
      headers: { "content-type": "application/json" },
      body,
    });
    expect(response.status).toBe(200);
  });
});

describe("nothing is read before the token is checked", () => {
  it("answers 401 while the body has not been sent, and closes the connection", async () => {
    const raw = await openRaw(server.url);
    await raw.write(
      head("/external/product/v1/bulk", {
        "X-Service-Access-Token": "wrong",
        "Content-Type": "application/json",
        "Content-Length": 1_000,
      }),
    );
    const response = parseRawResponse(await raw.waitFor(hasCompleteResponse));
    expect(response.status).toBe(401);
    expect(response.headers).toContain("connection: close");
    await raw.closed;
  });

  it("answers 415 before reading the body", async () => {
    const raw = await openRaw(server.url);
    await raw.write(
      head("/external/product/v1/bulk", {
        "X-Service-Access-Token": TOKENS.admin,
        "Content-Type": "text/plain",
        "Content-Length": 1_000,
      }),
    );
    expect(parseRawResponse(await raw.waitFor(hasCompleteResponse)).status).toBe(415);
    await raw.closed;
  });
});

describe("a client that leaves mid-body", () => {
  it("does not disturb the server", async () => {
    const raw = await openRaw(server.url);
    await raw.write(head("/external/product/v1/bulk", { ...auth, "Content-Length": 1_000 }));
    await raw.write('{"products": [');
    await new Promise((resolve) => setTimeout(resolve, 50));
    raw.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await server.request("GET", "/healthz")).status).toBe(200);
    expect(server.log.some((entry) => entry.status === 499)).toBe(true);
    expect(server.errors).toEqual([]);
  });
});

describe("Expect: 100-continue", () => {
  it("is refused without 100 Continue when the token is wrong, and continued when it is right", async () => {
    const refused = await openRaw(server.url);
    await refused.write(
      head("/external/product/v1", {
        "X-Service-Access-Token": "wrong",
        "Content-Type": "application/json",
        "Content-Length": 100,
        Expect: "100-continue",
      }),
    );
    const text = await refused.waitFor(hasCompleteResponse);
    expect(text).toMatch(/^HTTP\/1\.1 401 /);
    refused.destroy();

    const body = JSON.stringify({ ...SITE_A, product: product("continued") });
    const accepted = await openRaw(server.url);
    await accepted.write(
      head("/external/product/v1", { ...auth, "Content-Length": body.length, Expect: "100-continue" }),
    );
    await accepted.waitFor((received) => received.startsWith("HTTP/1.1 100 Continue\r\n\r\n"));
    await accepted.write(body);
    const response = parseRawResponse(
      (await accepted.waitFor((received) => hasCompleteResponse(received.slice(25)))).slice(25),
    );
    expect(response.status).toBe(200);
    accepted.destroy();
  });
});

describe("concurrent imports", () => {
  it("apply at most maxConcurrentImports at once; the rest are read and wait, and an oversized one is refused at once", async () => {
    const memory = createMemoryStore();
    let upserts = 0;
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const store = wrapStaged(memory, (staged) => ({
      async commit(key) {
        upserts++;
        await gate;
        return staged.commit(key);
      },
    }));
    const limited = await startTestServer({ store, maxBodyBytes: LIMIT, maxConcurrentImports: 1 });
    try {
      const first = limited.request("POST", "/external/product/v1", {
        token: TOKENS.admin,
        json: { ...SITE_A, product: product("first") },
      });
      await vi.waitFor(() => expect(upserts).toBe(1));
      // Its body is read at once (a slow client must not hold the slot), then waits for the slot.
      const body = JSON.stringify({ ...SITE_A, product: product("second") });
      const waiting = await openRaw(limited.url);
      await waiting.write(
        head("/external/product/v1", { ...auth, "Content-Length": body.length, Expect: "100-continue" }),
      );
      await waiting.waitFor((received) => received.startsWith("HTTP/1.1 100 Continue\r\n\r\n"));
      await waiting.write(body);
      const oversized = await limited.request("POST", "/external/product/v1", {
        token: TOKENS.admin,
        headers: { "content-type": "application/json" },
        body: "x".repeat(LIMIT + 1),
      });
      expect(oversized.status).toBe(413);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(hasCompleteResponse(waiting.received().slice(25))).toBe(false);
      expect(upserts).toBe(1);

      open();
      expect((await first).status).toBe(200);
      const answer = await waiting.waitFor((received) => hasCompleteResponse(received.slice(25)));
      expect(parseRawResponse(answer.slice(25)).status).toBe(200);
      waiting.destroy();
      expect(upserts).toBe(2);
    } finally {
      await limited.close();
    }
  });
});
