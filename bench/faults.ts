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
import { randomBytes } from "node:crypto";
import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { createRedisStore } from "@catalog-kit/adapter-redis";
import { checkIndex, checkKeyPrefix, LOCK_FIELD, MERGING_FIELD, siteKeys } from "@catalog-kit/adapter-redis/testing";
import type { CatalogStore, Product, Site } from "@catalog-kit/catalog-core";
import { haveRedisServer, INSTALL_HINT, type RedisServer, startRedisServer } from "@catalog-kit/test-support";
import { Redis } from "ioredis";
import { type Answer, Connection, problemCode, sameProduct, Tally } from "./client.ts";
import { generateProducts, seeded, toCsvContent } from "./data.ts";
import { forget, killRedisOnExit, SLOW_MS, type Standalone, startStandalone } from "./standalone.ts";

const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    seconds: { type: "string" },
    clients: { type: "string" },
    "shutdown-products": { type: "string" },
    seed: { type: "string", default: "1" },
  },
  strict: true,
});
const quick = args.quick === true;
const numberArg = (value: string | undefined, fallback: number) => (value === undefined ? fallback : Number(value));
const SECONDS = numberArg(args.seconds, quick ? 5 : 30);
const CLIENTS = numberArg(args.clients, quick ? 4 : 6);
const SHUTDOWN_PRODUCTS = numberArg(args["shutdown-products"], quick ? 8_000 : 30_000);
const SEED = numberArg(args.seed, 1);
for (const [name, value] of Object.entries({ SECONDS, CLIENTS, SHUTDOWN_PRODUCTS, SEED })) {
  if (!Number.isFinite(value) || value < 1) throw new Error(`bad value for ${name}: ${value}`);
}
/** Ids each client owns; larger than the largest batch. */
const IDS = quick ? 1_600 : 3_000;
/** Large batches go past the Redis adapter's default chunk of 1,000 products. */
const LARGE = quick ? [1_100, 1_500] : [1_100, 2_500];
const SMALL = [20, 200];
const SHARED_SKUS = 16;
/** When Redis is killed, as fractions of the load's duration. */
const CRASHES = quick ? [0.45] : [0.35, 0.7];
const DOWN_MS = quick ? 500 : 1_000;
const SHUTDOWN_MODES = quick
  ? (["mid-upload", "random"] as const)
  : (["mid-upload", "after-upload", "random", "before-request"] as const);
type ShutdownMode = "mid-upload" | "after-upload" | "random" | "before-request";

const SITE: Site = { siteType: "faults", siteId: "shop-1" };
const SHUTDOWN_SITE: Site = { siteType: "faults", siteId: "shutdown" };
const TOKEN = randomBytes(18).toString("base64url");
const SHUTDOWN_TOKEN = randomBytes(18).toString("base64url");
const KEY_PREFIX = "faults";
const API = "/external/product/v1";
const KEPT_EXAMPLES = 12;

const started = performance.now();
function log(line: string): void {
  process.stdout.write(`[${((performance.now() - started) / 1_000).toFixed(1).padStart(5)} s] ${line}\n`);
}

const failures = new Tally();
const verifySummary: string[] = [];
const examples: string[] = [];
function fail(what: string, detail: string): void {
  failures.add(what);
  if (examples.length < KEPT_EXAMPLES) examples.push(`${what}: ${detail}`);
}

// ---------------------------------------------------------------------------------------------
// Part 1: concurrent writers, overlapping SKUs, Redis crashes.

type Outcome = "ok" | "refused" | "unknown";

interface Sent {
  readonly seq: number;
  readonly products: ReadonlyMap<string, Product>;
  readonly large: boolean;
  outcome: Outcome;
}

const statuses = new Tally();
const TAG = / \[c(\d+) r(\d+)\]$/;

// A 503 while Redis is down is the point of the exercise; one because another import held the
// site past the wait limit says something else (contention), so the tally keeps them apart.
function whyUnavailable(body: string): string {
  const detail = String((JSON.parse(body) as { detail?: unknown }).detail ?? "");
  if (/busy/i.test(detail)) return "site busy";
  if (/expired/i.test(detail)) return "import expired";
  return "Redis unreachable";
}

