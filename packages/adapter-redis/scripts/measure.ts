// Measures the Redis adapter against a naive loop, on a private redis-server it starts itself.
//
//   npx tsx --conditions=@catalog-kit/source packages/adapter-redis/scripts/measure.ts [count] [chunkSize]
//
// Prints one JSON line per case, then a summary. "Longest script" is the longest EVALSHA/EVAL
// execution Redis itself recorded (SLOWLOG with slowlog-log-slower-than 0): the longest time
// Redis was blocked by one call of the adapter. The first-import case and the naive loop run
// in three interleaved rounds (the naive loop over a third of the products each time), so that
// other work on the machine weighs on both alike; the summary takes medians.
import { encodeProduct, type Product, type Site } from "@catalog-kit/catalog-core";
import { Redis } from "ioredis";
import { createRedisStore } from "../src/index.ts";
import { realisticProduct } from "../test/support/products.ts";
import { startRedisServer } from "../test/support/redis-server.ts";

const count = Number(process.argv[2] ?? 100_000);
const chunkSize = process.argv[3] === undefined ? undefined : Number(process.argv[3]);
const ROUNDS = 3;

const server = await startRedisServer();
const admin = new Redis(server.url);
await admin.config("SET", "slowlog-log-slower-than", "0");
await admin.config("SET", "slowlog-max-len", "100000");
const store = createRedisStore({ url: server.url, keyPrefix: "measure", ...(chunkSize ? { chunkSize } : {}) });
await store.ping();

/**
 * Longest script execution since the last call, in ms, how many script calls there were, and
 * the longest command of any kind (a command inside a script, say).
 */
async function longestScript(): Promise<{ longestScriptMs: number; scriptCalls: number; longestCommandMs: number }> {
  const entries = (await admin.call("SLOWLOG", "GET", "-1")) as [number, number, number, string[]][];
  await admin.call("SLOWLOG", "RESET");
  let longest = 0;
  let longestCommand = 0;
  let calls = 0;
  for (const [, , micros, args] of entries) {
    const command = String(args[0]).toUpperCase();
    if (command === "SLOWLOG") continue;
    longestCommand = Math.max(longestCommand, micros);
    if (command !== "EVALSHA" && command !== "EVAL") continue;
    calls++;
    longest = Math.max(longest, micros);
  }
  return { longestScriptMs: longest / 1000, scriptCalls: calls, longestCommandMs: longestCommand / 1000 };
}

interface Result {
  readonly case: string;
  readonly products: number;
  readonly ms: number;
  readonly productsPerSecond: number;
  readonly longestScriptMs?: number;
  readonly scriptCalls?: number;
  readonly longestCommandMs?: number;
}

async function measure(name: string, size: number, body: () => Promise<unknown>, scripts = true): Promise<Result> {
  await longestScript();
  const start = performance.now();
  await body();
  const ms = performance.now() - start;
  const result: Result = {
    case: name,
    products: size,
    ms: Math.round(ms),
    productsPerSecond: Math.round((size / ms) * 1000),
    ...(scripts ? await longestScript() : {}),
  };
  console.log(JSON.stringify(result));
  return result;
}

async function upsert(site: Site, products: readonly Product[]): Promise<void> {
  const result = await store.upsert(site, products, { dryRun: false });
  if (!result.applied) throw new Error(`unexpected conflicts: ${JSON.stringify(result.conflicts.slice(0, 3))}`);
}

const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

const products = Array.from({ length: count }, (_, i) => realisticProduct(i));
const changed = products.map((_, i) => realisticProduct(i, 1));
const bytes = products.reduce((sum, p) => sum + Buffer.byteLength(encodeProduct(p)), 0);
console.log(
  JSON.stringify({ products: count, averageJsonBytes: Math.round(bytes / count), chunkSize: chunkSize ?? "default" }),
);

// First imports into empty sites, against one awaited HSET per product (no index, no atomicity).
const fresh: number[] = [];
const naive: number[] = [];
const third = Math.ceil(count / ROUNDS);
for (let round = 0; round < ROUNDS; round++) {
  const site = { siteType: "measure", siteId: `fresh-${round}` };
  fresh.push(
    (
      await measure(`adapter: ${count} products into an empty site (round ${round + 1})`, count, () =>
        upsert(site, products),
      )
    ).productsPerSecond,
  );
  const slice = products.slice(round * third, (round + 1) * third);
  const naiveResult = await measure(
    `naive: one awaited HSET per product, ${slice.length} products (round ${round + 1})`,
    slice.length,
    async () => {
      for (const product of slice) await admin.hset("naive:products", product.id, encodeProduct(product));
    },
    false,
  );
  naive.push(naiveResult.productsPerSecond);
}

const site = { siteType: "measure", siteId: "fresh-0" };
const others: Result[] = [];
others.push(
  await measure(`adapter: full sync of ${count} products, all changed (replaces the site)`, count, () =>
    upsert(site, changed),
  ),
);
others.push(
  await measure(`adapter: full sync of ${count} products, all unchanged`, count, () => upsert(site, changed)),
);
others.push(
  await measure(`adapter: dry run of ${count} products, all changed`, count, () =>
    store.upsert(site, products, { dryRun: true }),
  ),
);
const partial = { siteType: "measure", siteId: "fresh-1" };
await upsert(
  partial,
  Array.from({ length: 1_000 }, (_, i) => realisticProduct(count + i)),
);
others.push(
  await measure(`adapter: ${count} products changed in a site of ${count + 1_000} (merged)`, count, () =>
    upsert(partial, changed),
  ),
);

// Requests of every size up to 10,000 into a site of `count` products: half updates, half new.
const requests: Result[] = [];
let next = 2 * count;
for (const size of [1, 10, 100, 1_000, 2_000, 5_000, 10_000]) {
  const batch = Array.from({ length: size }, (_, i) =>
    i % 2 === 0 ? realisticProduct(i * 7, 2 + size) : realisticProduct(next++),
  );
  requests.push(
    await measure(`adapter: request of ${size} products (half new) into a site of ${count}`, size, () =>
      upsert(site, batch),
    ),
  );
}

const longestUpTo10k = Math.max(...requests.map((r) => r.longestScriptMs ?? 0));
const longestAll = Math.max(...[...requests, ...others].map((r) => r.longestScriptMs ?? 0));
const longestCommandUpTo10k = Math.max(...requests.map((r) => r.longestCommandMs ?? 0));
console.log(
  JSON.stringify({
    summary: {
      firstImportProductsPerSecond: median(fresh),
      naiveProductsPerSecond: median(naive),
      speedup: Math.round((median(fresh) / median(naive)) * 10) / 10,
      longestScriptMsForRequestsUpTo10k: longestUpTo10k,
      longestCommandMsForRequestsUpTo10k: longestCommandUpTo10k,
      longestScriptMsOverall: longestAll,
    },
  }),
);

await store.close();
admin.disconnect();
await server.stop();
