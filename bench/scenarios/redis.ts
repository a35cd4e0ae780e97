// Bulk imports into Redis through the adapter, beside a naive loop (one awaited command per
// product) and redis-benchmark on the same private server; full syncs, dry runs and merges into
// a larger site; the longest script call Redis recorded (SLOWLOG), the time one import blocks
// every other client of that Redis. Every row is measured against baselines taken on the same
// private server in the same run.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { createRedisStore } from "@catalog-kit/adapter-redis";
import { type Catalog, createCatalog, type Product, type Site } from "@catalog-kit/catalog-core";
import { startRedisServer } from "@catalog-kit/test-support";
import { Redis } from "ioredis";
import { generateProducts, toBulkBody } from "../data.ts";
import { median } from "../measure.ts";
import { benchOptions } from "../options.ts";
import { emit, progress } from "../report.ts";

const run = promisify(execFile);
const { quick } = benchOptions();
const size = quick ? 2_000 : 100_000;
// The naive loop's rate does not depend on the batch size; a smaller batch keeps rounds short.
const naiveSize = quick ? 500 : 10_000;
const slowlogSize = quick ? 2_000 : 10_000;
const benchmarkRequests = quick ? 20_000 : 200_000;
const rounds = quick ? { warmup: 1, iterations: 2 } : { warmup: 1, iterations: 5 };
const site: Site = { siteType: "bench", siteId: "shop-1" };

const redis = await startRedisServer();
const admin = new Redis({ port: redis.port, host: "127.0.0.1" });
const client = new Redis({ port: redis.port, host: "127.0.0.1" });
const store = createRedisStore({ url: redis.url, keyPrefix: "bench" });
const catalog: Catalog = createCatalog({ store, sites: [site] });

const body = toBulkBody(generateProducts(size));
const naiveBody = toBulkBody(generateProducts(naiveSize, 7));
// The same ids with new prices: a re-import where every product is updated.
const updateBody = toBulkBody(
  generateProducts(size).map((p) => ({ ...p, price: (p.price ?? 0) + 1, price_max: (p.price_max ?? 0) + 1 })),
);

async function importBody(text: string): Promise<void> {
  await catalog.importProducts(site, JSON.parse(text).products);
}

async function naiveLoop(text: string): Promise<void> {
  for (const product of JSON.parse(text).products as Product[]) {
    await client.hset("naive:products", product.id, JSON.stringify(product));
  }
}

async function redisBenchmark(): Promise<number> {
  const args = [
    "-h",
    "127.0.0.1",
    "-p",
    String(redis.port),
    "-P",
    "64",
    "-d",
    "850",
    "-t",
    "set",
    "-n",
    String(benchmarkRequests),
    "-q",
  ];
  const { stdout } = await run("redis-benchmark", args);
  const match = /SET: ([\d.]+) requests per second/.exec(stdout.replaceAll("\r", "\n"));
  if (!match) throw new Error(`unexpected redis-benchmark output: ${stdout}`);
  return Number(match[1]);
}

async function seconds(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return (performance.now() - start) / 1000;
}

/** Longest command (and longest script call) Redis logged since the last reset, in ms. */
async function slowlog(): Promise<{ script: number; any: number; command: string }> {
  const entries = (await admin.call("SLOWLOG", "GET", "-1")) as [number, number, number, string[]][];
  let script = 0;
  let any = 0;
  let command = "";
  for (const [, , micros, args] of entries) {
    const name = String(args[0]).toUpperCase();
    if ((name === "EVALSHA" || name === "EVAL" || name === "FCALL") && micros > script) script = micros;
    if (micros > any) [any, command] = [micros, name];
  }
  return { script: script / 1000, any: any / 1000, command };
}