class Writer {
  readonly ids: string[];
  private readonly bases = new Map<string, Product>();
  /** Every request this client sent, in order (seq = index + 1). */
  readonly sent: Sent[] = [];
  /** Each id's last acknowledged version: what its next version starts from. */
  private readonly acked = new Map<string, Product>();
  private readonly random: () => number;
  inFlightLarge = false;
  /** The request waiting for its answer, and since when: a hang shows up in the progress lines. */
  inFlight: { seq: number; server: string; size: number; since: number } | undefined;
  readonly index: number;
  private readonly connections: readonly Connection[];

  constructor(index: number, connections: readonly Connection[]) {
    this.index = index;
    this.connections = connections;
    this.random = seeded(SEED * 1_000 + index);
    const bases = generateProducts(IDS, SEED, index * IDS);
    this.ids = bases.map((_, k) => `f${index}-${k}`);
    for (const [k, base] of bases.entries()) this.bases.set(this.ids[k] as string, base);
  }

  private between([low, high]: readonly number[]): number {
    return (low as number) + Math.floor(this.random() * ((high as number) - (low as number) + 1));
  }

  private batch(seq: number, size: number): Map<string, Product> {
    const chosen = new Set<string>();
    while (chosen.size < size) chosen.add(this.ids[Math.floor(this.random() * this.ids.length)] as string);
    const batch = new Map<string, Product>();
    for (const id of chosen) {
      const base = this.bases.get(id) as Product;
      const current = this.acked.get(id);
      // A shared SKU is given back half of the time, so that the pool keeps changing hands.
      const keep = current !== undefined && this.random() < (current.sku.startsWith("SHARED-") ? 0.5 : 0.7);
      const sku = keep ? (current as Product).sku : `F-${id.slice(1)}-v${Math.floor(this.random() * 3)}`;
      const price = Math.round((5 + this.random() * 300) * 100) / 100;
      batch.set(id, {
        ...base,
        id,
        sku,
        title: `${base.title} [c${this.index} r${seq}]`,
        price,
        price_min: Math.round(price * 80) / 100,
        price_max: Math.round(price * 120) / 100,
      });
    }
    if (this.random() < 0.4) {
      const first = batch.values().next().value as Product;
      first.sku = `SHARED-${Math.floor(this.random() * SHARED_SKUS)}`;
    }
    return batch;
  }

  async run(until: number): Promise<void> {
    while (performance.now() < until) {
      const seq = this.sent.length + 1;
      const large = this.random() < 0.2;
      const products = this.batch(seq, this.between(large ? LARGE : SMALL));
      const poisoned = this.random() < 0.05;
      const list = [...products.values()];
      if (poisoned) {
        const k = Math.floor(this.random() * list.length);
        list[k] = { ...(list[k] as Product), price: -1 };
      }
      const csv = this.random() < 0.25;
      const body = csv ? JSON.stringify({ csvContent: toCsvContent(list) }) : JSON.stringify({ products: list });
      const sent: Sent = { seq, products, large, outcome: "unknown" };
      this.sent.push(sent);
      const connection = this.connections[seq % this.connections.length] as Connection;
      this.inFlightLarge = large;
      const server = "AB"[seq % this.connections.length] as string;
      this.inFlight = { seq, server, size: list.length, since: performance.now() };
      const answer = await connection.send("POST", csv ? `${API}/bulk/csv` : `${API}/bulk`, body);
      this.inFlightLarge = false;
      this.inFlight = undefined;
      sent.outcome = this.judge(answer, list, poisoned);
      if (sent.outcome === "ok") for (const product of list) this.acked.set(product.id, product);
      // Redis is down: give it a moment instead of spinning on 503s.
      if (answer.status === 503) await sleep(100);
    }
  }

