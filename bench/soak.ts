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
import { randomBytes } from "node:crypto";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { checkIndex, checkKeyPrefix, siteKeys } from "@catalog-kit/adapter-redis/testing";
import { type Product, type Site, toProductView } from "@catalog-kit/catalog-core";
import { haveRedisServer, INSTALL_HINT, type RedisServer, startRedisServer } from "@catalog-kit/test-support";
import { Redis } from "ioredis";
import { type Answer, Connection, mb, problemCode, quantile, sameProduct, Tally } from "./client.ts";
import { generateProducts, seeded, toCsvContent } from "./data.ts";
import {
  cpuSecondsOf,
  forget,
  killRedisOnExit,
  rssOf,
  SLOW_MS,
  type Standalone,
  startStandalone,
} from "./standalone.ts";

const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    only: { type: "string", multiple: true },
    seconds: { type: "string" },
    warmup: { type: "string" },
    connections: { type: "string" },
    "ids-per-connection": { type: "string" },
    "rss-bound-mb": { type: "string", default: "64" },
    seed: { type: "string", default: "1" },
  },
  strict: true,
});
const quick = args.quick === true;
const numberArg = (value: string | undefined, fallback: number) => (value === undefined ? fallback : Number(value));
const SECONDS = numberArg(args.seconds, quick ? 3 : 20);
const WARMUP_SECONDS = numberArg(args.warmup, quick ? 1 : 5);
const CONNECTIONS = numberArg(args.connections, 50);
const IDS = numberArg(args["ids-per-connection"], quick ? 40 : 200);
const RSS_BOUND = numberArg(args["rss-bound-mb"], 64) * 1_048_576;
const SEED = numberArg(args.seed, 1);
const ADAPTERS = (["memory", "redis"] as const).filter((a) => args.only === undefined || args.only.includes(a));
for (const [name, value] of Object.entries({ SECONDS, WARMUP_SECONDS, CONNECTIONS, IDS, RSS_BOUND, SEED })) {
  if (!Number.isFinite(value) || value < 0) throw new Error(`bad value for ${name}: ${value}`);
}

const SITE: Site = { siteType: "soak", siteId: "shop-1" };
const TOKEN = randomBytes(18).toString("base64url");
const KEY_PREFIX = "soak";
const API = "/external/product/v1";
const SITE_QUERY = `siteId=${SITE.siteId}&siteType=${SITE.siteType}`;
const SKU_VARIANTS = 3;
const MAX_BATCH = 100;
const KEPT_EXAMPLES = 10;

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

type Op = "get-id" | "get-sku" | "delete" | "single" | "bulk" | "csv";
const WEIGHTS: readonly [Op, number][] = [
  ["get-id", 30],
  ["get-sku", 15],
  ["delete", 8],
  ["single", 17],
  ["bulk", 18],
  ["csv", 12],
];

/** What the model expects of an import: applied with these counts, or refused with this code. */
type Expectation =
  | { readonly status: 200; readonly counts: { created: number; updated: number; unchanged: number } }
  | { readonly status: 400; readonly code: "SKU_CONFLICT" | "VALIDATION_FAILED" };

const cents = (value: number) => Math.round(value * 100) / 100;

/** The statistics of one adapter's run. */
class Stats {
  readonly statuses = new Tally();
  readonly unexpected = new Tally();
  readonly examples: string[] = [];
  readonly latencies = new Map<Op, number[]>(WEIGHTS.map(([op]) => [op, []]));
  recording = false;

  record(op: Op, answer: Answer): void {
    if (!this.recording) return;
    this.latencies.get(op)?.push(answer.ms);
    const code = answer.status >= 400 ? problemCode(answer.body) : undefined;
    this.statuses.add(
      answer.status === 0 ? `no answer (${answer.error})` : `${answer.status}${code ? ` ${code}` : ""}`,
    );
  }

  fail(what: string, detail: string): void {
    this.unexpected.add(what);
    if (this.examples.length < KEPT_EXAMPLES) this.examples.push(`${what}: ${detail}`);
  }
}

