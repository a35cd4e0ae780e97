import { hasCompleteResponse, openRaw, parseRawResponse, type RawConnection } from "@catalog-kit/test-support/http";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_BODY_IDLE_TIMEOUT_MS } from "../src/index.ts";
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

function head(path: string, token: string, length: number): string {
  return (
    `POST ${path} HTTP/1.1\r\nHost: test\r\nX-Service-Access-Token: ${token}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`
  );
}

const open: RawConnection[] = [];
const timers: NodeJS.Timeout[] = [];
let server: TestServer | undefined;
afterEach(async () => {
  for (const timer of timers.splice(0)) clearInterval(timer);
  for (const raw of open.splice(0)) raw.destroy();
  await server?.close();
  server = undefined;
});

/** An upload of `token` that declares 100,000 bytes and sends only its first few. */
async function unfinishedUpload(url: string, token: string, id: string): Promise<RawConnection> {
  const raw = await openRaw(url);
  open.push(raw);
  await raw.write(head(`${BASE}/bulk`, token, 100_000));
  await raw.write(`{"products":[${JSON.stringify(product(id))},`);
  return raw;
}

/** Answers within `ms`, or fails the test: the bound the other tokens are promised. */
async function within(ms: number, request: Promise<Response>): Promise<Response> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([request, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe("fairness between tokens", () => {
  it("serves another token's imports and lookups while one token's uploads stall or trickle", async () => {
    server = await startTestServer();
    const { url } = server;
    await server.request("POST", BASE, { token: TOKENS.b, json: { ...SITE_B, product: product("b-0") } });
    // More stalled uploads than the import limiter has slots (4), and more trickling ones.
    for (let i = 0; i < 5; i++) await unfinishedUpload(url, TOKENS.a, `stalled-${i}`);
    for (let i = 0; i < 3; i++) {
      const raw = await unfinishedUpload(url, TOKENS.a, `trickle-${i}`);
      // A byte every 100 ms: never silent long enough to be cut off.
      timers.push(setInterval(() => void raw.write(" "), 100));
    }
    await new Promise((resolve) => setTimeout(resolve, 300));

    const b = { token: TOKENS.b };
    const csvContent = `id,sku,title,available,featured_image,url\nb-csv,B-CSV,T,true,https://i,https://u\n`;
    const started = performance.now();
    const answers = await Promise.all([
      within(2_000, server.request("POST", `${BASE}/bulk`, { ...b, json: { ...SITE_B, products: [product("b-1")] } })),
      within(2_000, server.request("POST", `${BASE}/bulk/csv`, { ...b, json: { ...SITE_B, csvContent } })),
      within(2_000, server.request("POST", BASE, { ...b, json: { ...SITE_B, product: product("b-2") } })),
      within(2_000, server.request("GET", productPath("b-0", SITE_B), b)),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(performance.now() - started).toBeLessThan(2_000);

    for (const raw of open) expect(raw.received()).toBe("");
    for (const id of ["stalled-0", "stalled-4", "trickle-0", "trickle-2"]) {
      await expect(server.catalog.getProduct(SITE_A, id)).rejects.toMatchObject({ code: "PRODUCT_NOT_FOUND" });
    }
  });

  it("cuts off a body that sends nothing for bodyIdleTimeoutMs with a 408 and frees its place", async () => {
    expect(DEFAULT_BODY_IDLE_TIMEOUT_MS).toBeLessThanOrEqual(15_000);
    server = await startTestServer({ bodyIdleTimeoutMs: 300, maxUploadsPerToken: 1, maxConcurrentImports: 1 });
    const started = performance.now();
    const stalled = await unfinishedUpload(server.url, TOKENS.a, "stalled");
    const response = parseRawResponse(await stalled.waitFor(hasCompleteResponse, 3_000));
    const elapsed = performance.now() - started;
    expect(response.status).toBe(408);
    expect(response.headers).toContain("connection: close");
    expect(response.body).toMatchObject({ code: "REQUEST_TIMEOUT", status: 408 });
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(1_500);
    await stalled.closed;

    // Its token's only place is free again, and nothing of it was written.
    const next = await within(
      2_000,
      server.request("POST", BASE, { token: TOKENS.a, json: { ...SITE_A, product: product("next") } }),
    );
    expect(next.status).toBe(200);
    await expect(server.catalog.getProduct(SITE_A, "stalled")).rejects.toMatchObject({ code: "PRODUCT_NOT_FOUND" });
  });

  it("keeps a trickling body alive past bodyIdleTimeoutMs and imports it once complete", async () => {
    server = await startTestServer({ bodyIdleTimeoutMs: 300 });
    const body = Buffer.from(JSON.stringify({ ...SITE_A, products: [product("slow")] }));
    const raw = await openRaw(server.url);
    open.push(raw);
    await raw.write(head(`${BASE}/bulk`, TOKENS.a, body.length));
    const step = Math.ceil(body.length / 8);
    for (let at = 0; at < body.length; at += step) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await raw.write(body.subarray(at, at + step));
    }
    expect(parseRawResponse(await raw.waitFor(hasCompleteResponse)).status).toBe(200);
    expect((await server.catalog.getProduct(SITE_A, "slow")).id).toBe("slow");
  });

  it("reads at most maxUploadsPerToken bodies of one token at once; the others wait unread", async () => {
    server = await startTestServer({ maxUploadsPerToken: 2 });
    for (let i = 0; i < 2; i++) await unfinishedUpload(server.url, TOKENS.a, `stalled-${i}`);
    const body = JSON.stringify({ ...SITE_A, product: product("third") });
    const third = await openRaw(server.url);
    open.push(third);
    await third.write(head(BASE, TOKENS.a, body.length).replace("\r\n\r\n", "\r\nExpect: 100-continue\r\n\r\n"));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(third.received()).toBe("");
    // Another token is not held back.
    const other = await server.request("POST", BASE, { token: TOKENS.b, json: { ...SITE_B, product: product("b") } });
    expect(other.status).toBe(200);
    // When one of the token's uploads goes away, the waiting one is read.
    (open[0] as RawConnection).destroy();
    await third.waitFor((text) => text.startsWith("HTTP/1.1 100 Continue"));
    await third.write(body);
    expect(
      parseRawResponse((await third.waitFor((text) => hasCompleteResponse(text.slice(25)))).slice(25)).status,
    ).toBe(200);
  });
});
