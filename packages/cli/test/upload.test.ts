// How an import meets a server that does not simply answer at the end: a refusal before the upload
// (a declared size over the limit, a wrong token) or during it (a proxy's limit), a 503, a
// connection lost once the body was sent, an answer replayed for its Idempotency-Key, and a
// server that is not listening yet.
import { open, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { freePort } from "@catalog-kit/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CatalogServer, productLine, SITE, startCatalogServer } from "./support/catalog-server.ts";
import { runCli, spawnCli } from "./support/run-cli.ts";

const LIMIT = 1_000_000;
let server: CatalogServer;
let big: string;
let small: string;

beforeAll(async () => {
  server = await startCatalogServer({ maxStreamBytes: LIMIT });
  // 40 MB, far more than the socket buffers take, so that an early answer finds the upload going on.
  big = join(server.dir, "big.ndjson");
  const handle = await open(big, "w");
  const line = `${productLine("same", { description: "d".repeat(900) })}\n`;
  const block = line.repeat(Math.ceil(1_000_000 / line.length));
  for (let i = 0; i < 40; i++) await handle.write(block);
  await handle.close();
  small = join(server.dir, "small.ndjson");
  await writeFile(small, `${productLine("s1")}\n`);
});
afterAll(async () => {
  await server?.close();
});

// Reads the whole body of a request (after telling the client to send it), then calls `then`.
function consume(req: IncomingMessage, res: ServerResponse, then: () => void): true {
  res.writeContinue();
  req.resume();
  req.on("end", then);
  return true;
}

const keys = () => server.posts.map((headers) => headers["idempotency-key"]);

describe("catalog-kit import: the server's answer, whenever it comes", () => {
  it("shows a 413 sent before the upload (the declared size), and a 401, with what was sent", async () => {
    const tooBig = await runCli(["import", big, ...server.connect]);
    expect(tooBig.stderr).toContain("413 PAYLOAD_TOO_LARGE: The request body may be at most 1000000 bytes");
    expect(tooBig.stderr).toMatch(/The server answered before the upload began \(0 B of 4\d\.\d MB sent/);
    expect(tooBig.stderr).not.toMatch(/EPIPE|Sent 4/);
    expect(tooBig.code).toBe(1);
    const token = join(server.dir, "wrong-token");
    await writeFile(token, "wrong");
    const wrong = await runCli(["import", big, ...server.connect, "--token-file", token]);
    expect(wrong.stderr).toContain("401 UNAUTHORIZED");
    expect(wrong.code).toBe(1);
  });

  it("shows a 413 answered in the middle of the upload, then a reset, as a proxy's limit does, not the broken pipe", async () => {
    server.hooks.push((req, res) => {
      res.writeContinue();
      let received = 0;
      req.on("data", (chunk: Buffer) => {
        received += chunk.length;
        if (received < LIMIT || res.headersSent) return;
        req.pause();
        const problem = { status: 413, code: "PAYLOAD_TOO_LARGE", detail: "At most 1 MB here", errors: [] };
        res.writeHead(413, { "content-type": "application/problem+json", connection: "close" });
        // Closed with the body still arriving: the connection is reset while the command writes.
        res.end(JSON.stringify(problem), () => req.socket.destroy());
      });
      return true;
    });
    const { code, stderr } = await runCli(["import", big, ...server.connect, "--retries", "0"]);
    expect(stderr).toContain("413 PAYLOAD_TOO_LARGE: At most 1 MB here");
    expect(stderr).toMatch(/The server answered before the upload ended \(\d+\.\d MB of 4\d\.\d MB sent/);
    expect(stderr).not.toContain("EPIPE");
    expect(code).toBe(1);
  });
});

describe("catalog-kit import: trying again under one Idempotency-Key", () => {
  it("sends again after a 503, when Retry-After says, with the same key", async () => {
    server.posts.length = 0;
    server.hooks.push((_req, res) => {
      res
        .writeHead(503, { "retry-after": "1", connection: "close" })
        .end('{"status":503,"code":"STORAGE_UNAVAILABLE"}');
      return true;
    });
    const { code, stderr } = await runCli(["import", small, ...server.connect]);
    expect(stderr).toContain("503 from the server: trying again in 1 s (1 of 5)");
    expect(code).toBe(0);
    expect(keys()).toHaveLength(2);
    expect(keys()[1]).toBe(keys()[0]);
    expect(stderr).toContain(`Idempotency-Key: ${keys()[0]}`);
  });

  it("waits out a 429 (a rate limit) as it waits out a 503: after its Retry-After, with the same key", async () => {
    server.posts.length = 0;
    server.hooks.push((_req, res) => {
      const problem = { status: 429, code: "RATE_LIMITED", quota: "import-bytes", limit: 1000, window: 60 };
      res
        .writeHead(429, { "retry-after": "1", ratelimit: '"import-bytes";r=0;t=1', connection: "close" })
        .end(JSON.stringify(problem));
      return true;
    });
    const started = performance.now();
    const { code, stderr } = await runCli(["import", small, ...server.connect]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(stderr).toContain("429 from the server: trying again in 1 s (1 of 5)");
    expect(stderr).toContain("Imported 1 product");
    expect(code).toBe(0);
    expect(keys()).toHaveLength(2);
    expect(keys()[1]).toBe(keys()[0]);
  });

  it("sends again, with the same key, when the connection is lost after the body was sent", async () => {
    server.posts.length = 0;
    server.hooks.push((req, res) => consume(req, res, () => req.socket.destroy()));
    const { code, stderr } = await runCli(["import", small, ...server.connect, "--idempotency-key", "import-42"]);
    expect(stderr).toMatch(/Connection lost \(.+\): trying again in 1 s \(1 of 5\)/);
    expect(stderr).toContain("Imported 1 product");
    expect(code).toBe(0);
    expect(keys()).toEqual(["import-42", "import-42"]);
  });

  it("cannot send standard input twice: a lost connection after it was read is exit 3, saying so", async () => {
    server.hooks.push((req, res) => consume(req, res, () => req.socket.destroy()));
    const { code, stderr } = await runCli(["import", "-", "--format", "ndjson", ...server.connect], {
      input: `${productLine("s2")}\n`,
    });
    expect(stderr).toContain("standard input cannot be sent again");
    expect(code).toBe(3);
  });

  it("says so when the answer is a replay (Idempotent-Replayed: true)", async () => {
    server.hooks.push((req, res) =>
      consume(req, res, () => {
        const body = { message: "Imported 1 product", total: 1, created: 1, updated: 0, unchanged: 0 };
        res.writeHead(200, { "content-type": "application/json", "idempotent-replayed": "true" });
        res.end(JSON.stringify(body));
      }),
    );
    const { code, stderr } = await runCli(["import", small, ...server.connect, "--idempotency-key", "again-1"]);
    expect(stderr).toContain("Idempotent-Replayed: the server had applied this import (key again-1) already");
    expect(code).toBe(0);
    expect((await runCli(["import", small, ...server.connect, "--idempotency-key", "two words"])).code).toBe(2);
  });

  it("tries again while the connection is refused, until the server listens", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const args = ["import", small, ...server.connect, "--url", url];
    const child = spawnCli(args);
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    while (!stderr.includes("Connection refused") && child.exitCode === null) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const late = await startCatalogServer({}, port, server.catalog);
    try {
      expect(await exited).toBe(0);
    } finally {
      await late.close();
    }
    expect(stderr).toMatch(/Connection refused \(.*ECONNREFUSED.*\): trying again in 1 s \(1 of 5\)/);
    expect(stderr).toContain("Imported 1 product");
    expect(await server.catalog.getProduct(SITE, "s1")).toMatchObject({ sku: "S-s1" });
    const never = await runCli([...args, "--retries", "0"]);
    expect(never.stderr).toContain("No answer from the server");
    expect(never.code).toBe(3);
  });
});
