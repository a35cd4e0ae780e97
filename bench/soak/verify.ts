// The soak's checks after the load: every product read back by id and by SKU against the model,
// and on Redis the stored JSON and the SKU index walked directly.
import { checkIndex, checkKeyPrefix, siteKeys } from "@catalog-kit/adapter-redis/testing";
import { type Product, toProductView } from "@catalog-kit/catalog-core";
import { Redis } from "ioredis";
import { type Answer, problemCode, sameProduct } from "../client.ts";
import type { Client } from "./client.ts";
import { API, KEY_PREFIX, SITE, SITE_QUERY } from "./options.ts";

/** Reads every owned product back (by id, then by SKU) and compares it with the model. */
export async function verifyClient(client: Client, mismatches: string[]): Promise<{ present: number }> {
  let present = 0;
  for (const id of client.ids) {
    const expected = client.model.get(id);
    if (expected !== undefined) present++;
    const answer = await client.connection.send("GET", `${API}/${encodeURIComponent(id)}?${SITE_QUERY}&by=id`);
    const acceptable = [expected, ...(client.uncertain.has(id) ? [client.uncertain.get(id)] : [])];
    const seen = describeAnswer(answer);
    if (!acceptable.some((product) => seen === describeExpected(product))) {
      mismatches.push(`${id}: expected ${describeExpected(expected)}, got ${seen}`);
      continue;
    }
    if (expected === undefined || client.uncertain.has(id)) continue;
    const bySku = await client.connection.send(
      "GET",
      `${API}/${encodeURIComponent(expected.sku)}?${SITE_QUERY}&by=sku`,
    );
    const seenBySku = describeAnswer(bySku);
    if (seenBySku !== describeExpected(expected)) {
      mismatches.push(`sku ${expected.sku}: expected ${describeExpected(expected)}, got ${seenBySku}`);
    }
  }
  return { present };
}

function describeExpected(product: Product | undefined): string {
  return product === undefined ? "400 PRODUCT_NOT_FOUND" : `200 ${JSON.stringify(toProductView(product))}`;
}

function describeAnswer(answer: Answer): string {
  if (answer.status === 200) return `200 ${answer.body}`;
  if (answer.status === 0) return `no answer (${answer.error})`;
  return `${answer.status} ${problemCode(answer.body) ?? answer.body.slice(0, 200)}`;
}

/** Walks the Redis keys of the site; adds what disagrees to `mismatches` and returns a summary. */
export async function walkRedis(url: string, clients: readonly Client[], mismatches: string[]): Promise<string> {
  // The Redis side, walked directly: every stored JSON equals the model's product (every field,
  // not only the retrieval view), nothing else is stored, and the SKU index agrees.
  const watcher = new Redis(url);
  try {
    const keys = siteKeys(checkKeyPrefix(KEY_PREFIX), SITE);
    const stored = await watcher.hgetall(keys.products);
    const expected = new Map<string, Product>();
    for (const client of clients) for (const [id, product] of client.model) expected.set(id, product);
    const uncertain = new Set(clients.flatMap((client) => [...client.uncertain.keys()]));
    for (const [id, json] of Object.entries(stored)) {
      if (uncertain.has(id)) continue;
      if (!sameProduct(JSON.parse(json) as Product, expected.get(id)))
        mismatches.push(`stored ${id}: ${json.slice(0, 200)}`);
    }
    for (const id of expected.keys()) {
      if (!uncertain.has(id) && stored[id] === undefined) mismatches.push(`stored ${id}: missing`);
    }
    const problems = await checkIndex(watcher, KEY_PREFIX, SITE);
    mismatches.push(...problems.map((problem) => `index: ${problem}`));
    return `; Redis walk: ${Object.keys(stored).length} products stored, ${problems.length} index problems`;
  } finally {
    watcher.disconnect();
  }
}
