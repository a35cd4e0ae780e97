// The cost of an `Idempotency-Key` on the HTTP bulk import into Redis: the same load with a key
// never sent before on every request (claimed, the body hashed, the key recorded with the commit)
// and without one, against the same server, alternating round after round.
import type { Row } from "../report.ts";
import { cpuSecondsOf, forget, killRedisOnExit } from "../standalone.ts";
import { alternate, compare } from "./load.ts";
import type { Running } from "./servers.ts";
import { BATCH, BULK, BULK_KEYED, quick } from "./setup.ts";

const SUBJECT =
  "HTTP POST bulk of 1,000 products, redis, handler alone, a fresh Idempotency-Key on every request, 10 connections, every product updated";
const BASELINE = { label: "no key", name: "the same load without the header, same server" };
const NAME = "POST bulk 1,000 + key, handler, redis";
// Twice the other rows' rounds: a bound of 5 % needs a median steadier than three rounds give on a
// machine whose server, store and load generator share the cores.
const ROUNDS = quick ? 1 : 6;

/** The keyed bulk import against the same without a key, on `catalog` (the handler on the redis-server at `redisUrl`). */
export async function keyRows(catalog: Running, redisUrl: string): Promise<Row[]> {
  const redisPid = await killRedisOnExit(redisUrl);
  try {
    const watched: Running = { ...catalog, storeCpuSeconds: () => cpuSecondsOf(redisPid) };
    const rates = await alternate(
      "POST bulk of 1,000, redis, with and without Idempotency-Key",
      {
        keyed: [watched, BULK_KEYED],
        plain: [watched, BULK],
      },
      ROUNDS,
    );
    const products = compare(rates, "keyed", "plain", BATCH);
    const requests = compare(rates, "keyed", "plain");
    const rows: Row[] = [
      {
        name: NAME,
        scenario: SUBJECT,
        figure: products.figure,
        unit: "products/s",
        baseline: { ...BASELINE, figure: products.baseline, unit: "products/s" },
        ratio: products.ratio,
        note: `${products.note}; store CPU: redis-server`,
        // The bound: an import with a key costs at most 5 % more than one without.
        ...(quick ? {} : { target: { label: ">= 0.95x", minRatio: 0.95 } }),
      },
    ];
    if (requests.cpu !== undefined && requests.baselineCpu !== undefined) {
      rows.push({
        name: "server CPU per request, POST bulk 1,000 + key, redis",
        scenario: `${SUBJECT}: server CPU per request`,
        figure: requests.cpu,
        unit: "µs/request",
        baseline: { ...BASELINE, figure: requests.baselineCpu, unit: "µs/request" },
        ...(requests.cpuRatio === undefined ? {} : { ratio: requests.cpuRatio }),
        note: requests.note,
      });
    }
    return rows;
  } finally {
    forget(redisPid);
  }
}
