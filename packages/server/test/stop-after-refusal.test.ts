// A streamed import refused before its body was read (its idempotency key in use) must not keep
// the process alive: SIGTERM then ends it, as it does with nothing in flight.
import {
  type CliProcess,
  hasCompleteResponse,
  openRaw,
  parseRawResponse,
  type RawConnection,
  startCli,
  stopCli,
} from "@catalog-kit/test-support/http";
import { afterEach, expect, it } from "vitest";

const running: CliProcess[] = [];
const open: RawConnection[] = [];
afterEach(async () => {
  for (const raw of open.splice(0)) raw.destroy();
  await Promise.all(running.splice(0).map(stopCli));
});

const line = (id: string) =>
  `${JSON.stringify({ id, sku: id.toUpperCase(), title: "T", available: true, featured_image: "https://i", url: "https://u" })}\n`;

// A chunked NDJSON import under `key` whose body has begun and does not end.
async function openUpload(url: string, token: string, key: string, id: string): Promise<RawConnection> {
  const raw = await openRaw(url);
  open.push(raw);
  await raw.write(
    "POST /external/product/v1/bulk?siteId=demo&siteType=demo HTTP/1.1\r\nHost: x\r\n" +
      `X-Service-Access-Token: ${token}\r\nIdempotency-Key: ${key}\r\n` +
      "Content-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n",
  );
  const first = line(id);
  await raw.write(`${first.length.toString(16)}\r\n${first}\r\n`);
  return raw;
}

it("exits with 0 on SIGTERM after a streamed import was refused with 409 while its body was open", async () => {
  const server = startCli();
  running.push(server);
  const out = await server.waitForOutput(/Read it back:/);
  const url = /listening on (http:\S+)/.exec(out)?.[1] as string;
  const token = /Access token: (\S+)/.exec(out)?.[1] as string;

  const holder = await openUpload(url, token, "held-key", "first");
  // The holder's claim is taken once its body is being read.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const refused = await openUpload(url, token, "held-key", "second");
  const answer = parseRawResponse(await refused.waitFor(hasCompleteResponse));
  expect(answer.status).toBe(409);
  expect(answer.body).toMatchObject({ code: "IDEMPOTENCY_KEY_IN_USE" });
  // The refused client keeps sending, as a client that has not read its answer yet does.
  const more = line("more");
  await refused.write(`${more.length.toString(16)}\r\n${more}\r\n`);

  // The holder finishes, so that nothing is in flight when the signal comes.
  await holder.write("0\r\n\r\n");
  expect(parseRawResponse(await holder.waitFor(hasCompleteResponse)).status).toBe(200);

  server.child.kill("SIGTERM");
  const exit = await Promise.race([
    server.exited,
    new Promise((resolve) => setTimeout(() => resolve("still running after 5 s"), 5_000)),
  ]);
  expect(exit).toBe(0);
}, 30_000);
