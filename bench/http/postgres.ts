// The HTTP rows of PostgreSQL storage: the standalone server as `npm start` runs it on a private
// PostgreSQL, against the same server on Redis, the two loaded with the same products, each alone
// in a fresh process every round: GET by id, and POST bulk of 1,000 products.
import { postgresCpuSeconds, startBenchPostgres } from "../postgres.ts";
import type { Row } from "../report.ts";
import { cpuSecondsOf, forget, killRedisOnExit } from "../standalone.ts";
import { alternateAlone, compare } from "./load.ts";
import { startNpmStart } from "./servers.ts";
import { aloneRounds, BATCH, BULK, GENERATOR, GET, getSeconds, quick, stored } from "./setup.ts";

const SERVER = "standalone server as `npm start` runs it (access log on)";
const BASELINE = { label: "Redis", name: "the same server on Redis (adapter-redis), the same products" };

/**
 * GET by id and POST bulk (as `parts` asks) through the standalone server on a fresh PostgreSQL
 * against the same on the redis-server at `redisUrl`; each server loads the products over HTTP.
 */
export async function postgresRows(redisUrl: string, parts: { get: boolean; bulk: boolean }): Promise<Row[]> {
  const rows: Row[] = [];
  const postgres = await startBenchPostgres();
  const redisPid = await killRedisOnExit(redisUrl);
  try {
    const onPostgres = () =>
      startNpmStart({
        name: "postgres",
        section: { adapter: "postgres", url: postgres.url },
        cpuSeconds: () => postgresCpuSeconds(postgres.pid),
      });
    const onRedis = () =>
      startNpmStart({
        name: "redis",
        section: { adapter: "redis", url: redisUrl, keyPrefix: "bench-npm" },
        cpuSeconds: () => cpuSecondsOf(redisPid),
      });
    const n = stored.toLocaleString("en-US");
    const storeNote = "; store CPU: every PostgreSQL process, or redis-server";

    if (parts.get) {
      const get = await alternateAlone("GET by id, postgres against redis", {
        postgres: [onPostgres, GET],
        redis: [onRedis, GET],
      });
      const figures = compare(get, "postgres", "redis");
      rows.push({
        name: "GET by id, npm start, postgres",
        scenario: `HTTP GET by id, postgres, ${SERVER}, ${GENERATOR}, 50 connections, ${getSeconds} s x ${aloneRounds}, a fresh server each round (${n} products stored)`,
        figure: figures.figure,
        unit: "req/s",
        baseline: { ...BASELINE, figure: figures.baseline, unit: "req/s" },
        ratio: figures.ratio,
        note: figures.note + storeNote,
        ...(quick ? {} : { target: { label: ">= 0.8x", minRatio: 0.8 } }),
      });
    }
    if (parts.bulk) {
      const bulk = await alternateAlone("POST bulk of 1,000, postgres against redis", {
        postgres: [onPostgres, BULK],
        redis: [onRedis, BULK],
      });
      const figures = compare(bulk, "postgres", "redis", BATCH);
      rows.push({
        name: "POST bulk 1,000, npm start, postgres",
        scenario: `HTTP POST bulk of 1,000 products, postgres, ${SERVER}, 10 connections, every product updated, a fresh server each round`,
        figure: figures.figure,
        unit: "products/s",
        baseline: { ...BASELINE, figure: figures.baseline, unit: "products/s" },
        ratio: figures.ratio,
        note: figures.note + storeNote,
      });
    }
  } finally {
    await postgres.stop();
    forget(redisPid);
  }
  return rows;
}
