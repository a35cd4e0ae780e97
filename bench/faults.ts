// Faults: the standalone server (`npm start`'s, in child processes) on Redis, while things go
// wrong. Only 127.0.0.1 is ever contacted; every child process and the redis-server are killed
// on exit, whatever the outcome.
//
//   npm run faults                    # about a minute
//   npm run faults -- --quick         # 10 to 20 s (a crash mid-import may leave its site lock for 10 s)
//   npm run faults -- --seconds 120 --clients 8 --seed 3
//
// Part 1, a crash under concurrent writers. Two server processes share one private redis-server.
// Several clients send bulk JSON and CSV imports to both, as fast as they are answered: small
// batches (one script call) and batches larger than the Redis adapter's chunk (staged, committed,
// merged). Each client owns its product ids, so one client's requests are ordered; SKUs overlap
// across clients on purpose (a small shared pool), so that clients race for them and lose with
// SKU_CONFLICT; a few batches carry an invalid product and must be refused whole. Every product
// title names the request that sent it, so any stored product tells which request wrote it.
// While this runs, redis-server is killed with SIGKILL (a crash, nothing flushed at the end) and
// restarted, in the middle of a large import when one is in flight.
//
// Why SIGKILL with an append-only file fsynced on every write (`--appendonly yes --appendfsync
// always`): that is the only setup in which "a 200 means the products are there afterwards" is a
// claim a crash can test. Without persistence a restart loses everything, acknowledged or not;
// with RDB snapshots or a graceful SHUTDOWN, Redis saves on the way out and hides what a crash
// would lose. With fsync always, Redis writes and fsyncs a command's effects before it answers,
// so whatever the server was told had succeeded is on disk; a script cut off by the kill never
// reached the file, so a half-applied script cannot come back either.
//
// Checks after the load, when both servers answer /healthz again (each a failure, exit code 1):
// - every product of every 200 answer is stored, exactly as sent, unless a later request of the
//   same client (which owns the id) replaced it; read through the store's API, which sees a
//   committed import that is still being merged;
// - no product of a request answered 4xx is stored, anywhere;
// - a request answered 503 (Redis was down) may have been applied (the commit can land just
//   before the connection drops, and then nobody hears the answer), but only whole: if any of its
//   products is stored, all of them are (or later versions). Such requests are counted, not failed;
// - every answer is one the workload allows: 200, 400 SKU_CONFLICT naming a shared SKU, 400
//   VALIDATION_FAILED for a poisoned batch (and only then), 503 STORAGE_UNAVAILABLE;
// - after one more write (which finishes a merge a crash may have left), the Redis keys are walked:
//   every stored JSON matches, the SKU index (sku -> id, id -> sku) agrees with the products,
//   nothing is left merging, and every lock or staging key has a TTL.
//
// Part 2, SIGTERM to a server during a large import (tens of thousands of products, some MB of
// JSON), at different moments: half-way through the upload, just after it, at a random moment
// of the import, and before the request is sent on an already open connection. The request in
// flight must either complete (200, and every product of it stored exactly) or be refused whole
// (no answer, and nothing of it stored); and the server must exit with status 0.
import { performance } from "node:perf_hooks";
import { createRedisStore } from "@catalog-kit/adapter-redis";
import { checkIndex } from "@catalog-kit/adapter-redis/testing";
import type { CatalogStore, Product } from "@catalog-kit/catalog-core";
import { haveRedisServer, INSTALL_HINT, type RedisServer, startRedisServer } from "@catalog-kit/test-support";
import { Redis } from "ioredis";
import { Connection } from "./client.ts";
import { generateProducts } from "./data.ts";
import { crashes, reportHangs, waitHealthy } from "./faults/crash.ts";
import {
  API,
  CLIENTS,
  CRASHES,
  KEY_PREFIX,
  LARGE,
  SECONDS,
  SEED,
  SHARED_SKUS,
  SHUTDOWN_MODES,
  SHUTDOWN_PRODUCTS,
  SHUTDOWN_SITE,
  SHUTDOWN_TOKEN,
  SITE,
  SMALL,
  TOKEN,
} from "./faults/options.ts";
import { examples, fail, failures, log, statuses, verifySummary } from "./faults/record.ts";
import { type ShutdownResult, shutdownRound } from "./faults/shutdown.ts";
import { verifyWriters, walkRedis } from "./faults/verify.ts";
import { Writer } from "./faults/writer.ts";
import { forget, killRedisOnExit, SLOW_MS, type Standalone, startStandalone } from "./standalone.ts";