const parsed = JSON.parse(body).products as Product[];
const parsedRates: number[] = [];
const adapterRates: number[] = [];
const updateRates: number[] = [];
const naiveRates: number[] = [];
const benchmarkRates: number[] = [];
for (let round = 0; round < rounds.warmup + rounds.iterations; round++) {
  progress(
    `Redis round ${round + 1} of ${rounds.warmup + rounds.iterations}${round < rounds.warmup ? " (warm-up)" : ""}`,
  );
  await admin.flushall();
  const adapter = size / (await seconds(() => importBody(body)));
  const update = size / (await seconds(() => importBody(updateBody)));
  await admin.flushall();
  const already = size / (await seconds(() => catalog.importProducts(site, parsed)));
  await admin.flushall();
  const naive = naiveSize / (await seconds(() => naiveLoop(naiveBody)));
  await admin.flushall();
  const benchmark = await redisBenchmark();
  if (round < rounds.warmup) continue;
  adapterRates.push(adapter);
  parsedRates.push(already);
  updateRates.push(update);
  naiveRates.push(naive);
  benchmarkRates.push(benchmark);
}
const paired = (a: readonly number[], b: readonly number[]) => median(a.map((x, i) => x / (b[i] as number)));
const label = size.toLocaleString("en-US");
const judged = !quick;
const naiveBaseline = {
  label: "naive HSET loop",
  name: `naive loop, one awaited HSET per product (${naiveSize.toLocaleString("en-US")})`,
  unit: "products/s",
};
const benchmarkBaseline = { label: "redis-benchmark", name: "redis-benchmark -P 64 -d 850 -t set", unit: "SET/s" };
const adapterRow = {
  name: `bulk JSON ${label}, redis`,
  scenario: `bulk JSON import into Redis, ${label}, empty site (JSON.parse + importProducts)`,
  figure: median(adapterRates),
  unit: "products/s",
};
emit({
  ...adapterRow,
  baseline: { ...naiveBaseline, figure: median(naiveRates) },
  ratio: paired(adapterRates, naiveRates),
  ...(judged ? { target: { label: ">= 10x", minRatio: 10 } } : {}),
});
emit({
  ...adapterRow,
  baseline: { ...benchmarkBaseline, figure: median(benchmarkRates) },
  ratio: paired(adapterRates, benchmarkRates),
  ...(judged ? { target: { label: ">= 0.2x", minRatio: 0.2 } } : {}),
});
emit({
  name: `bulk parsed ${label}, redis`,
  scenario: `bulk import into Redis, ${label}, empty site, products already parsed (importProducts only)`,
  figure: median(parsedRates),
  unit: "products/s",
  baseline: { ...benchmarkBaseline, figure: median(benchmarkRates) },
  ratio: paired(parsedRates, benchmarkRates),
});
emit({
  name: `bulk JSON re-import ${label}, redis`,
  scenario: `bulk JSON re-import into Redis, ${label}, every product updated`,
  figure: median(updateRates),
  unit: "products/s",
  baseline: { ...benchmarkBaseline, figure: median(benchmarkRates) },
  ratio: paired(updateRates, benchmarkRates),
});

// Every command is logged while this runs, so it is kept apart from the timed rounds.
await admin.config("SET", "slowlog-log-slower-than", "0");
await admin.config("SET", "slowlog-max-len", "100000");
const slowSize = slowlogSize.toLocaleString("en-US");
for (const [what, short, text, flush] of [
  ["into an empty site", "empty site", toBulkBody(generateProducts(slowlogSize, 11)), true],
  ["over a full site, every product updated", "full site", updateBody, false],
] as const) {
  progress(`Redis SLOWLOG: ${what}`);
  let script = 0;
  let any = { ms: 0, command: "" };
  for (let i = 0; i < 3; i++) {
    if (flush) await admin.flushall();
    else {
      await admin.flushall();
      await importBody(body);
    }
    await admin.call("SLOWLOG", "RESET");
    if (flush) await importBody(text);
    else await catalog.importProducts(site, (JSON.parse(text).products as Product[]).slice(0, slowlogSize));
    const log = await slowlog();
    script = Math.max(script, log.script);
    if (log.any > any.ms) any = { ms: log.any, command: log.command };
  }
  emit({
    name: `longest script call, import ${slowSize} into ${short}, redis`,
    scenario: `longest single Redis script call, import of ${slowSize} products ${what}`,
    figure: script,
    unit: "ms",
    ...(judged ? { target: { label: "<= 100 ms", max: 100 } } : {}),
    note: `longest command of any kind: ${any.command} ${any.ms.toFixed(1)} ms; worst of 3 imports`,
  });
}

