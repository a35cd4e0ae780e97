// The README's `Idempotency-Key` section, over HTTP: every import channel replays under its key (same
// status, the same bytes, `Idempotent-Replayed`, nothing applied again), a retry after a cut
// connection answers the original counts, another request under a used key is 422, a key in use
// is 409, refused, failed and dry-run imports leave the key unused, bad keys are 400 naming the
// header, and a key belongs to its site. On the memory store, Redis, Redis Cluster and PostgreSQL.
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { CatalogError, type Site } from "@catalog-kit/catalog-core";
import { wrapStaged } from "@catalog-kit/test-support/staged";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { build, CHANNELS, type Payload } from "./support/channels.ts";
import { freshSite } from "./support/one-answer-run.ts";
import { describeEachStore } from "./support/stores.ts";
import { product, startTestServer, type TestServer, TOKENS } from "./support/test-server.ts";

interface Answer {
  readonly status: number;
  readonly text: string;
  readonly headers: Headers;
}

let keys = 0;
const newKey = () => `key-${process.pid}-${++keys}`;

async function post(
  server: TestServer,
  site: Site,
  payload: Payload,
  channel: (typeof CHANNELS)[number],
  key?: string,
) {
  const built = build(channel, payload, site);
  if (built === undefined) throw new Error(`${channel} cannot carry the payload`);
  const headers = key === undefined ? built.headers : { ...built.headers, "idempotency-key": key };
  const response = await server.request("POST", built.path, { token: TOKENS.admin, headers, body: built.body });
  return { status: response.status, text: await response.text(), headers: response.headers } satisfies Answer;
}

const two = { products: [product("a", "SKU-A"), product("b", "SKU-B")] };
const one = { products: [product("a", "SKU-A")] };
const payloadOf = (channel: (typeof CHANNELS)[number]) => (channel === "single" ? one : two);

