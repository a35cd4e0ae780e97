// The rate-limit fields a 200 adds to the head Node wrote: each once, in the head and not the
// body, the answer still framed so that the next one on the connection reads right; a policy with
// a character outside visible ASCII never goes that way.
import { connect } from "node:net";
import { createUsageMeter } from "@catalog-kit/catalog-core";
import { fc, test } from "@fast-check/vitest";
import { afterEach, describe, expect, it } from "vitest";
import { CAN_APPEND, policyLine, RateLimitFields } from "../src/rate-limit-fields.ts";
import { product, productPath, SITE_A, startTestServer, type TestServer, TOKENS } from "./support/test-server.ts";

const NOW = 1_000 * 60_000 + 23_000; // 37 s before the end of a minute
const POLICY =
  '"requests";q=6000;w=60, "import-bytes";q=2147483648;qu="content-bytes";w=60, "imports";q=2;qu="concurrent-requests"';

let server: TestServer;
afterEach(async () => {
  await server?.close();
});

interface Answer {
  readonly status: string;
  readonly lines: readonly string[];
  readonly body: string;
}

// Sends `count` GETs of `path` at once on one connection and splits what comes back by
// Content-Length alone, as a client reading the next answer would.
function pipelined(url: string, path: string, count: number): Promise<Answer[]> {
  const { hostname, port } = new URL(url);
  const request = `GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nX-Service-Access-Token: ${TOKENS.admin}\r\n\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request.repeat(count)));
    let received = Buffer.alloc(0);
    const answers: Answer[] = [];
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      for (;;) {
        const end = received.indexOf("\r\n\r\n");
        if (end === -1) return;
        const [status = "", ...lines] = received.subarray(0, end).toString("latin1").split("\r\n");
        const length = Number(lines.find((line) => /^content-length:/i.test(line))?.split(":")[1]);
        if (received.length < end + 4 + length) return;
        answers.push({ status, lines, body: received.subarray(end + 4, end + 4 + length).toString("utf8") });
        received = received.subarray(end + 4 + length);
        if (answers.length === count) {
          socket.end();
          resolve(answers);
        }
      }
    });
    socket.once("error", reject);
  });
}

const named = (answer: Answer, name: string) =>
  answer.lines
    .filter((line) => line.toLowerCase().startsWith(`${name}:`))
    .map((line) => line.slice(name.length + 1).trim());

describe("rate-limit fields added to the head", () => {
  it("are there on this Node.js, which keeps the head as a string until the body is written", () => {
    expect(CAN_APPEND).toBe(true);
  });

  it("are each on a 200 once, in the head, and every answer on the connection is framed right", async () => {
    const usageMeter = createUsageMeter({ now: () => NOW, settleEveryMs: 0 });
    const rateLimits = { requestsPerMinute: 6000, importBytesPerMinute: 2_147_483_648, importsPerSite: 2 };
    server = await startTestServer({ usageMeter, rateLimits });
    const stored = product("p1");
    const imported = await server.request("POST", "/external/product/v1/bulk", {
      token: TOKENS.admin,
      json: { ...SITE_A, products: [stored] },
    });
    expect(imported.status).toBe(200);
    const answers = await pipelined(server.url, productPath("p1", SITE_A), 3);
    for (const [index, answer] of answers.entries()) {
      expect(answer.status).toBe("HTTP/1.1 200 OK");
      expect(named(answer, "ratelimit-policy")).toEqual([POLICY]);
      // The import spent one request, each GET one more.
      expect(named(answer, "ratelimit")).toEqual([`"requests";r=${5998 - index};t=37`]);
      expect(named(answer, "etag")).toHaveLength(1);
      expect(named(answer, "x-request-id")).toHaveLength(1);
      expect(JSON.parse(answer.body)).toMatchObject({ id: "p1", sku: stored.sku });
    }
  });
});

describe("policyLine", () => {
  test.prop([fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)) })])(
    "makes the field's line of a policy of visible ASCII and spaces",
    (policy) => {
      expect(policyLine(policy)).toBe(`ratelimit-policy: ${policy}\r\n`);
    },
  );

  test.prop([fc.string({ unit: "binary" }), fc.string({ unit: "binary" })])(
    "refuses a policy with any other character (CR and LF among them): it goes through Node's checks",
    (before, after) => {
      for (const odd of ["\r", "\n", "\t", "\0", "\x7f", "é", "😀"]) {
        expect(policyLine(`${before}${odd}${after}`)).toBeUndefined();
      }
    },
  );
});

describe("RateLimitFields", () => {
  it("are a record of the two fields, spread and walked like any other headers, and make their two lines", () => {
    const fields = new RateLimitFields("p", policyLine("p") as string, '"requests";r=1;t=2');
    expect({ ...fields }).toEqual({ "ratelimit-policy": "p", ratelimit: '"requests";r=1;t=2' });
    expect(Object.keys(fields)).toEqual(["ratelimit-policy", "ratelimit"]);
    expect(RateLimitFields.linesOf(fields)).toBe('ratelimit-policy: p\r\nratelimit: "requests";r=1;t=2\r\n');
  });
});