// Full syncs, dry runs and merges, each timed in the rounds of a naive loop over the same
// number of products, so that both meet the same load on the machine.
const naiveOf = async (products: readonly Product[]) => {
  await admin.del("naive:products");
  const slice = products.slice(0, naiveSize);
  return slice.length / (await seconds(async () => naiveLoop(JSON.stringify({ products: slice }))));
};
const changed = (JSON.parse(updateBody).products as Product[]).map((p) => ({ ...p, title: `${p.title} (v2)` }));
const syncCases: readonly [string, string, (s: Site) => Promise<unknown>, (s: Site) => Promise<unknown>][] = [
  [
    "full sync, every product changed (the staging replaces the site)",
    `full sync ${label}, all changed`,
    (s) => catalog.importProducts(s, parsed),
    (s) => catalog.importProducts(s, changed),
  ],
  [
    "full sync, every product unchanged",
    `full sync ${label}, all unchanged`,
    (s) => catalog.importProducts(s, parsed),
    (s) => catalog.importProducts(s, parsed),
  ],
  [
    "dry run, every product changed",
    `dry run ${label}, all changed`,
    (s) => catalog.importProducts(s, parsed),
    (s) => catalog.importProducts(s, changed, { dryRun: true }),
  ],
  [
    "every product changed in a site holding 1,000 more (staged, then merged)",
    `merge ${label} changed into a larger site`,
    async (s) => {
      await catalog.importProducts(
        s,
        generateProducts(1_000, 13).map((p) => ({ ...p, id: `other-${p.id}`, sku: `other-${p.sku}` })),
      );
      await catalog.importProducts(s, parsed);
    },
    (s) => catalog.importProducts(s, changed),
  ],
];
for (const [what, short, prepare, timed] of syncCases) {
  const rates: number[] = [];
  const naive: number[] = [];
  for (let round = 0; round < rounds.warmup + rounds.iterations; round++) {
    progress(`Redis ${what}: round ${round + 1}`);
    await admin.flushall();
    await prepare(site);
    const rate = size / (await seconds(() => timed(site)));
    const baseline = await naiveOf(parsed);
    if (round < rounds.warmup) continue;
    rates.push(rate);
    naive.push(baseline);
  }
  emit({
    name: `${short}, redis`,
    scenario: `bulk import into Redis, ${label}, ${what} (products already parsed)`,
    figure: median(rates),
    unit: "products/s",
    baseline: { ...naiveBaseline, figure: median(naive) },
    ratio: paired(rates, naive),
  });
}

// How long one request of each size blocks Redis, in a site of `size` products.
await admin.flushall();
await catalog.importProducts(site, parsed);
const perSize: string[] = [];
let longest = 0;
for (const count of quick ? [1, 10, 100, 1_000] : [1, 10, 100, 1_000, 2_000, 5_000, 10_000]) {
  const batch = generateProducts(count, 17).map((p, i) =>
    i % 2 === 0 ? { ...(parsed[i] as Product), title: `${p.title} (v3)` } : p,
  );
  await admin.call("SLOWLOG", "RESET");
  await catalog.importProducts(site, batch);
  const log = await slowlog();
  longest = Math.max(longest, log.script);
  perSize.push(`${count.toLocaleString("en-US")}: ${log.script.toFixed(1)} ms`);
}
emit({
  name: `longest script call, requests of 1 to ${quick ? "1,000" : "10,000"}, redis`,
  scenario: `longest single Redis script call, requests of 1 to ${quick ? "1,000" : "10,000"} products (half new) into a site of ${label}`,
  figure: longest,
  unit: "ms",
  ...(judged ? { target: { label: "<= 100 ms", max: 100 } } : {}),
  note: perSize.join(", "),
});
await admin.config("SET", "slowlog-log-slower-than", "10000");

await catalog.close();
client.disconnect();
admin.disconnect();
await redis.stop();