/** One connection and the products it owns. */
class Client {
  readonly ids: string[];
  private readonly bases = new Map<string, Product>();
  /** Each product's last acknowledged state; absent = not there. */
  readonly model = new Map<string, Product>();
  /** sku -> id, for the products in `model`. */
  private readonly skus = new Map<string, string>();
  /** Ids whose last write got no answer: either state is acceptable, and the client stops. */
  readonly uncertain = new Map<string, Product | undefined>();
  private readonly random: () => number;
  private seq = 0;
  stopped = false;
  readonly index: number;
  readonly connection: Connection;
  private readonly stats: Stats;

  constructor(index: number, connection: Connection, stats: Stats) {
    this.index = index;
    this.connection = connection;
    this.stats = stats;
    this.random = seeded(SEED * 1_000 + index);
    const bases = generateProducts(IDS, SEED, index * IDS);
    this.ids = bases.map((_, k) => `soak-${index}-${k}`);
    for (const [k, base] of bases.entries()) this.bases.set(this.ids[k] as string, base);
  }

  private pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.random() * list.length)] as T;
  }

  private skuOf(id: string, variant: number): string {
    return `SOAK-${id.slice(5)}-v${variant}`;
  }

  /** A new version of `id`: a fresh title naming this request, new prices, sometimes fewer fields or another sku. */
  private version(id: string, request: number): Product {
    const base = this.bases.get(id) as Product;
    const current = this.model.get(id);
    const sku =
      current !== undefined && this.random() < 0.7
        ? current.sku
        : this.skuOf(id, Math.floor(this.random() * SKU_VARIANTS));
    const price = cents(5 + this.random() * 300);
    const product: Product = {
      ...base,
      id,
      sku,
      title: `${base.title} #c${this.index}r${request}`,
      price,
      price_min: cents(price * 0.8),
      price_max: cents(price * 1.2),
      available: this.random() < 0.8,
    };
    // Upsert is replace: a later version without these fields must leave none of them behind.
    if (this.random() < 0.1) {
      delete product.description;
      delete product.images;
      delete product.price_min;
    }
    return product;
  }

  /** Judges a batch as the contract does: SKUs unique on the state after the request. */
  private judge(batch: readonly Product[], poisoned: boolean): Expectation {
    if (poisoned) return { status: 400, code: "VALIDATION_FAILED" };
    const after = new Map(this.skus);
    for (const product of batch) {
      const old = this.model.get(product.id);
      if (old !== undefined && after.get(old.sku) === product.id) after.delete(old.sku);
    }
    for (const product of batch) {
      const holder = after.get(product.sku);
      if (holder !== undefined && holder !== product.id) return { status: 400, code: "SKU_CONFLICT" };
      after.set(product.sku, product.id);
    }
    let created = 0;
    let unchanged = 0;
    for (const product of batch) {
      const old = this.model.get(product.id);
      if (old === undefined) created++;
      else if (sameProduct(old, product)) unchanged++;
    }
    return { status: 200, counts: { created, updated: batch.length - created - unchanged, unchanged } };
  }

  private apply(batch: readonly Product[]): void {
    for (const product of batch) {
      const old = this.model.get(product.id);
      if (old !== undefined && this.skus.get(old.sku) === product.id) this.skus.delete(old.sku);
    }
    for (const product of batch) {
      this.model.set(product.id, product);
      this.skus.set(product.sku, product.id);
    }
  }

  private forgetProduct(id: string): void {
    const old = this.model.get(id);
    if (old !== undefined && this.skus.get(old.sku) === id) this.skus.delete(old.sku);
    this.model.delete(id);
  }

  /** Imports the whole pool at once, so that the catalog is full from the start. */
  async fill(): Promise<void> {
    const request = ++this.seq;
    await this.write(
      "bulk",
      this.ids.map((id) => this.version(id, request)),
      false,
    );
  }

  private batch(size: number): Product[] {
    const request = ++this.seq;
    const chosen = new Set<string>();
    while (chosen.size < Math.min(size, this.ids.length)) chosen.add(this.pick(this.ids));
    const batch = [...chosen].map((id) => this.version(id, request));
    const present = batch.filter((p) => this.model.has(p.id));
    // Two products trading SKUs in one request is allowed, and moves two index entries at once.
    if (present.length >= 2 && this.random() < 0.1) {
      const [a, b] = present as [Product, Product];
      const skuA = (this.model.get(a.id) as Product).sku;
      a.sku = (this.model.get(b.id) as Product).sku;
      b.sku = skuA;
    }
    // Now and then, claim an SKU that another product keeps: the whole request must be refused.
    if (this.random() < 0.04) {
      const holder = this.ids.find((id) => this.model.has(id) && !chosen.has(id));
      if (holder !== undefined) (batch[0] as Product).sku = (this.model.get(holder) as Product).sku;
    }
    return batch;
  }

  private async write(kind: "single" | "bulk" | "csv", batch: readonly Product[], poisoned: boolean): Promise<void> {
    const expected = this.judge(batch, poisoned);
    let body: string;
    if (kind === "single") body = JSON.stringify({ product: batch[0] });
    else if (kind === "bulk") body = JSON.stringify({ products: batch });
    else body = JSON.stringify({ csvContent: toCsvContent(batch) });
    const path = kind === "single" ? API : kind === "bulk" ? `${API}/bulk` : `${API}/bulk/csv`;
    const answer = await this.connection.send("POST", path, body);
    this.stats.record(kind, answer);
    if (answer.status === 200) {
      this.apply(batch);
      if (expected.status !== 200) {
        this.stats.fail(`${kind}: 200 instead of ${expected.status} ${expected.code}`, answer.body);
        return;
      }
      const got = JSON.parse(answer.body) as Record<string, number>;
      const { created, updated, unchanged } = expected.counts;
      if (
        got.total !== batch.length ||
        got.created !== created ||
        got.updated !== updated ||
        got.unchanged !== unchanged
      ) {
        this.stats.fail(`${kind}: counts differ`, `expected ${JSON.stringify(expected.counts)}, got ${answer.body}`);
      }
      return;
    }
    if (answer.status === 400 && expected.status === 400 && problemCode(answer.body) === expected.code) return;
    if (answer.status === 0 || answer.status >= 500) {
      // Nobody knows whether it was applied: accept either state, and stop this client.
      for (const product of batch) this.uncertain.set(product.id, product);
      this.stopped = true;
    }
    const wanted = expected.status === 200 ? "200" : `400 ${expected.code}`;
    this.stats.fail(
      `${kind}: ${answer.status || answer.error} instead of ${wanted}`,
      answer.body.slice(0, 300) || (answer.error ?? ""),
    );
  }

  private async read(
    op: "get-id" | "get-sku" | "delete",
    key: string,
    by: "id" | "sku" | undefined,
    expected: Product | undefined,
  ) {
    const query = by === undefined ? SITE_QUERY : `${SITE_QUERY}&by=${by}`;
    const answer = await this.connection.send(
      op === "delete" ? "DELETE" : "GET",
      `${API}/${encodeURIComponent(key)}?${query}`,
    );
    this.stats.record(op, answer);
    if (expected === undefined) {
      if (answer.status === 400 && problemCode(answer.body) === "PRODUCT_NOT_FOUND") return;
      this.stats.fail(
        `${op}: ${answer.status || answer.error} instead of 400 PRODUCT_NOT_FOUND`,
        `${key}: ${answer.body.slice(0, 300)}`,
      );
      return;
    }
    if (answer.status !== 200) {
      this.stats.fail(`${op}: ${answer.status || answer.error} instead of 200`, `${key}: ${answer.body.slice(0, 300)}`);
      if (op === "delete" && (answer.status === 0 || answer.status >= 500)) {
        this.uncertain.set(expected.id, undefined);
        this.stopped = true;
      }
      return;
    }
    if (op === "delete") {
      this.forgetProduct(expected.id);
      return;
    }
    const view = JSON.stringify(toProductView(expected));
    if (answer.body !== view) this.stats.fail(`${op}: another product`, `expected ${view}, got ${answer.body}`);
  }

  /** One request of the mix. */
  async step(): Promise<void> {
    let roll = this.random() * 100;
    let op: Op = "get-id";
    for (const [name, weight] of WEIGHTS) {
      if (roll < weight) {
        op = name;
        break;
      }
      roll -= weight;
    }
    const id = this.pick(this.ids);
    const current = this.model.get(id);
    switch (op) {
      case "get-id":
        return this.read(op, id, this.random() < 0.5 ? "id" : undefined, current);
      case "get-sku": {
        if (current !== undefined && this.random() < 0.8) return this.read(op, current.sku, "sku", current);
        const sku = this.skuOf(id, Math.floor(this.random() * SKU_VARIANTS));
        const holder = this.skus.get(sku);
        return this.read(op, sku, "sku", holder === undefined ? undefined : this.model.get(holder));
      }
      case "delete":
        if (current !== undefined && this.random() < 0.3) return this.read(op, current.sku, "sku", current);
        return this.read(op, id, "id", current);
      case "single": {
        // Sending the stored product again must count as unchanged.
        if (current !== undefined && this.random() < 0.1) {
          ++this.seq;
          return this.write(op, [current], false);
        }
        const [product] = this.batch(1) as [Product];
        const poisoned = this.random() < 0.02;
        return this.write(op, [poisoned ? { ...product, price: -1 } : product], poisoned);
      }
      default: {
        const batch = this.batch(10 + Math.floor(this.random() * (MAX_BATCH - 10)));
        const poisoned = this.random() < 0.02;
        if (poisoned) {
          const victim = Math.floor(this.random() * batch.length);
          batch[victim] = { ...(batch[victim] as Product), price: -1 };
        }
        return this.write(op, batch, poisoned);
      }
    }
  }

  /** Reads every owned product back (by id, then by SKU) and compares it with the model. */
  async verify(mismatches: string[]): Promise<{ present: number }> {
    let present = 0;
    for (const id of this.ids) {
      const expected = this.model.get(id);
      if (expected !== undefined) present++;
      const answer = await this.connection.send("GET", `${API}/${encodeURIComponent(id)}?${SITE_QUERY}&by=id`);
      const acceptable = [expected, ...(this.uncertain.has(id) ? [this.uncertain.get(id)] : [])];
      const seen = describeAnswer(answer);
      if (!acceptable.some((product) => seen === describeExpected(product))) {
        mismatches.push(`${id}: expected ${describeExpected(expected)}, got ${seen}`);
        continue;
      }
      if (expected === undefined || this.uncertain.has(id)) continue;
      const bySku = await this.connection.send(
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
}

function describeExpected(product: Product | undefined): string {
  return product === undefined ? "400 PRODUCT_NOT_FOUND" : `200 ${JSON.stringify(toProductView(product))}`;
}

function describeAnswer(answer: Answer): string {
  if (answer.status === 200) return `200 ${answer.body}`;
  if (answer.status === 0) return `no answer (${answer.error})`;
  return `${answer.status} ${problemCode(answer.body) ?? answer.body.slice(0, 200)}`;
}

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

interface Outcome {
  readonly adapter: string;
  readonly passed: boolean;
  readonly summary: string[];
}

async function soak(adapter: "memory" | "redis", server: Standalone, redis: RedisServer | undefined): Promise<Outcome> {
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
  const verified = await Promise.all(clients.map((client) => client.verify(mismatches)));
  const present = verified.reduce((sum, v) => sum + v.present, 0);
  for (const client of clients) client.connection.close();

  let storeLine = "";
  if (redis !== undefined) {
    // The Redis side, walked directly: every stored JSON equals the model's product (every field,
    // not only the retrieval view), nothing else is stored, and the SKU index agrees.
    const watcher = new Redis(redis.url);
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
      storeLine = `; Redis walk: ${Object.keys(stored).length} products stored, ${problems.length} index problems`;
    } finally {
      watcher.disconnect();
    }
  }

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
