// One body reader: a body read whole is the stream, collected. Both ways of reading give the same
// bytes and the same refusals, for any body, chunking, coding and limit.
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readBody, streamBody } from "../src/body-stream.ts";
import { toProblem } from "../src/problem.ts";

let server: Server;
let port: number;

async function collect(body: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}

// Reads the body as the query says (`whole` or streamed, its limit, gzip) and answers what it got.
function serve(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? "/", "http://test");
  const tally = { bytes: 0 };
  const read = { limit: Number(url.searchParams.get("limit")), idleMs: 300, gzip: url.searchParams.has("gzip"), tally };
  const body = url.searchParams.has("whole") ? readBody(req, res, read) : collect(streamBody(req, res, read));
  body.then(
    (bytes) => res.end(JSON.stringify({ status: 200, sha: createHash("sha256").update(bytes).digest("hex"), tally })),
    (error: unknown) => {
      // The rest of a refused body is read and dropped here, so that the client sees the answer.
      req.resume();
      const { status, body } = toProblem(error);
      res.writeHead(status).end(JSON.stringify({ status, code: body.code, limit: body.limit }));
    },
  );
}

beforeAll(async () => {
  server = createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

// Sends `pieces` as a chunked body, a pause between them; `stall` leaves the body unfinished.
function send(query: string, pieces: readonly Uint8Array[], stall = false): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request({ port, host: "127.0.0.1", method: "POST", path: `/?${query}` }, (res) => {
      let text = "";
      res.on("data", (chunk) => {
        text += chunk;
      });
      res.on("end", () => {
        answered = true;
        resolve(JSON.parse(text) as Record<string, unknown>);
        req.destroy();
      });
    });
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    (async () => {
      for (const piece of pieces) {
        if (answered) return;
        req.write(piece);
        await new Promise((next) => setTimeout(next, 1));
      }
      if (!stall && !answered) req.end();
    })();
  });
}

function cut(bytes: Uint8Array, at: readonly number[]): Uint8Array[] {
  const points = [...new Set(at.map((n) => n % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    if (point > from) pieces.push(bytes.subarray(from, point));
    from = point;
  }
  return pieces;
}

describe("the body reader", () => {
  it("reads a body whole exactly as it streams it: same bytes, same tally, same refusals", async () => {
    await fc.assert(
      fc.asyncProperty(
        // Random bytes do not compress; runs of one byte do, to pass the limit only once decoded.
        fc.oneof(
          fc.uint8Array({ maxLength: 3_000 }),
          fc.tuple(fc.nat(255), fc.nat(3_000)).map(([byte, length]) => new Uint8Array(length).fill(byte)),
        ),
        fc.boolean(),
        fc.integer({ min: 0, max: 3_500 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        async (plain, gzip, limit, cuts) => {
          const sent = gzip ? gzipSync(plain) : plain;
          const query = `limit=${limit}${gzip ? "&gzip" : ""}`;
          const whole = await send(`${query}&whole`, cut(sent, cuts));
          const streamed = await send(query, cut(sent, cuts));
          if (sent.length <= limit && plain.length <= limit) {
            const sha = createHash("sha256").update(plain).digest("hex");
            expect(whole).toEqual({ status: 200, sha, tally: { bytes: sent.length } });
            expect(streamed).toEqual(whole);
          } else {
            expect(whole).toEqual({ status: 413, code: "PAYLOAD_TOO_LARGE", limit });
            expect(streamed).toEqual(whole);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("refuses corrupt gzip and a silent body alike, either way", async () => {
    for (const mode of ["&whole", ""]) {
      expect(await send(`limit=100&gzip${mode}`, [Buffer.from("not gzip at all")])).toMatchObject({
        status: 400,
        code: "INVALID_ENCODING",
      });
      expect(await send(`limit=100${mode}`, [Buffer.from("{")], true)).toMatchObject({
        status: 408,
        code: "REQUEST_TIMEOUT",
      });
    }
  });
});
