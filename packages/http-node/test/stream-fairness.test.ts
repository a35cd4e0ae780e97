// A streamed upload that trickles in holds its own token's places, never the budget another
// token's body needs, and never the 409 of a second request under its idempotency key.
import { hasCompleteResponse, openRaw, parseRawResponse, type RawConnection } from "@catalog-kit/test-support/http";
import { afterEach, expect, it } from "vitest";
import { product, SITE_A, SITE_B, startTestServer, type TestServer, TOKENS } from "./support/test-server.ts";

const BULK = "/external/product/v1/bulk";
const TRICKLE_MS = 2_000;

const open: RawConnection[] = [];
let server: TestServer | undefined;
afterEach(async () => {
  for (const raw of open.splice(0)) raw.destroy();
  await server?.close();
  server = undefined;
});

const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;

// A chunked NDJSON upload of token A into site A under `key`; its first line is sent at once.
async function startUpload(url: string, key: string, id: string): Promise<RawConnection> {
  const raw = await openRaw(url);
  open.push(raw);
  await raw.write(
    `POST ${BULK}?siteId=${SITE_A.siteId}&siteType=${SITE_A.siteType} HTTP/1.1\r\nHost: test\r\n` +
      `X-Service-Access-Token: ${TOKENS.a}\r\nIdempotency-Key: ${key}\r\n` +
      "Content-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n",
  );
  await raw.write(chunk(`${JSON.stringify(product(id))}\n`));
  return raw;
}

it("answers another token's import and a second request under the key while a raw upload trickles in", async () => {
  // An operator's choice: a 4 MiB body budget, well under what a streamed body would reserve.
  server = await startTestServer({ maxBodyBytes: 1_048_576 });
  const trickle = await startUpload(server.url, "trickled", "slow-0");
  const started = performance.now();
  let trickleEnded = Number.POSITIVE_INFINITY;
  const trickling = (async () => {
    for (let i = 1; performance.now() - started < TRICKLE_MS; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await trickle.write(chunk(`${JSON.stringify(product(`slow-${i}`))}\n`));
    }
    trickleEnded = performance.now();
    await trickle.write("0\r\n\r\n");
  })();
  await new Promise((resolve) => setTimeout(resolve, 200));

  const other = server
    .request("POST", "/external/product/v1", { token: TOKENS.b, json: { ...SITE_B, product: product("b-1") } })
    .then((response) => ({ status: response.status, at: performance.now() }));
  const again = await startUpload(server.url, "trickled", "again");
  const refused = again
    .waitFor(hasCompleteResponse, TRICKLE_MS * 2)
    .then((text) => ({ status: parseRawResponse(text).status, at: performance.now() }));

  // The same key from another token of the site, with a JSON body: read whole, then refused.
  const json = server
    .request("POST", `${BULK}?siteId=${SITE_A.siteId}&siteType=${SITE_A.siteType}`, {
      token: TOKENS.ab,
      headers: { "idempotency-key": "trickled" },
      json: { products: [product("json")] },
    })
    .then((response) => ({ status: response.status, at: performance.now() }));

  const [b, second, third] = await Promise.all([other, refused, json]);
  await trickling;
  expect([b.status, second.status, third.status]).toEqual([200, 409, 409]);
  expect(b.at).toBeLessThan(trickleEnded);
  expect(second.at).toBeLessThan(trickleEnded);
  expect(third.at).toBeLessThan(trickleEnded);
  expect(parseRawResponse(await trickle.waitFor(hasCompleteResponse)).status).toBe(200);
});
