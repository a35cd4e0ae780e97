// Part 1's fault: redis-server killed (SIGKILL) and restarted, aimed at a large import in flight;
// with the wait for the servers to be healthy again and the report of requests that hang.
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { checkKeyPrefix, LOCK_FIELD, MERGING_FIELD, siteKeys } from "@catalog-kit/adapter-redis/testing";
import type { RedisServer } from "@catalog-kit/test-support";
import type { Redis } from "ioredis";
import { Connection } from "../client.ts";
import { forget, killRedisOnExit, type Standalone } from "../standalone.ts";
import { CRASHES, DOWN_MS, KEY_PREFIX, SECONDS, SITE } from "./options.ts";
import { log } from "./record.ts";
import type { Writer } from "./writer.ts";

/** Waits until `server` answers /healthz with 200. */
export async function waitHealthy(server: Standalone, timeoutMs = 30_000): Promise<void> {
  const probe = new Connection(server.url, "");
  const deadline = performance.now() + timeoutMs;
  try {
    for (;;) {
      const answer = await probe.send("GET", "/healthz", undefined, 2_000);
      if (answer.status === 200) return;
      if (performance.now() > deadline)
        throw new Error(`${server.name} stayed unhealthy: ${answer.status} ${answer.body}`);
      await sleep(100);
    }
  } finally {
    probe.close();
  }
}

/** Names requests waiting for more than 20 s, with the site's lock and merge state. */
export async function reportHangs(writers: readonly Writer[], watcher: Redis): Promise<void> {
  const now = performance.now();
  const hung = writers.filter((w) => w.inFlight !== undefined && now - w.inFlight.since > 20_000);
  if (hung.length === 0) return;
  const keys = siteKeys(checkKeyPrefix(KEY_PREFIX), SITE);
  const state = await Promise.all([
    watcher.hget(keys.products, LOCK_FIELD),
    watcher.hget(keys.products, MERGING_FIELD),
    watcher.exists(keys.mergingProducts, keys.mergingSkus, keys.mergingSkuOf),
  ]).catch((error: unknown) => [String(error)]);
  for (const writer of hung) {
    const { seq, server, size, since } = writer.inFlight as NonNullable<Writer["inFlight"]>;
    log(
      `    waiting: client ${writer.index} request ${seq} (${size} products, server ${server}) for ${((now - since) / 1_000).toFixed(0)} s; ` +
        `site lock ${state[0] ?? "free"} (token and expiry), merging mark ${state[1] ?? "none"}, merging keys ${state[2]}`,
    );
  }
}

export async function crashes(redis: RedisServer, writers: readonly Writer[], from: number, pid: { value: number }) {
  const done: string[] = [];
  for (const at of CRASHES) {
    const when = from + at * SECONDS * 1_000;
    await sleep(Math.max(0, when - performance.now()));
    // Aim at a large import, the one with staging, commit and merge steps to interrupt.
    const aimUntil = performance.now() + 3_000;
    while (!writers.some((w) => w.inFlightLarge) && performance.now() < aimUntil) await sleep(5);
    const aimed = writers.some((w) => w.inFlightLarge);
    await sleep(Math.floor(Math.random() * 150));
    await redis.kill();
    forget(pid.value);
    log(`redis-server killed (SIGKILL)${aimed ? " during a large import" : ""}; restarting in ${DOWN_MS} ms`);
    await sleep(DOWN_MS);
    const restartAt = performance.now();
    await redis.restart();
    pid.value = await killRedisOnExit(redis.url);
    const ms = performance.now() - restartAt;
    log(`redis-server back (append-only file replayed) after ${ms.toFixed(0)} ms`);
    done.push(
      `${aimed ? "during a large import" : "at a random moment"}, down ${DOWN_MS} ms + ${ms.toFixed(0)} ms restart`,
    );
  }
  return done;
}
