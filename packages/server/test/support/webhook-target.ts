// A webhook receiver for tests: a local HTTP server that records every request it gets and
// answers each as the test says (a status and headers, or no answer at all: a stalled target).
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ImportRecord } from "@catalog-kit/catalog-core";

/** One request the target got. */
export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly at: number;
}

/** How the target answers its `n`th request (from 0): a status and headers, or `"stall"`. */
export type Answer = { readonly status: number; readonly headers?: Record<string, string> } | "stall";

/** A running target. */
export interface WebhookTarget {
  readonly url: string;
  readonly port: number;
  readonly received: Received[];
  /** Resolves once `count` requests arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** Starts a target on 127.0.0.1 that answers by `answer` (200 by default). */
export async function startTarget(answer: (n: number) => Answer = () => ({ status: 200 })): Promise<WebhookTarget> {
  const received: Received[] = [];
  const stalled: ServerResponse[] = [];
  const waiters = new Set<() => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const n = received.length;
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() });
      for (const waiter of waiters) waiter();
      const reply = answer(n);
      if (reply === "stall") stalled.push(res);
      else res.writeHead(reply.status, reply.headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/catalog`,
    port,
    received,
    waitFor(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (received.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(received.slice(0, count));
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${received.length} request(s) within ${timeoutMs} ms, not ${count}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const res of stalled) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An ended import's record, its problems included (the payload leaves them out). */
export function endedRecord(overrides: Partial<ImportRecord> = {}): ImportRecord {
  return {
    importId: "01JDZ8Q4N6W3D2X0000000000A",
    siteId: "shop-1",
    siteType: "shopify",
    channel: "body",
    format: "products",
    mode: "upsert",
    dryRun: false,
    state: "succeeded",
    startedAt: "2026-11-29T10:00:00.000Z",
    endedAt: "2026-11-29T10:00:02.000Z",
    updatedAt: "2026-11-29T10:00:02.000Z",
    bytesReceived: 512,
    productsRead: 3,
    counts: { total: 3, created: 2, updated: 1, unchanged: 0 },
    problemCount: 1,
    problems: [{ message: "Must be a string", pointer: "/products/2/title" }],
    requestId: "req-1",
    tokenName: "feed",
    ...overrides,
  };
}

/** Two Standard Webhooks secrets (24 random bytes each, fixed so that a failure can be replayed). */
export const SECRETS = [
  `whsec_${Buffer.alloc(24, 1).toString("base64")}`,
  `whsec_${Buffer.alloc(32, 7).toString("base64")}`,
] as const;
