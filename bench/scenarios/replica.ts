// The cost of `waitForReplicas`: the same writes against a primary with one replica, with and
// without waiting for it, in alternating rounds.

import { setTimeout as sleep } from "node:timers/promises";
import { createRedisStore } from "@catalog-kit/adapter-redis";
import { createCatalog, type Product } from "@catalog-kit/catalog-core";
import { startRedisServer } from "@catalog-kit/test-support";
import { Redis } from "ioredis";
import { generateProducts } from "../data.ts";
import { median } from "../measure.ts";
import { benchOptions } from "../options.ts";
import { emit, progress } from "../report.ts";

const { quick } = benchOptions();
const size = quick ? 2_000 : 100_000;
const rounds = quick ? { warmup: 1, iterations: 2 } : { warmup: 1, iterations: 5 };
const site = { siteType: "bench", siteId: "shop-1" };
const label = size.toLocaleString("en-US");
const parsed: Product[] = generateProducts(size);
const paired = (a: readonly number[], b: readonly number[]) => median(a.map((x, i) => x / (b[i] as number)));

async function seconds(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return (performance.now() - start) / 1000;
}

const redis = await startRedisServer();
const admin = new Redis({ port: redis.port, host: "127.0.0.1" });
const replica = await startRedisServer({ args: ["--replicaof", "127.0.0.1", String(redis.port)] });
const replicaAdmin = new Redis({ port: replica.port, host: "127.0.0.1" });
while (!String(await replicaAdmin.info("replication")).includes("master_link_status:up")) await sleep(50);
const waiting = createCatalog({
  store: createRedisStore({
    url: redis.url,
    keyPrefix: "bench-wait",
    waitForReplicas: { replicas: 1, timeoutMs: 1_000 },
  }),
  sites: [site],
});
const plain = createCatalog({ store: createRedisStore({ url: redis.url, keyPrefix: "bench-wait" }), sites: [site] });
const singles = parsed.slice(0, quick ? 200 : 2_000);
const singleRates: Record<"wait" | "plain", number[]> = { wait: [], plain: [] };
const bulkRates: Record<"wait" | "plain", number[]> = { wait: [], plain: [] };
for (let round = 0; round < rounds.warmup + rounds.iterations; round++) {
  progress(`Redis waitForReplicas: round ${round + 1}`);
  for (const [name, target] of [
    ["wait", waiting],
    ["plain", plain],
  ] as const) {
    await admin.flushall();
    const single =
      singles.length /
      (await seconds(async () => {
        for (const product of singles) await target.importProducts(site, [product]);
      }));
    await admin.flushall();
    const bulk = size / (await seconds(() => target.importProducts(site, parsed)));
    if (round < rounds.warmup) continue;
    singleRates[name].push(single);
    bulkRates[name].push(bulk);
  }
}
for (const [what, short, rates] of [
  [
    `single-product imports one after another (${singles.length.toLocaleString("en-US")})`,
    `single imports ${singles.length.toLocaleString("en-US")}`,
    singleRates,
  ],
  [`bulk import of ${label}`, `bulk ${label}`, bulkRates],
] as const) {
  emit({
    name: `waitForReplicas, ${short}, redis + replica`,
    scenario: `Redis with one replica, ${what}, waitForReplicas: 1`,
    figure: median(rates.wait),
    unit: "products/s",
    baseline: {
      label: "no wait",
      name: "the same without waitForReplicas",
      figure: median(rates.plain),
      unit: "products/s",
    },
    ratio: paired(rates.wait, rates.plain),
  });
}
await waiting.close();
await plain.close();
replicaAdmin.disconnect();
await replica.stop();

admin.disconnect();
await redis.stop();