  private judge(answer: Answer, list: readonly Product[], poisoned: boolean): Outcome {
    const code = problemCode(answer.body);
    statuses.add(
      answer.status === 0
        ? `no answer (${answer.error})`
        : `${answer.status}${code ? ` ${code}` : ""}${answer.status === 503 ? ` (${whyUnavailable(answer.body)})` : ""}`,
    );
    const where = `client ${this.index} request ${this.sent.length}`;
    if (answer.status === 200) {
      const body = JSON.parse(answer.body) as { total: number; created: number; updated: number; unchanged: number };
      if (poisoned) fail("200 for a batch with an invalid product", where);
      if (body.total !== list.length || body.created + body.updated + body.unchanged !== list.length) {
        fail("200 with wrong counts", `${where}: ${list.length} products, ${answer.body}`);
      }
      return "ok";
    }
    if (answer.status === 400 && code === "VALIDATION_FAILED") {
      if (!poisoned) fail("VALIDATION_FAILED for a valid batch", `${where}: ${answer.body.slice(0, 300)}`);
      return "refused";
    }
    if (answer.status === 400 && code === "SKU_CONFLICT") {
      const errors = (JSON.parse(answer.body) as { errors?: { sku?: string }[] }).errors ?? [];
      if (poisoned) fail("SKU_CONFLICT before validation", where);
      if (errors.length === 0 || !errors.every((e) => e.sku?.startsWith("SHARED-"))) {
        fail("SKU_CONFLICT on a client's own SKU", `${where}: ${answer.body.slice(0, 300)}`);
      }
      return "refused";
    }
    if (answer.status === 503 && code === "STORAGE_UNAVAILABLE") return "unknown";
    fail(
      `unexpected answer ${answer.status || answer.error}${code ? ` ${code}` : ""}`,
      `${where}: ${answer.body.slice(0, 300)}`,
    );
    return answer.status >= 400 && answer.status < 500 ? "refused" : "unknown";
  }
}

interface VerifyCounts {
  ids: number;
  stored: number;
  ackedRequests: number;
  refusedRequests: number;
  unknownRequests: number;
  unknownApplied: number;
}

