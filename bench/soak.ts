// Soak: the standalone server (`npm start`'s, in a child process) under a bounded mixed load from
// many keep-alive connections, once on the memory adapter and once on the Redis adapter (a
// private redis-server on a free loopback port). Only 127.0.0.1 is ever contacted.
//
//   npm run soak                      # about a minute: 20 s of load per adapter after 5 s of warm-up
//   npm run soak -- --quick           # about 10 s
//   npm run soak -- --only redis --seconds 120 --connections 100 --seed 7
//
// Every connection owns its own products (ids and SKUs no other connection uses) and sends its
// requests one after another, so the order in which the server applies them is known. That
// makes every answer predictable: the client keeps a model of each product's last acknowledged
// state (changed by 200s only), judges each import by the contract's rules before sending it
// (SKU conflicts on the state after the request, swaps allowed, created/updated/unchanged), and
// checks each answer against that: statuses, counts, retrieved views. Some requests are wrong
// on purpose (an SKU held by another product, a negative price) and must be refused whole.
//
// Checks, each a failure when violated (exit code 1):
// - no answer differs from the model's prediction, and every request gets an answer;
// - after the load, every product (GET by id, and by SKU for those present) equals the model,
//   and on Redis the stored JSON of every product equals the model's and the SKU index agrees;
// - the server's RSS at the end is at most its RSS after warm-up plus `--rss-bound-mb` (64): the
//   catalog is full before the warm-up ends and stays that size, so growth beyond garbage
//   collector slack is a leak.
import { haveRedisServer, INSTALL_HINT, type RedisServer, startRedisServer } from "@catalog-kit/test-support";
import { ADAPTERS, KEY_PREFIX, log, SITE, TOKEN } from "./soak/options.ts";
import { type Outcome, soak } from "./soak/round.ts";
import { forget, killRedisOnExit, type Standalone, startStandalone } from "./standalone.ts";

const outcomes: Outcome[] = [];
let redis: RedisServer | undefined;
let redisPid: number | undefined;
const servers: Standalone[] = [];
let failed = false;
try {
  const config = (storage: object) => ({ sites: [SITE], tokens: [{ token: TOKEN, sites: [SITE] }], storage });
  // Both servers start together: their start-up is the slow part of a quick run.
  const starting: Promise<[string, Standalone]>[] = [];
  if (ADAPTERS.includes("memory")) {
    starting.push(startStandalone("memory", config({ adapter: "memory" })).then((s) => ["memory", s]));
  }
  if (ADAPTERS.includes("redis")) {
    if (!haveRedisServer) throw new Error(`${INSTALL_HINT}, or run only the memory part: --only memory`);
    redis = await startRedisServer();
    redisPid = await killRedisOnExit(redis.url);
    const storage = { adapter: "redis", url: redis.url, keyPrefix: KEY_PREFIX };
    starting.push(startStandalone("redis", config(storage)).then((s) => ["redis", s]));
  }
  const started = new Map(await Promise.all(starting));
  servers.push(...started.values());
  for (const adapter of ADAPTERS) {
    const server = started.get(adapter) as Standalone;
    outcomes.push(await soak(adapter, server, adapter === "redis" ? redis : undefined));
    await server.stop();
  }
} catch (error) {
  failed = true;
  console.error("soak could not run:", error);
} finally {
  await Promise.all(servers.map((server) => server.stop()));
  await redis?.stop();
  if (redisPid !== undefined) forget(redisPid);
}

log("");
for (const outcome of outcomes) {
  for (const line of outcome.summary) log(line);
  log(`  result: ${outcome.passed ? "PASS" : "FAIL"}`);
}
const passed = !failed && outcomes.length === ADAPTERS.length && outcomes.every((o) => o.passed);
log(`soak: ${passed ? "PASS" : "FAIL"}`);
process.exitCode = passed ? 0 : 1;
