// A server that only records what the command sends (method, path and query, headers, body) and
// gives one canned answer: for what the command puts in a request, whatever the catalog's own
// handler takes yet.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** One request as the server saw it. */
export interface Recorded {
  readonly method: string;
  readonly url: URL;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** A running recording server. */
export interface RecordingServer {
  /** `--url URL --site shopify/shop-1 --token-file FILE`. */
  readonly connect: readonly string[];
  /** A directory of the test's own, removed by `close`. */
  readonly dir: string;
  readonly requests: Recorded[];
  /** The next answers' status, type and body. */
  answer: { status: number; type: string; body: string };
  close(): Promise<void>;
}

/** Starts a recording server on a free port of 127.0.0.1. */
export async function startRecordingServer(): Promise<RecordingServer> {
  const dir = await mkdtemp(join(tmpdir(), "catalog-cli-rec-"));
  await writeFile(join(dir, "token"), "recorded-token\n");
  const requests: Recorded[] = [];
  const state: RecordingServer = {
    connect: [],
    dir,
    requests,
    answer: { status: 200, type: "application/json", body: "{}" },
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      requests.push({
        method: req.method ?? "",
        url: new URL(req.url ?? "/", "http://recorded"),
        headers: req.headers,
        body: Buffer.concat(chunks),
      });
      res.writeHead(state.answer.status, { "content-type": state.answer.type }).end(state.answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    connect: ["--url", `http://127.0.0.1:${port}`, "--site", "shopify/shop-1", "--token-file", join(dir, "token")],
  });
}
