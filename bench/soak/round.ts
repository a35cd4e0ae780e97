// One adapter's soak round: fill the catalog, warm up, drive the mix for the set time while
// sampling the server's RSS and CPU, check everything, and summarise.
import os from "node:os";
import { performance } from "node:perf_hooks";
import type { RedisServer } from "@catalog-kit/test-support";
import { Connection, mb, quantile } from "../client.ts";
import { cpuSecondsOf, rssOf, SLOW_MS, type Standalone } from "../standalone.ts";
import { Client } from "./client.ts";
import { CONNECTIONS, IDS, KEPT_EXAMPLES, log, RSS_BOUND, SECONDS, TOKEN, WARMUP_SECONDS } from "./options.ts";
import { Stats } from "./stats.ts";
import { verifyClient, walkRedis } from "./verify.ts";

/** Runs the clients' mixes until `seconds` have passed, printing progress now and then. */
async function drive(
  label: string,
  clients: readonly Client[],
  seconds: number,
  onTick: () => Promise<string>,
): Promise<number> {
  const started = performance.now();
  const deadline = started + seconds * 1_000;
  let running = true;
  const ticker = setInterval(
    () => {
      void onTick().then((text) => {
        if (running) log(`  ${label}: ${((performance.now() - started) / 1_000).toFixed(0)} s, ${text}`);
      });
    },
    Math.min(5_000, Math.max(1_000, (seconds * 1_000) / 4)),
  );
  try {
    await Promise.all(
      clients.map(async (client) => {
        while (!client.stopped && performance.now() < deadline) await client.step();
      }),
    );
  } finally {
    running = false;
    clearInterval(ticker);
  }
  return (performance.now() - started) / 1_000;
}

export interface Outcome {
  readonly adapter: string;
  readonly passed: boolean;
  readonly summary: string[];
}

export async function soak(
  adapter: "memory" | "redis",
  server: Standalone,
  redis: RedisServer | undefined,
): Promise<Outcome> {
  log(
    `${adapter}: ${CONNECTIONS} connections, ${CONNECTIONS * IDS} products, ${WARMUP_SECONDS} s warm-up, ${SECONDS} s load`,
  );
  const stats = new Stats();
  const clients = Array.from(
    { length: CONNECTIONS },
    (_, i) => new Client(i, new Connection(server.url, TOKEN), stats),
  );
  const rssStart = await rssOf(server.pid);
  await Promise.all(clients.map((client) => client.fill()));
  log(`  ${adapter}: catalog filled; warming up`);
  const rssSamples: number[] = [];
  await drive(`${adapter} warm-up`, clients, WARMUP_SECONDS, async () => mb(await rssOf(server.pid)));
  const rssWarm = await rssOf(server.pid);
  rssSamples.push(rssWarm);

  stats.recording = true;
  const cpuBefore = await cpuSecondsOf(server.pid);
  const ownCpuBefore = process.cpuUsage();
  const seconds = await drive(adapter, clients, SECONDS, async () => {
    const rss = await rssOf(server.pid);
    rssSamples.push(rss);
    return `${stats.statuses.total.toLocaleString("en-US")} requests, RSS ${mb(rss)}`;
  });
  stats.recording = false;
  const serverCpu = ((await cpuSecondsOf(server.pid)) - cpuBefore) / seconds;
  const { user, system } = process.cpuUsage(ownCpuBefore);
  const clientCpu = (user + system) / 1e6 / seconds;
  const rssEnd = await rssOf(server.pid);
  rssSamples.push(rssEnd);

  log(`  ${adapter}: load done; reading every product back`);
  const mismatches: string[] = [];
  const verified = await Promise.all(clients.map((client) => verifyClient(client, mismatches)));
  const present = verified.reduce((sum, v) => sum + v.present, 0);
  for (const client of clients) client.connection.close();

  const storeLine = redis === undefined ? "" : await walkRedis(redis.url, clients, mismatches);

  const all = [...stats.latencies.values()].flat();
  const requests = all.length;
  const perOp = [...stats.latencies]
    .map(([op, ms]) => `${op} ${ms.length} (p99 ${quantile(ms, 0.99).toFixed(1)})`)
    .join(", ");
  const rssOk = rssEnd <= rssWarm + RSS_BOUND;
  const answersOk = stats.unexpected.total === 0;
  const storeOk = mismatches.length === 0;
  const stderrNote = server.stderrLines > 0 ? `; server stderr: ${server.stderrLines} lines` : "";
  const summary = [
    `soak ${adapter}: ${CONNECTIONS} connections, ${seconds.toFixed(1)} s after ${WARMUP_SECONDS} s warm-up, ${(CONNECTIONS * IDS).toLocaleString("en-US")} product ids`,
    `  requests: ${requests.toLocaleString("en-US")} (${Math.round(requests / seconds).toLocaleString("en-US")} req/s); latency p50 ${quantile(all, 0.5).toFixed(1)} ms, p99 ${quantile(all, 0.99).toFixed(1)} ms, max ${quantile(all, 1).toFixed(1)} ms`,
    `  by operation (ms): ${perOp}`,
    `  CPU, in cores: server ${serverCpu.toFixed(2)}, load generator ${clientCpu.toFixed(2)} (${os.availableParallelism()} cores on this machine, shared with whatever else runs)`,
    `  statuses: ${stats.statuses}`,
    `  unexpected answers: ${stats.unexpected.total === 0 ? "0" : stats.unexpected}${stderrNote}`,
    `  server RSS: start ${mb(rssStart)}, after warm-up ${mb(rssWarm)}, end ${mb(rssEnd)} (max ${mb(Math.max(...rssSamples))}); bound end <= after warm-up + ${mb(RSS_BOUND)}: ${rssOk ? "pass" : "FAIL"}`,
    `  final check: ${(CONNECTIONS * IDS).toLocaleString("en-US")} ids (${present.toLocaleString("en-US")} present) by id, and by sku: ${mismatches.length} mismatches${storeLine}`,
    ...stats.examples.map((example) => `    unexpected: ${example.slice(0, 300)}`),
    ...mismatches.slice(0, KEPT_EXAMPLES).map((mismatch) => `    mismatch: ${mismatch.slice(0, 300)}`),
    ...server.stderr.slice(0, 5).map((line) => `    server stderr: ${line}`),
    ...server.slow.slice(0, 5).map((line) => `    server took over ${SLOW_MS / 1_000} s: ${line}`),
  ];
  return { adapter, passed: rssOk && answersOk && storeOk, summary };
}
