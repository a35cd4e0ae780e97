// HTTP load against the product and its baselines, each server in its own process (so the load
// generator never shares an event loop with a server), rounds alternating. GETs go through wrk (a C
// load generator on one thread, when installed; autocannon otherwise), POSTs through autocannon;
// each contender alone on the machine, in a fresh process every round.
// The product runs twice: the handler alone on startServer, and the standalone server exactly as
// `npm start` runs it (its CLI, a configuration file, the access log on, every default; for GET,
// also with its access log and metrics off). On PostgreSQL, the standalone server only, against
// the same server on Redis. On SQLite, GET by id through the standalone server against the same
// server on memory. On Redis, the bulk import with a fresh Idempotency-Key on every request
// against the same without one, and redis-server's CPU per GET against one plain HGET a request.
// The servers and the load live in ../http/; this is the run's outline and its rows.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { createRedisStore } from "@catalog-kit/adapter-redis";
import { createCatalog } from "@catalog-kit/catalog-core";
import { type RedisServer, startRedisServer } from "@catalog-kit/test-support";
import { keyRows } from "../http/key.ts";
import { alternateAlone, compare, cpuDifferences, type Starter } from "../http/load.ts";
import { postgresRows } from "../http/postgres.ts";
import { QUIET, type Running, startNpmStart, startServer } from "../http/servers.ts";
import {
  aloneRounds,
  BATCH,
  BULK,
  CSV,
  GENERATOR,
  GET,
  getSeconds,
  type Load,
  only,
  products,
  quick,
  stored,
  work,
} from "../http/setup.ts";
import { sqliteRows } from "../http/sqlite.ts";
import { median } from "../measure.ts";
import { havePostgres } from "../postgres.ts";
import { emit, type NamedBaseline, progress, type Row, type Target } from "../report.ts";
import { unavailableNote } from "../rig.ts";
import { KEY_PREFIX, SITE } from "../servers/shared.ts";
import { cpuSecondsOf, forget, killRedisOnExit } from "../standalone.ts";

/** `--only memory|redis|postgres|sqlite` and `--only get|bulk|csv|key` (repeatable) narrow the run; a kind not named is not narrowed. */
const wanted = (name: string, kind: readonly string[]) => {
  const named = only?.filter((o) => kind.includes(o)) ?? [];
  return named.length === 0 || named.includes(name);
};
const PARTS = ["get", "bulk", "csv", "key"];
const STORAGES = ["memory", "redis", "postgres", "sqlite"];

const FASTIFY_GET: NamedBaseline = { label: "fastify", name: "fastify, same catalog, logger off" };
const BARE_GET: NamedBaseline = { label: "bare node:http", name: "bare node:http, fixed JSON" };
const FASTIFY_LOGGED_GET: NamedBaseline = {
  label: "fastify, logger on",
  name: "fastify, same catalog, its logger on (pino, level info, to a file: a line per request and per answer)",
};
const PLAIN_HGET: NamedBaseline = {
  label: "plain HGET",
  name: "bare node:http, one HGET a request through ioredis with auto-pipelining (a turn's HGETs in one write), the stored JSON answered as it is",
};
const NO_LIMITS: NamedBaseline = {
  label: "no limits",
  name: "the same handler, no rate limits (no headers, nothing counted)",
};
const BARE_PARSE: NamedBaseline = { label: "bare node:http", name: "bare node:http, read + JSON.parse only" };

