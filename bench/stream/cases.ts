// The cases of the streamed-import scenario, each against a rig of its own: one streamed body,
// and the buffered bulk JSON import of the same products, with the server's memory through them.
import { setImmediate } from "node:timers/promises";
import type { Site } from "@catalog-kit/catalog-core";
import { type Answer, bodyOf, type Format, type Produced, post, SEED } from "../body.ts";
import { Connection } from "../client.ts";
import { generateProducts } from "../data.ts";
import { measureOn, type Rig, type Taken } from "../rig.ts";
import { rssOf, type Standalone } from "../standalone.ts";
import { API, budget, TOKEN, takeSite } from "./setup.ts";

/** Products per request of the buffered baseline. */
const BATCH = 1_000;
/** Requests of the buffered baseline in flight at once, so the server never waits for the client. */
export const CONNECTIONS = 4;

/** One case's figures. */
export interface Measured extends Taken {
  readonly products: number;
  /** A platform file's records (rows, items), several a product; the products when absent. */
  readonly rows?: number;
  readonly bytes: number;
  readonly answer?: Answer;
  readonly idleRss: number;
  /** Server RSS when half the products had been sent. */
  readonly halfRss: number | undefined;
  readonly peakRss: number | undefined;
  /** On memory storage, the server's heap in use once it answered (`/metrics`): the stored products, mostly. */
  readonly heapAfter?: number;
}

/** A case's products per second. */
export const rate = (m: Measured) => m.products / m.seconds;

/** `m` with the server's V8 heap in use, from its `/metrics` (prom-client's `nodejs_heap_size_used_bytes`). */
export async function withHeap(server: Standalone, m: Measured): Promise<Measured> {
  const answer = await new Connection(server.url, TOKEN).send("GET", "/metrics");
  const bytes = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(answer.body)?.[1];
  return bytes === undefined ? m : { ...m, heapAfter: Number(bytes) };
}

/**
 * Runs `send` against the rig's server (measureOn), with its RSS when idle and when half the body
 * had been sent; its peak is the process's, the server being fresh.
 */
export async function measure(
  rigged: Rig,
  total: () => number,
  sentSoFar: () => number,
  send: () => Promise<Answer | undefined>,
): Promise<Measured> {
  const { pid } = rigged.server;
  const idleRss = await rssOf(pid);
  let halfRss: number | undefined;
  const sampler = setInterval(() => {
    if (halfRss === undefined && sentSoFar() >= total() / 2) {
      halfRss = Number.NaN;
      void rssOf(pid).then((rss) => {
        halfRss = rss;
      });
    }
  }, 100);
  try {
    const { taken, hwm, result: answer } = await measureOn(rigged, TOKEN, send);
    return {
      ...taken,
      products: 0,
      bytes: 0,
      ...(answer === undefined ? {} : { answer }),
      idleRss,
      halfRss: Number.isNaN(halfRss) ? undefined : halfRss,
      peakRss: hwm,
    };
  } finally {
    clearInterval(sampler);
  }
}

const CONTENT_TYPE: Readonly<Record<Format, string>> = { ndjson: "application/x-ndjson", csv: "text/csv" };
const PATH: Readonly<Record<Format, string>> = { ndjson: `${API}/bulk`, csv: `${API}/bulk/csv` };

/** One streamed body into a fresh site of a fresh server (with `key` as its `Idempotency-Key`); the rig is left running for checks. */
export async function streamCase(
  rigged: Rig,
  format: Format,
  options: { gzip?: boolean; badLast?: boolean; key?: string } = {},
): Promise<{ measured: Measured; produced: Produced; site: Site }> {
  const site = takeSite();
  const produced: Produced = { products: 0, bytes: 0, lastLine: 0 };
  const path = `${PATH[format]}?siteId=${site.siteId}&siteType=${site.siteType}`;
  // The product count is known once the body is; until then, half of the budget is half the body.
  const measured = await measure(
    rigged,
    () => budget,
    () => produced.bytes,
    () =>
      post(
        rigged.server,
        TOKEN,
        path,
        CONTENT_TYPE[format],
        bodyOf(format, produced, { maxBytes: budget, badLast: options.badLast === true }),
        {
          gzip: options.gzip === true,
          ...(options.key === undefined ? {} : { headers: { "idempotency-key": options.key } }),
        },
      ),
  );
  return { measured: { ...measured, products: produced.products, bytes: produced.bytes }, produced, site };
}

/**
 * The bulk JSON body of `n` products from `first`, as `{ siteId, siteType, products }`, with a
 * turn of the event loop before and after the encoding: a body is larger than a socket's buffer,
 * so the bodies already handed to other connections reach the server only while this process is
 * free to write them.
 */
async function bulkBody(site: Site, first: number, n: number): Promise<string> {
  const products = generateProducts(n, SEED, first);
  await setImmediate();
  const body = JSON.stringify({ siteId: site.siteId, siteType: site.siteType, products });
  await setImmediate();
  return body;
}

/** Today's import: the first `products` of the same products, 1,000 a request, as `{ siteId, siteType, products }`. */
export async function bufferedCase(rigged: Rig, products: number): Promise<Measured> {
  const site = takeSite();
  const connections = Array.from({ length: CONNECTIONS }, () => new Connection(rigged.server.url, TOKEN));
  const batches = Math.ceil(products / BATCH);
  let next = 0;
  let done = 0;
  let bytes = 0;
  const measured = await measure(
    rigged,
    () => products,
    () => done,
    async () => {
      await Promise.all(
        connections.map(async (connection) => {
          for (let batch = next++; batch < batches; batch = next++) {
            const first = batch * BATCH;
            const body = await bulkBody(site, first, Math.min(BATCH, products - first));
            bytes += Buffer.byteLength(body);
            const answer = await connection.send("POST", `${API}/bulk`, body, 600_000);
            if (answer.status !== 200) {
              throw new Error(
                `buffered bulk JSON: answer ${answer.status} ${answer.error ?? answer.body.slice(0, 300)}`,
              );
            }
            done += BATCH;
          }
        }),
      );
      return undefined;
    },
  );
  for (const connection of connections) connection.close();
  return { ...measured, products, bytes };
}

/** Throws unless the case was answered 200 with every product it sent imported. */
export function requireImported(measured: Measured, what: string): void {
  const answer = measured.answer;
  if (answer?.status !== 200) {
    throw new Error(`${what}: answer ${answer?.status} ${answer?.body.slice(0, 500)}`);
  }
  const total = (JSON.parse(answer.body) as { total?: number }).total;
  if (total !== measured.products) throw new Error(`${what}: ${total} products imported of ${measured.products} sent`);
}