let redis: RedisServer | undefined;
const redisPid = { value: 0 };
const servers: Standalone[] = [];
const summary: string[] = [];
let crashed = false;
let store: CatalogStore | undefined;
let watcher: Redis | undefined;
try {
  if (!haveRedisServer) throw new Error(INSTALL_HINT);
  redis = await startRedisServer({ persistent: true });
  redisPid.value = await killRedisOnExit(redis.url);
  const storage = { adapter: "redis", url: redis.url, keyPrefix: KEY_PREFIX };
  const config = {
    sites: [SITE, SHUTDOWN_SITE],
    tokens: [
      { token: TOKEN, sites: [SITE] },
      { token: SHUTDOWN_TOKEN, sites: [SHUTDOWN_SITE] },
    ],
    storage,
  };
  log(`redis-server on ${redis.url} (append-only file, fsync always); starting ${2 + SHUTDOWN_MODES.length} servers`);
  // Every server starts at once (start-up is the slow part of a quick run); the shutdown rounds'
  // servers wait, idle, until their turn.
  const all = await Promise.all(
    ["A", "B", ...SHUTDOWN_MODES.map((_, i) => `shutdown-${i + 1}`)].map((name) => startStandalone(name, config)),
  );
  servers.push(...all);
  const [a, b, ...shutdownServers] = all as [Standalone, Standalone, ...Standalone[]];
  store = createRedisStore({ url: redis.url, keyPrefix: KEY_PREFIX });
  watcher = new Redis(redis.url, { retryStrategy: () => 50 });
  watcher.on("error", () => {});

  // Part 1.
  log(
    `part 1: ${CLIENTS} clients on servers A and B for ${SECONDS} s; redis-server killed at ${CRASHES.map((c) => `${Math.round(c * 100)} %`).join(" and ")}`,
  );
  const writers = Array.from(
    { length: CLIENTS },
    (_, i) => new Writer(i, [new Connection(a.url, TOKEN), new Connection(b.url, TOKEN)]),
  );
  const from = performance.now();
  const until = from + SECONDS * 1_000;
  const ticker = setInterval(() => {
    log(`  ${statuses.total} requests: ${statuses}`);
    void reportHangs(writers, watcher as Redis);
  }, 5_000);
  let crashLines: string[];
  try {
    [crashLines] = await Promise.all([crashes(redis, writers, from, redisPid), ...writers.map((w) => w.run(until))]);
  } finally {
    clearInterval(ticker);
  }
  log(`load done: ${statuses.total} requests; waiting for both servers to answer /healthz`);
  await Promise.all([waitHealthy(a), waitHealthy(b)]);
  const seen = await verifyWriters(store, writers);
  // A crash after an import's commit can leave it merging; the next write of the site finishes
  // the merge (readers never noticed), so one write comes before the raw walk.
  const settle = new Connection(b.url, TOKEN);
  const last = generateProducts(1, SEED, 999_999)[0] as Product;
  const settler = { ...last, id: "settle", sku: "SETTLE", title: `${last.title} [settle]` };
  const settled = await settle.send("POST", API, JSON.stringify({ product: settler }));
  settle.close();
  if (settled.status !== 200) fail("settling write refused", `${settled.status} ${settled.body.slice(0, 200)}`);
  else seen.set("settle", settler);
  await walkRedis(watcher, seen);
  summary.push(
    `part 1: ${CLIENTS} clients, 2 servers, ${SECONDS} s, batches of ${SMALL.join("-")} and ${LARGE.join("-")} products (JSON and CSV), ${SHARED_SKUS} shared SKUs`,
    `  answers: ${statuses}`,
    `  redis-server SIGKILLed and restarted ${crashLines.length} times: ${crashLines.join("; ")}`,
    ...verifySummary,
  );
  for (const [i, server] of [a, b].entries()) {
    if (server.stderrLines > 0)
      summary.push(`  server ${"AB"[i]} stderr: ${server.stderrLines} lines (${server.stderr[0]})`);
    for (const line of server.slow) summary.push(`  server ${"AB"[i]} took over ${SLOW_MS / 1_000} s: ${line}`);
  }

  // Part 2.
  log(`part 2: SIGTERM during an import of ${SHUTDOWN_PRODUCTS} products (${SHUTDOWN_MODES.join(", ")})`);
  const rounds: ShutdownResult[] = [];
  for (const [i, mode] of SHUTDOWN_MODES.entries()) {
    rounds.push(await shutdownRound(i + 1, mode, shutdownServers[i] as Standalone, store));
  }
  const problems = await checkIndex(watcher, KEY_PREFIX, SHUTDOWN_SITE);
  for (const problem of problems) fail("SKU index inconsistent (shutdown site)", problem);
  summary.push(
    `part 2: SIGTERM during an import of ${SHUTDOWN_PRODUCTS.toLocaleString("en-US")} products`,
    ...rounds.map(
      (r) =>
        `  ${r.mode}: ${r.answer}, ${r.stored.toLocaleString("en-US")} of ${SHUTDOWN_PRODUCTS.toLocaleString("en-US")} stored, server exit ${r.exitCode}: ${r.ok ? "pass" : "FAIL"}`,
    ),
    `  SKU index of the shutdown site: ${problems.length} problems`,
  );
} catch (error) {
  crashed = true;
  console.error("faults could not run:", error);
} finally {
  await store?.close();
  watcher?.disconnect();
  await Promise.all(servers.map((server) => server.stop()));
  await redis?.stop();
  forget(redisPid.value);
}

process.stdout.write("\n");
for (const line of summary) process.stdout.write(`${line}\n`);
process.stdout.write(`violations: ${failures.total === 0 ? "none" : failures}\n`);
for (const example of examples) process.stdout.write(`  ${example}\n`);
const passed = !crashed && failures.total === 0;
process.stdout.write(`faults: ${passed ? "PASS" : "FAIL"}\n`);
process.exitCode = passed ? 0 : 1;
