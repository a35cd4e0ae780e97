// What two more header fields cost a response, in a loop over `ServerResponse`s on a stream that
// discards: a GET's headers and body without rate limits, with `RateLimit-Policy` and `RateLimit`
// as Node's headers (each checked, lower-cased and joined by Node), and with them added to the head
// Node wrote, as http-node's `rate-limit-fields.ts` does on a 200. CPU of this thread, medians.
//
//   npx tsx bench/head-fields.ts                  # 9 batches of 100,000 responses each way, in turn
//   npx tsx bench/head-fields.ts --responses 20000 --batches 5
import { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { Writable } from "node:stream";
import { setImmediate } from "node:timers/promises";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: { responses: { type: "string", default: "100000" }, batches: { type: "string", default: "9" } },
});
const responses = Number(values.responses);
const batches = Number(values.batches);

const sink = Object.assign(new Writable({ write: (_chunk, _encoding, done) => done() }), {
  cork() {},
  uncork() {},
  setTimeout() {},
});
const request = Object.assign(new IncomingMessage(sink as unknown as Socket), {
  method: "GET",
  httpVersionMajor: 1,
  httpVersionMinor: 1,
});
const body = JSON.stringify({ id: "p-000123", sku: "SKU-123", title: "A product title", price: 1999 }).repeat(6);
const length = Buffer.byteLength(body);
const POLICY =
  '"requests";q=1000000000;w=60, "import-bytes";q=1000000000000;qu="content-bytes";w=60, "imports";q=100;qu="concurrent-requests"';
const POLICY_LINE = `ratelimit-policy: ${POLICY}\r\n`;
const left = (i: number) => `"requests";r=${999_999_999 - i};t=${1 + (i % 60)}`;

type Head = (res: ServerResponse, i: number) => void;
const base = (i: number) => [
  "etag",
  `"${i.toString(36)}"`,
  "content-type",
  "application/json",
  "content-length",
  length,
];
const WAYS: Record<string, Head> = {
  "no limits": (res, i) => res.writeHead(200, [...base(i), "x-request-id", `r-${i}`]),
  "limits, Node's headers": (res, i) =>
    res.writeHead(200, ["ratelimit-policy", POLICY, "ratelimit", left(i), ...base(i), "x-request-id", `r-${i}`]),
  "limits, added to the head": (res, i) => {
    res.writeHead(200, [...base(i), "x-request-id", `r-${i}`]);
    const head = res as unknown as { _header: string };
    head._header = `${head._header.slice(0, -2)}${POLICY_LINE}ratelimit: ${left(i)}\r\n\r\n`;
  },
};

function respond(head: Head, i: number): void {
  const res = new ServerResponse(request);
  res.assignSocket(sink as unknown as Socket);
  head(res, i);
  res.end(body);
  res.detachSocket(sink as unknown as Socket);
}

// `count` responses, the event loop let run every 1,000 as a server's would between requests: a
// write's completion is a tick of its own, and millions of them held back fill the heap.
async function respondAll(head: Head, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    respond(head, i);
    if (i % 1_000 === 999) await setImmediate();
  }
}

const threadMicros = () => {
  const { user, system } = process.threadCpuUsage?.() ?? process.cpuUsage();
  return user + system;
};
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;

const results = new Map<string, number[]>(Object.keys(WAYS).map((name) => [name, []]));
for (const head of Object.values(WAYS)) await respondAll(head, responses);
for (let batch = 0; batch < batches; batch++) {
  for (const [name, head] of Object.entries(WAYS)) {
    const start = threadMicros();
    await respondAll(head, responses);
    results.get(name)?.push((threadMicros() - start) / responses);
  }
}
const without = median(results.get("no limits") ?? []);
for (const [name, micros] of results) {
  const each = median(micros);
  console.log(JSON.stringify({ name, microsPerResponse: +each.toFixed(3), more: +(each - without).toFixed(3) }));
}