const rows: Row[] = [];
let redis: RedisServer | undefined;
const servers: Running[] = [];
try {
  const haveRedis = spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;
  if (haveRedis) {
    redis = await startRedisServer();
    // Redis is loaded once, here; memory servers load their own copy of the same products.
    const loader = createCatalog({ store: createRedisStore({ url: redis.url, keyPrefix: KEY_PREFIX }), sites: [SITE] });
    await loader.importProducts(SITE, products);
    await loader.close();
  } else {
    rows.push({
      name: "HTTP, redis",
      scenario: "HTTP scenarios with Redis storage",
      figure: null,
      unit: "",
      note: "not available: redis-server is not installed",
    });
  }

  for (const storage of ["memory", "redis"] as const) {
    if (!wanted(storage, STORAGES)) continue;
    if (storage === "redis" && redis === undefined) continue;
    // The keyed import needs a store that records keys: Redis here.
    if (!PARTS.some((part) => wanted(part, PARTS) && (part !== "key" || storage === "redis"))) continue;
    const args = ["--storage", storage, "--redis-url", redis?.url ?? "", "--preload", String(stored)];
    // On Redis, redis-server's CPU is read around every round: what a GET costs the store.
    const redisPid = storage === "redis" && redis !== undefined ? await killRedisOnExit(redis.url) : undefined;
    const watched = (server: Running): Running =>
      redisPid === undefined ? server : { ...server, storeCpuSeconds: () => cpuSecondsOf(redisPid) };
    // `npm start` serves the memory store its configuration names; Redis rows compare the handler.
    const npmStart = storage === "memory";
    const starters = {
      catalog: async () => watched(await startServer("servers/catalog.ts", args)),
      limited: () => startServer("servers/catalog.ts", [...args, "--rate-limits"]),
      fastify: async () => watched(await startServer("servers/fastify.ts", args)),
      npmStart: () => startNpmStart(),
      npmStartQuiet: () => startNpmStart(undefined, QUIET),
      // Beside `npm start` (its access log on), fastify as its users run it too: its logger on,
      // writing to a file.
      fastifyLogged: () =>
        startServer("servers/fastify.ts", [...args, "--log-file", join(work, `fastify-${storage}.log`)]),
      bare: () => startServer("servers/bare-fixed.ts"),
      hget: async () => watched(await startServer("servers/redis-hget.ts", args)),
      bareParse: () => startServer("servers/bare-parse.ts"),
    };
    const judged = !quick && storage === "memory";
    const n = stored.toLocaleString("en-US");

    if (wanted("get", PARTS)) {
      const get = await alternateAlone(`GET by id, ${storage}`, {
        catalog: [starters.catalog, GET],
        ...(storage === "memory" ? { limited: [starters.limited, GET] as [Starter, Load] } : {}),
        ...(npmStart
          ? {
              npmStart: [starters.npmStart, GET] as [Starter, Load],
              npmStartQuiet: [starters.npmStartQuiet, GET] as [Starter, Load],
            }
          : {}),
        fastify: [starters.fastify, GET],
        ...(npmStart ? { fastifyLogged: [starters.fastifyLogged, GET] as [Starter, Load] } : {}),
        bare: [starters.bare, GET],
        ...(redisPid === undefined ? {} : { hget: [starters.hget, GET] as [Starter, Load] }),
      });
      const getScenario = (subject: string) =>
        `HTTP GET by id, ${storage}, ${subject}, ${GENERATOR}, 50 connections, ${getSeconds} s x ${aloneRounds}, a fresh server each round (${n} products stored)`;
      // A GET row: a contender's rate against a baseline's, over the same rounds.
      const getRow = (
        name: string,
        scenario: string,
        figures: ReturnType<typeof compare>,
        baseline: NamedBaseline,
        target?: Target,
      ): Row => ({
        name,
        scenario,
        figure: figures.figure,
        unit: "req/s",
        baseline: { ...baseline, figure: figures.baseline, unit: "req/s" },
        ratio: figures.ratio,
        note: figures.note,
        ...(judged && target !== undefined ? { target } : {}),
      });
      const notSlower = { label: ">= 1.0x", minRatio: 1 };
      if (npmStart) {
        const started = compare(get, "npmStart", "fastify");
        const scenario = getScenario("standalone server as `npm start` runs it (access log on)");
        const name = `GET by id, npm start, ${storage}`;
        rows.push(getRow(name, scenario, started, FASTIFY_GET, notSlower));
        rows.push(getRow(name, scenario, compare(get, "npmStart", "fastifyLogged"), FASTIFY_LOGGED_GET));
        if (started.cpu !== undefined && started.baselineCpu !== undefined) {
          rows.push({
            name: `server CPU per GET, npm start, ${storage}`,
            scenario: `${scenario}: server CPU per request`,
            figure: started.cpu,
            unit: "µs/request",
            baseline: { ...FASTIFY_GET, figure: started.baselineCpu, unit: "µs/request" },
            ...(started.cpuRatio === undefined ? {} : { ratio: started.cpuRatio }),
            ...(judged ? { target: { label: "<= 1.0x", maxRatio: 1 } } : {}),
          });
        }
        const observing = cpuDifferences(get, "npmStart", "npmStartQuiet");
        const quietCpu = compare(get, "npmStartQuiet", "npmStart").cpu;
        if (observing !== undefined && quietCpu !== undefined) {
          const rounds = observing.map((d) => `${d < 0 ? "" : "+"}${d.toFixed(1)}`).join(", ");
          rows.push({
            name: `access log and metrics per GET, npm start, ${storage}`,
            scenario: `${scenario}: server CPU per request, less the same server's with its access log and metrics off in its configuration file, same rounds (median of the per-round differences)`,
            figure: median(observing),
            unit: "µs/request",
            note: `server CPU ${started.cpu?.toFixed(2)} µs a request with them, ${quietCpu.toFixed(2)} µs without; by round ${rounds} µs`,
            ...(judged ? { target: { label: "<= 2 µs", max: 2 } } : {}),
          });
        }
      }
      const handlerScenario = getScenario("handler alone (no access log)");
      const limits = storage === "memory" ? cpuDifferences(get, "limited", "catalog") : undefined;
      if (limits !== undefined) {
        const limitedScenario = getScenario(
          "handler alone, its token with rate limits it never reaches (RateLimit headers on every answer, a usage meter settled four times a second)",
        );
        rows.push(
          getRow(`GET by id, rate limits, ${storage}`, limitedScenario, compare(get, "limited", "catalog"), NO_LIMITS),
        );
        const rounds = limits.map((d) => `${d < 0 ? "" : "+"}${d.toFixed(2)}`).join(", ");
        rows.push({
          name: `rate limits per GET, handler, ${storage}`,
          scenario: `${limitedScenario}: server CPU per request, less the same handler's without limits, same rounds (median of the per-round differences)`,
          figure: median(limits),
          unit: "µs/request",
          note: `by round ${rounds} µs`,
          ...(judged ? { target: { label: "<= 1 µs", max: 1 } } : {}),
        });
      }
      const handlerName = `GET by id, handler, ${storage}`;
      const vsFastify = compare(get, "catalog", "fastify");
      const vsHget = redisPid === undefined ? undefined : compare(get, "catalog", "hget");
      if (
        vsHget?.storeCpu !== undefined &&
        vsHget.baselineStoreCpu !== undefined &&
        vsHget.storeCpuRatio !== undefined
      ) {
        rows.push({
          name: `redis-server CPU per GET, handler, ${storage}`,
          scenario: `${handlerScenario}: redis-server CPU per request`,
          figure: vsHget.storeCpu,
          unit: "µs/request",
          baseline: { ...PLAIN_HGET, figure: vsHget.baselineStoreCpu, unit: "µs/request" },
          ratio: vsHget.storeCpuRatio,
          note: `one redis-server, its CPU time from /proc over the timed rounds, divided by the requests answered; ${vsHget.note}`,
          ...(quick ? {} : { target: { label: "<= 2.5 µs", max: 2.5 } }),
        });
      }
      rows.push(getRow(handlerName, handlerScenario, vsFastify, FASTIFY_GET, notSlower));
      rows.push(
        getRow(handlerName, handlerScenario, compare(get, "catalog", "bare"), BARE_GET, {
          label: ">= 0.85x",
          minRatio: 0.85,
        }),
      );
    }

    if (wanted("bulk", PARTS)) {
      const bulk = await alternateAlone(`POST bulk of 1,000, ${storage}`, {
        catalog: [starters.catalog, BULK],
        ...(npmStart ? { npmStart: [starters.npmStart, BULK] as [Starter, Load] } : {}),
        fastify: [starters.fastify, BULK],
        bare: [starters.bareParse, BULK],
      });
      const bulkScenario = (subject: string) =>
        `HTTP POST bulk of 1,000 products, ${storage}, ${subject}, 10 connections, every product updated, a fresh server each round`;
      const bulkRow = (
        subject: string,
        contender: string,
        baseline: string,
        against: NamedBaseline,
        target?: number,
      ): Row => {
        const figures = compare(bulk, contender, baseline, BATCH);
        return {
          name: `POST bulk 1,000, ${contender === "npmStart" ? "npm start" : "handler"}, ${storage}`,
          scenario: bulkScenario(subject),
          figure: figures.figure,
          unit: "products/s",
          baseline: { ...against, figure: figures.baseline, unit: "products/s" },
          ratio: figures.ratio,
          note: figures.note,
          ...(judged && target !== undefined
            ? { target: { label: `>= ${target.toFixed(1)}x`, minRatio: target } }
            : {}),
        };
      };
      const throughCatalog = { label: "fastify", name: "fastify, JSON.parse + importProducts on the same catalog" };
      if (npmStart) {
        rows.push(bulkRow("standalone server as `npm start` runs it", "npmStart", "fastify", throughCatalog, 1));
      }
      rows.push(bulkRow("handler alone", "catalog", "fastify", throughCatalog, 1));
      rows.push(bulkRow("handler alone", "catalog", "bare", BARE_PARSE, 0.8));
    }

    if (wanted("csv", PARTS)) {
      const csv = await alternateAlone(`POST CSV of 1,000 rows, ${storage}`, {
        catalog: [starters.catalog, CSV],
        bare: [starters.bareParse, CSV],
      });
      const csvFigures = compare(csv, "catalog", "bare", BATCH);
      rows.push({
        name: `POST CSV 1,000, handler, ${storage}`,
        scenario: `HTTP POST CSV of 1,000 rows, ${storage}, handler alone, 10 connections, every product updated, a fresh server each round`,
        figure: csvFigures.figure,
        unit: "rows/s",
        baseline: { ...BARE_PARSE, figure: csvFigures.baseline, unit: "rows/s" },
        ratio: csvFigures.ratio,
        note: csvFigures.note,
      });
    }
    if (storage === "redis" && redis !== undefined && wanted("key", PARTS)) {
      // With a key and without, on one server: the two sides share its process.
      const catalog = await starters.catalog();
      servers.push(catalog);
      rows.push(...(await keyRows(catalog, redis.url)));
    }
    for (const server of servers.splice(0)) await server.stop();
    if (redisPid !== undefined) forget(redisPid);
  }

  // PostgreSQL is compared with Redis through the standalone server, on GET and bulk only.
  const [get, bulk] = [wanted("get", PARTS), wanted("bulk", PARTS)];
  if (wanted("postgres", STORAGES) && (get || bulk)) {
    const [name, scenario] = ["HTTP, postgres", "HTTP scenarios with PostgreSQL storage"];
    if (redis === undefined || !havePostgres) {
      rows.push({
        name,
        scenario,
        figure: null,
        unit: "",
        note: unavailableNote(redis === undefined ? "redis" : "postgres"),
      });
    } else {
      try {
        rows.push(...(await postgresRows(redis.url, { get, bulk })));
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        progress(`${scenario} failed: ${message}`);
        rows.push({ name, scenario, figure: null, unit: "", note: `failed: ${message.slice(0, 600)}` });
        process.exitCode = 1;
      }
    }
  }

  // SQLite is compared with memory through the standalone server, on GET only.
  if (wanted("sqlite", STORAGES) && get) {
    try {
      rows.push(...(await sqliteRows()));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const scenario = "HTTP scenarios with SQLite storage";
      progress(`${scenario} failed: ${message}`);
      rows.push({ name: "HTTP, sqlite", scenario, figure: null, unit: "", note: `failed: ${message.slice(0, 600)}` });
      process.exitCode = 1;
    }
  }
} finally {
  for (const server of servers) await server.stop().catch(() => {});
  await redis?.stop();
}
for (const row of rows) emit(row);
