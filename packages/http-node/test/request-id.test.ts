import { fc, test } from "@fast-check/vitest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptRequestId, createRequestIds, MAX_REQUEST_ID_LENGTH } from "../src/request-id.ts";
import { productPath, SITE_A, startTestServer, type TestServer, TOKENS } from "./support/test-server.ts";

const ALLOWED = "abcXYZ019_.~:-";
const validId = fc.string({ unit: fc.constantFrom(...ALLOWED), minLength: 1, maxLength: MAX_REQUEST_ID_LENGTH });

describe("acceptRequestId", () => {
  test.prop([validId])("keeps a valid id as it is", (id) => {
    expect(acceptRequestId(id)).toBe(id);
  });

  test.prop([fc.string({ unit: "binary", maxLength: 200 })])(
    "accepts only 1-128 characters of letters, digits and _ . ~ : -",
    (header) => {
      const valid = header.length >= 1 && header.length <= MAX_REQUEST_ID_LENGTH && /^[A-Za-z0-9_.~:-]+$/.test(header);
      expect(acceptRequestId(header)).toBe(valid ? header : undefined);
    },
  );

  it("refuses a repeated header, an empty one and one over the length limit", () => {
    expect(acceptRequestId(["a", "b"])).toBeUndefined();
    expect(acceptRequestId(undefined)).toBeUndefined();
    expect(acceptRequestId("")).toBeUndefined();
    expect(acceptRequestId("a".repeat(MAX_REQUEST_ID_LENGTH + 1))).toBeUndefined();
    expect(acceptRequestId("a b")).toBeUndefined();
    expect(acceptRequestId("a\r\nx-evil: 1")).toBeUndefined();
  });
});

describe("createRequestIds", () => {
  it("generates distinct ids that the server itself would accept", () => {
    const next = createRequestIds();
    const ids = Array.from({ length: 10_000 }, next);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(acceptRequestId(id)).toBe(id);
    expect(createRequestIds()()).not.toBe(createRequestIds()());
  });
});

describe("X-Request-Id over HTTP", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  test.prop([fc.oneof(validId, fc.string({ unit: "grapheme-ascii", maxLength: 150 }))], { numRuns: 30 })(
    "echoes a valid id, replaces anything else, and names it in the problem body and the log",
    async (sent) => {
      const headerSafe = /^[\t\x20-\x7e]*$/.test(sent) ? sent : "x";
      const response = await server.request("GET", productPath("missing", SITE_A), {
        token: TOKENS.admin,
        headers: { "x-request-id": headerSafe },
      });
      const id = response.headers.get("x-request-id") as string;
      // fetch trims surrounding white space from header values before sending.
      const trimmed = headerSafe.trim();
      if (acceptRequestId(trimmed) !== undefined) expect(id).toBe(trimmed);
      else expect(acceptRequestId(id)).toBe(id);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        code: "PRODUCT_NOT_FOUND",
        instance: `urn:catalog-kit:request:${id}`,
      });
      expect(server.log.at(-1)).toMatchObject({ requestId: id, status: 400 });
    },
  );

  it("generates an id for a request without one, on success and failure alike", async () => {
    const ok = await server.request("GET", "/healthz");
    const failed = await server.request("GET", productPath("p", SITE_A));
    const ids = [ok.headers.get("x-request-id"), failed.headers.get("x-request-id")];
    for (const id of ids) expect(acceptRequestId(id ?? undefined)).toBe(id);
    expect(ids[0]).not.toBe(ids[1]);
    expect(await failed.json()).toMatchObject({ code: "UNAUTHORIZED", instance: `urn:catalog-kit:request:${ids[1]}` });
  });
});
