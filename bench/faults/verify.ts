// Part 1's checks after the load: every id read back through the store against what the answers
// promised, then the Redis keys walked raw (stored JSON, SKU index, TTLs of leftovers).

import { checkIndex, checkKeyPrefix, siteKeys, storedProducts } from "@catalog-kit/adapter-redis/testing";
import type { CatalogStore, Product } from "@catalog-kit/catalog-core";
import type { Redis } from "ioredis";
import { sameProduct } from "../client.ts";
import { KEY_PREFIX, SHUTDOWN_SITE, SITE } from "./options.ts";
import { fail, failures, log, verifySummary } from "./record.ts";
import type { Writer } from "./writer.ts";

/** A product's title ends with the client and request that sent it. */
const TAG = / \[c(\d+) r(\d+)\]$/;

interface VerifyCounts {
  ids: number;
  stored: number;
  ackedRequests: number;
  refusedRequests: number;
  unknownRequests: number;
  unknownApplied: number;
}

/** Reads every id through the store's API and checks it against what the answers promised. */
export async function verifyWriters(store: CatalogStore, writers: readonly Writer[]): Promise<Map<string, Product>> {
  const seen = new Map<string, Product>();
  const counts: VerifyCounts = {
    ids: 0,
    stored: 0,
    ackedRequests: 0,
    refusedRequests: 0,
    unknownRequests: 0,
    unknownApplied: 0,
  };
  for (const writer of writers) {
    const storedSeq = new Map<string, number>();
    const lastOk = new Map<string, number>();
    for (const sent of writer.sent) {
      if (sent.outcome === "ok") for (const id of sent.products.keys()) lastOk.set(id, sent.seq);
    }
    for (let from = 0; from < writer.ids.length; from += 500) {
      const slice = writer.ids.slice(from, from + 500);
      const found = await Promise.all(slice.map((id) => store.find(SITE, id, "id")));
      slice.forEach((id, k) => {
        counts.ids++;
        const product = found[k];
        const ok = lastOk.get(id) ?? 0;
        const where = `${id} (last 200: request ${ok || "none"})`;
        if (product === undefined) {
          if (ok > 0) fail("acknowledged product missing", where);
          return;
        }
        counts.stored++;
        seen.set(id, product);
        const tag = TAG.exec(product.title);
        const seq = Number(tag?.[2]);
        const origin = tag?.[1] === String(writer.index) ? writer.sent[seq - 1] : undefined;
        if (origin === undefined || !origin.products.has(id)) {
          fail("stored product from no request of its owner", `${where}: ${product.title}`);
          return;
        }
        storedSeq.set(id, seq);
        if (origin.outcome === "refused")
          fail("product of a refused (4xx) request stored", `${where}: ${product.title}`);
        else if (seq < ok) fail("acknowledged write lost (an older version is stored)", `${where}: request ${seq}`);
        if (!sameProduct(product, origin.products.get(id))) {
          fail("stored product differs from what was sent", `${where}: ${JSON.stringify(product).slice(0, 200)}`);
        }
      });
    }
    for (const sent of writer.sent) {
      if (sent.outcome === "ok") counts.ackedRequests++;
      else if (sent.outcome === "refused") counts.refusedRequests++;
      else {
        counts.unknownRequests++;
        const ids = [...sent.products.keys()];
        if (!ids.some((id) => storedSeq.get(id) === sent.seq)) continue;
        counts.unknownApplied++;
        // Applied at all means applied whole: each of its products is this version or a later one.
        const behind = ids.filter((id) => (storedSeq.get(id) ?? 0) < sent.seq);
        if (behind.length > 0) {
          fail(
            "partially applied request (answered 503)",
            `client ${writer.index} request ${sent.seq}: ${behind.length} of ${ids.length} products missing`,
          );
        }
      }
    }
  }
  log(
    `checked ${counts.ids} ids through the store: ${counts.stored} stored; requests: ${counts.ackedRequests} answered 200, ` +
      `${counts.refusedRequests} refused with 4xx, ${counts.unknownRequests} answered 503 (${counts.unknownApplied} of them applied whole)`,
  );
  verifySummary.push(
    `  requests: ${counts.ackedRequests} answered 200, ${counts.refusedRequests} refused (4xx), ${counts.unknownRequests} answered 503, of which ${counts.unknownApplied} turned out applied (whole)`,
    `  store: ${counts.ids} ids checked, ${counts.stored} stored`,
  );
  return seen;
}

/** Walks the Redis keys of the site and of the whole prefix. */
export async function walkRedis(watcher: Redis, seen: ReadonlyMap<string, Product>): Promise<void> {
  const keys = siteKeys(checkKeyPrefix(KEY_PREFIX), SITE);
  const stored = await storedProducts(watcher, keys);
  for (const [id, json] of Object.entries(stored)) {
    if (!sameProduct(JSON.parse(json) as Product, seen.get(id))) {
      fail("raw stored JSON differs from what the store returned", `${id}: ${json.slice(0, 200)}`);
    }
  }
  for (const id of seen.keys())
    if (stored[id] === undefined) fail("product in the store's view but not in the hash", id);
  const problems = [
    ...(await checkIndex(watcher, KEY_PREFIX, SITE)),
    ...(await checkIndex(watcher, KEY_PREFIX, SHUTDOWN_SITE)),
  ];
  for (const problem of problems) fail("SKU index inconsistent", problem);
  let cursor = "0";
  let lingering = 0;
  let total = 0;
  do {
    const [next, found] = await watcher.scan(cursor, "MATCH", `${KEY_PREFIX}:*`, "COUNT", 1_000);
    cursor = next;
    for (const key of found) {
      total++;
      if (/:(products|skus|sku-of)$/.test(key) && !key.includes(":stage:") && !key.includes(":merging:")) continue;
      // Locks and staging expire on their own; anything else without a TTL would stay forever.
      const ttl = await watcher.pttl(key);
      if (ttl < 0) fail("key without a TTL", key);
      else lingering++;
    }
  } while (cursor !== "0");
  log(
    `walked Redis: ${Object.keys(stored).length} products, ${problems.length} index problems, ${total} keys (${lingering} expiring leftovers)`,
  );
  verifySummary.push(
    `  Redis walk: ${Object.keys(stored).length} products equal the store's view; SKU index: ${problems.length} problems; ${total} keys, ${lingering} expiring leftovers (locks, staging), none without TTL: ${failures.get("key without a TTL") === 0 ? "yes" : "NO"}`,
  );
}