/** Reads every id through the store's API and checks it against what the answers promised. */
async function verifyWriters(store: CatalogStore, writers: readonly Writer[]): Promise<Map<string, Product>> {
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
async function walkRedis(watcher: Redis, seen: ReadonlyMap<string, Product>): Promise<void> {
  const keys = siteKeys(checkKeyPrefix(KEY_PREFIX), SITE);
  const stored = await watcher.hgetall(keys.products);
  // The site's lock and merging mark are state, not products.
  delete stored[LOCK_FIELD];
  delete stored[MERGING_FIELD];
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

async function waitHealthy(server: Standalone, timeoutMs = 30_000): Promise<void> {
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
async function reportHangs(writers: readonly Writer[], watcher: Redis): Promise<void> {
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

async function crashes(redis: RedisServer, writers: readonly Writer[], from: number, pid: { value: number }) {
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

// ---------------------------------------------------------------------------------------------
// Part 2: SIGTERM during a large import.

interface ShutdownResult {
  readonly mode: ShutdownMode;
  readonly answer: string;
  readonly stored: number;
  readonly exitCode: number | null;
  readonly ok: boolean;
}

function rawImport(
  url: string,
  body: Buffer,
  agent: Agent,
  hooks: { afterHalf?: () => Promise<void>; afterUpload?: () => void },
): Promise<Answer> {
  const base = new URL(url);
  const t0 = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: Omit<Answer, "ms">) => {
      if (!settled) resolve({ ...answer, ms: performance.now() - t0 });
      settled = true;
    };
    const req = request(
      {
        host: base.hostname,
        port: base.port,
        method: "POST",
        path: `${API}/bulk`,
        agent,
        timeout: 120_000,
        headers: {
          "x-service-access-token": SHUTDOWN_TOKEN,
          "content-type": "application/json",
          "content-length": body.length,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => finish({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on("error", (error) => finish({ status: 0, body: "", error: error.message }));
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) =>
      finish({ status: 0, body: "", error: error.code ?? error.message }),
    );
    req.on("timeout", () => req.destroy(new Error("no answer")));
    req.on("finish", () => hooks.afterUpload?.());
    if (hooks.afterHalf === undefined) req.end(body);
    else {
      const half = Math.floor(body.length / 2);
      req.write(body.subarray(0, half));
      void hooks.afterHalf().then(() => req.end(body.subarray(half)));
    }
  });
}

async function shutdownRound(round: number, mode: ShutdownMode, server: Standalone, store: CatalogStore) {
  const tag = `[shutdown ${round} ${mode}]`;
  const products = generateProducts(SHUTDOWN_PRODUCTS, SEED + 100 + round).map((p, k) => ({
    ...p,
    id: `sd${round}-${k}`,
    sku: `SD-${round}-${k}`,
    title: `${p.title} ${tag}`,
  }));
  const body = Buffer.from(JSON.stringify({ products }));
  await waitHealthy(server);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const terminate = () => {
    log(`  SIGTERM to the server (${mode})`);
    server.signal("SIGTERM");
  };
  let answer: Answer;
  const t0 = performance.now();
  if (mode === "mid-upload") {
    answer = await rawImport(server.url, body, agent, {
      afterHalf: async () => {
        await sleep(150);
        terminate();
        await sleep(300);
      },
    });
  } else if (mode === "after-upload") {
    answer = await rawImport(server.url, body, agent, { afterUpload: () => setTimeout(terminate, 20) });
  } else if (mode === "random") {
    // The import takes about a second per 10,000 products here: aim anywhere inside it.
    const delay = Math.floor(Math.random() * (SHUTDOWN_PRODUCTS / 10));
    setTimeout(terminate, delay);
    answer = await rawImport(server.url, body, agent, {});
  } else {
    // An idle keep-alive connection is open when the signal arrives; the import comes after it.
    const warm = new Connection(server.url, SHUTDOWN_TOKEN);
    await warm.send("GET", "/healthz");
    terminate();
    await sleep(300);
    answer = await rawImport(server.url, body, agent, {});
    warm.close();
  }
  agent.destroy();
  const seconds = (performance.now() - t0) / 1_000;
  const exitCode = await Promise.race([
    server.exited,
    sleep(40_000, undefined, { ref: false }).then(() => "still running" as const),
  ]);
  if (exitCode === "still running") server.signal("SIGKILL");

  let stored = 0;
  let differ = 0;
  for (let from = 0; from < products.length; from += 1_000) {
    const slice = products.slice(from, from + 1_000);
    const found = await Promise.all(slice.map((p) => store.find(SHUTDOWN_SITE, p.id, "id")));
    found.forEach((product, k) => {
      if (product === undefined) return;
      stored++;
      if (!sameProduct(product, slice[k])) differ++;
    });
  }
  const describe = answer.status === 0 ? `no answer (${answer.error})` : `${answer.status}`;
  let ok = true;
  const where = `round ${round} (${mode})`;
  if (answer.status === 200) {
    const counts = JSON.parse(answer.body) as Record<string, number>;
    if (counts.total !== products.length || counts.created !== products.length) {
      fail("shutdown: wrong counts", `${where}: ${answer.body}`);
      ok = false;
    }
    if (stored !== products.length || differ > 0) {
      fail("shutdown: answered 200 but not all stored", `${where}: ${stored} of ${products.length}, ${differ} differ`);
      ok = false;
    }
  } else if (answer.status === 0) {
    if (stored > 0) {
      fail("shutdown: refused request left products", `${where}: ${stored} of ${products.length}`);
      ok = false;
    }
  } else {
    fail("shutdown: unexpected answer", `${where}: ${answer.status} ${answer.body.slice(0, 200)}`);
    ok = false;
    if (stored !== 0 && stored !== products.length) fail("shutdown: partial batch", `${where}: ${stored} stored`);
  }
  if (exitCode !== 0) {
    fail("shutdown: server exit status", `${where}: ${exitCode}`);
    ok = false;
  }
  log(
    `  round ${round} (${mode}): ${describe} after ${seconds.toFixed(1)} s; ${stored} of ${products.length} stored; server exit ${exitCode}`,
  );
  return { mode, answer: describe, stored, exitCode: typeof exitCode === "number" ? exitCode : null, ok };
}

// ---------------------------------------------------------------------------------------------

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