describeEachStore("Idempotency-Key", (stores) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ store: stores.fresh() });
  });
  afterAll(async () => {
    await server?.close();
  });

  it.each(CHANNELS)(
    "%s: a replay has the same status and answer but its own importId, says so, and applies nothing again",
    async (channel) => {
      const site = freshSite(server);
      const key = newKey();
      const first = await post(server, site, payloadOf(channel), channel, key);
      expect(first.status).toBe(200);
      expect(first.headers.get("idempotent-replayed")).toBeNull();
      // Changed by another request in between: a replay must not undo it.
      await server.catalog.importProducts(site, [product("a", "SKU-A", { title: "changed since" })]);
      const again = await post(server, site, payloadOf(channel), channel, key);
      expect(again.status).toBe(first.status);
      // The replay is an import of its own in the history, marked replayed; all else as first answered.
      const { importId: firstId, ...firstAnswer } = JSON.parse(first.text) as { importId: string };
      const { importId: againId, ...againAnswer } = JSON.parse(again.text) as { importId: string };
      expect(againAnswer).toEqual(firstAnswer);
      expect(again.text).toBe(first.text.replace(firstId, againId));
      expect(await server.catalog.getImport(site, againId)).toMatchObject({ replayed: true, idempotencyKey: key });
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect((await server.catalog.getProduct(site, "a")).title).toBe("changed since");
    },
  );

  it("a retry after the connection was cut once the body was sent answers the original counts", async () => {
    const site = freshSite(server);
    const key = newKey();
    const built = build("bulk", two, site);
    if (built === undefined) throw new Error("unreachable");
    const url = new URL(server.url);
    const body = Buffer.from(built.body);
    const socket = connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve) => socket.once("connect", resolve));
    socket.write(
      `POST ${built.path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Service-Access-Token: ${TOKENS.admin}\r\n` +
        `Idempotency-Key: ${key}\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    socket.end(body);
    // The import ran; its answer is on its way when the connection goes.
    await expect
      .poll(() =>
        server.catalog.getProduct(site, "b").then(
          () => true,
          () => false,
        ),
      )
      .toBe(true);
    socket.destroy();
    let answer: Answer;
    for (;;) {
      answer = await post(server, site, two, "bulk", key);
      if (answer.status !== 409) break;
      expect(answer.headers.get("retry-after")).toBe("1");
      await sleep(50);
    }
    expect(answer.status).toBe(200);
    expect(answer.headers.get("idempotent-replayed")).toBe("true");
    expect(JSON.parse(answer.text)).toMatchObject({ total: 2, created: 2, unchanged: 0 });
  });

  it("another body, mode or content type under a used key is 422, and nothing is written", async () => {
    const site = freshSite(server);
    const key = newKey();
    expect((await post(server, site, two, "bulk", key)).status).toBe(200);
    const others: [Payload, (typeof CHANNELS)[number]][] = [
      [{ products: [product("c", "SKU-C")] }, "bulk"],
      [{ ...two, query: { mode: "replace" } }, "bulk"],
      [two, "ndjson"],
    ];
    for (const [payload, channel] of others) {
      const answer = await post(server, site, payload, channel, key);
      expect(answer.status).toBe(422);
      expect(JSON.parse(answer.text)).toMatchObject({ status: 422, code: "IDEMPOTENCY_KEY_REUSED" });
    }
    await expect(server.catalog.getProduct(site, "c")).rejects.toThrow(CatalogError);
  });

  it("while a slow streamed import holds a key, the same key is 409 with Retry-After, on every channel", async () => {
    const site = freshSite(server);
    const key = newKey();
    const built = build("ndjson", two, site);
    if (built === undefined) throw new Error("unreachable");
    const req = httpRequest(new URL(server.url + built.path), {
      method: "POST",
      headers: { ...built.headers, "x-service-access-token": TOKENS.admin, "idempotency-key": key },
    });
    const first = new Promise<number>((resolve, reject) => {
      req.on("response", (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      });
      req.on("error", reject);
    });
    const text = String(built.body);
    req.write(text.slice(0, 10));
    await sleep(200);
    // A body in memory claims nothing: its commit finds the claim, and writes nothing.
    for (const channel of CHANNELS) {
      const second = await post(server, site, payloadOf(channel), channel, key);
      expect(second.status).toBe(409);
      expect(second.headers.get("retry-after")).toBe("1");
      expect(JSON.parse(second.text)).toMatchObject({ code: "IDEMPOTENCY_KEY_IN_USE" });
    }
    await expect(server.catalog.getProduct(site, "a")).rejects.toThrow(CatalogError);
    req.end(text.slice(10));
    expect(await first).toBe(200);
    expect((await post(server, site, two, "ndjson", key)).headers.get("idempotent-replayed")).toBe("true");
  });

  it("refused imports and dry runs leave the key unused", async () => {
    const site = freshSite(server);
    const key = newKey();
    const invalid = { products: [{ ...product("a", "SKU-A"), price: "free" }] };
    expect((await post(server, site, invalid, "bulk", key)).status).toBe(400);
    const dry = await post(server, site, { ...two, query: { dryRun: true } }, "bulk", key);
    expect(dry.status).toBe(200);
    expect(JSON.parse(dry.text)).toMatchObject({ dryRun: true, created: 2 });
    const dryAgain = await post(server, site, { ...two, query: { dryRun: true } }, "bulk", key);
    expect(dryAgain.headers.get("idempotent-replayed")).toBeNull();
    const real = await post(server, site, two, "bulk", key);
    expect(real.status).toBe(200);
    expect(real.headers.get("idempotent-replayed")).toBeNull();
    expect(JSON.parse(real.text)).toMatchObject({ created: 2 });
  });

  it("a key of one site is another key in another site", async () => {
    const key = newKey();
    const [first, second] = [freshSite(server), freshSite(server)];
    expect(JSON.parse((await post(server, first, two, "bulk", key)).text)).toMatchObject({ created: 2 });
    const other = await post(server, second, two, "bulk", key);
    expect(other.headers.get("idempotent-replayed")).toBeNull();
    expect(JSON.parse(other.text)).toMatchObject({ created: 2 });
  });
});

describe("the Idempotency-Key header", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  // Fetch trims a header value of its surrounding whitespace, as every HTTP client may.
  const visible = fc.string({
    unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    maxLength: 300,
  });

  it("takes 1 to 255 visible ASCII characters, or the same as a quoted string; anything else is 400 naming the header", async () => {
    await fc.assert(
      fc.asyncProperty(visible, fc.boolean(), async (raw, quote) => {
        const value = raw.trim();
        const sent = quote ? `"${value.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"` : value;
        // A value in quotes is read as the string it quotes, whoever put it in quotes: `""` sent
        // as it is names the empty key.
        const quoted = /^"((?:[^"\\]|\\["\\])*)"$/.exec(sent);
        const key = quoted ? (quoted[1] as string).replace(/\\(["\\])/g, "$1") : sent;
        const valid = /^[\x21-\x7e]{1,255}$/.test(key);
        const answer = await post(server, freshSite(server), one, "single", sent);
        if (valid) {
          expect(answer.status).toBe(200);
          return;
        }
        expect(answer.status).toBe(400);
        const body = JSON.parse(answer.text);
        expect(body).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ header: "Idempotency-Key" }] });
      }),
      {
        numRuns: 60,
        examples: [
          ['""', false],
          ['"a"', false],
          ['"a', false],
        ],
      },
    );
  });

  it("reads a quoted key as the key it quotes", async () => {
    const site = freshSite(server);
    const key = newKey();
    expect((await post(server, site, one, "single", `"${key}"`)).status).toBe(200);
    const again = await post(server, site, one, "single", key);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
  });
});

describe("Idempotency-Key on a store that fails", () => {
  it("a failed import (503) leaves the key unused", async () => {
    const inner = createMemoryStore();
    let failNext = true;
    const store = wrapStaged(inner, (staged) => ({
      async commit(key) {
        if (!failNext) return staged.commit(key);
        failNext = false;
        await staged.abort();
        throw new CatalogError("STORAGE_UNAVAILABLE", "the store went away");
      },
    }));
    const server = await startTestServer({ store });
    try {
      const site = freshSite(server);
      const key = newKey();
      expect((await post(server, site, two, "bulk", key)).status).toBe(503);
      const retry = await post(server, site, two, "bulk", key);
      expect(retry.status).toBe(200);
      expect(retry.headers.get("idempotent-replayed")).toBeNull();
    } finally {
      await server.close();
    }
  });
});
