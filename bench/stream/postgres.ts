// The streamed NDJSON import into PostgreSQL, against its floor (a bare COPY of the same rows into
// the same server, right after it) and against the Redis adapter's streamed import of the same
// body in the same run (measured here when the run did not measure it already).
import { describePostgres } from "../postgres.ts";
import { emit, guarded, progress, type Row } from "../report.ts";
import { available, type Rig, type Storage, startRig, unavailableNote } from "../rig.ts";
import { type Measured, rate, requireImported, streamCase } from "./cases.ts";
import { copyFloor, type Floor } from "./floor.ts";
import { cpuPerProductRows, describe, nameOf, subjectOf } from "./rows.ts";
import { budget, configOf, count, cpuRows, fixed, megabytes } from "./setup.ts";

/** The streamed NDJSON body into a fresh site of a fresh server on `rigged`. */
export async function ndjsonInto(rigged: Rig, what: string): Promise<Measured> {
  const { measured } = await streamCase(rigged, "ndjson");
  requireImported(measured, what);
  progress(`  ${count(Math.round(rate(measured)))} products/s, ${describe(measured)}`);
  return measured;
}

/**
 * `measured`, else `storage`'s NDJSON case measured now, on a rig of its own, as the baseline of
 * `rowsOf`'s rows (a storage's name as the rows say it); `undefined` when `storage` cannot run
 * here or its case failed.
 */
export async function ndjsonBaseline(
  measured: Measured | undefined,
  storage: Storage,
  rowsOf: string,
): Promise<Measured | undefined> {
  if (measured !== undefined || !available(storage)) return measured;
  let baseline: Measured | undefined;
  const name = `${nameOf(storage, "ndjson")} (${rowsOf}'s baseline)`;
  await guarded(name, `streamed NDJSON import, ${storage} (the ${rowsOf} rows' baseline)`, async () => {
    progress(
      `${storage}: streamed NDJSON import, up to ${fixed(megabytes(budget), 0)} MB (baseline of the ${rowsOf} rows)`,
    );
    const rigged = await startRig(storage, "ndjson", configOf);
    try {
      baseline = await ndjsonInto(rigged, `${storage} ndjson`);
    } finally {
      await rigged.stop();
    }
  });
  return baseline;
}

function describeFloor(floor: Floor): string {
  return [
    `${fixed(floor.seconds, 2)} s, ${fixed(megabytes(floor.bytes), 0)} MB of COPY text, ${fixed(megabytes(floor.bytes) / floor.seconds)} MB/s`,
    `client CPU ${fixed(floor.clientCpu, 2)} s (${fixed((floor.clientCpu * 1e6) / floor.products, 2)} µs a product: generating and encoding the rows)`,
    describePostgres(floor.postgres, floor.products),
    floor.matching === floor.products
      ? "every row equal to the adapter's (id, sku, body)"
      : `**${count(floor.matching ?? 0)} rows of ${count(floor.products)} equal to the adapter's**`,
  ].join(", ");
}

function rows(m: Measured, floor: Floor | undefined, redis: Measured | undefined): Row[] {
  const subject = subjectOf("postgres", "ndjson", m);
  const short = nameOf("postgres", "ndjson");
  const out: Row[] = [];
  if (floor !== undefined) {
    const floorRate = floor.products / floor.seconds;
    out.push({
      name: short,
      scenario: subject,
      figure: rate(m),
      unit: "products/s",
      baseline: {
        label: "COPY floor",
        name: `floor: a bare \`COPY ... FROM STDIN\` of the same ${count(floor.products)} products as rows (site, id, sku, canonical body) into a table with the adapter's columns, primary key (site, id) and unique (site, sku), COLLATE "C", on the same PostgreSQL right after, generated while sent`,
        figure: floorRate,
        unit: "products/s",
      },
      ratio: rate(m) / floorRate,
      target: { label: ">= 0.5x", minRatio: 0.5 },
      note: `${describe(m)}; floor: ${describeFloor(floor)}`,
    });
  }
  if (redis !== undefined) {
    const against = {
      label: "Redis",
      name: `the same body streamed into Redis (adapter-redis) through the same server, same run, ${count(redis.products)} products`,
    };
    out.push(
      {
        name: short,
        scenario: subject,
        figure: rate(m),
        unit: "products/s",
        baseline: { ...against, figure: rate(redis), unit: "products/s" },
        ratio: rate(m) / rate(redis),
        target: { label: ">= 1.0x", minRatio: 1 },
        note: `Redis: ${describe(redis)}`,
      },
      ...(cpuRows ? cpuPerProductRows(short, subject, m, redis, against) : []),
    );
  }
  if (m.peakRss !== undefined) {
    out.push({
      name: `peak RSS, ${short}`,
      scenario: `server peak RSS (VmHWM), ${subject}`,
      figure: megabytes(m.peakRss),
      unit: "MB",
      ...(redis?.peakRss === undefined
        ? {}
        : { baseline: { label: "Redis", name: "the same into Redis", figure: megabytes(redis.peakRss), unit: "MB" } }),
      // The staging lives in PostgreSQL: the server's peak is to stay under 300 MB.
      target: { label: "<= 300 MB", max: 300 },
      note: `fresh server; idle ${fixed(megabytes(m.idleRss), 0)} MB, ${m.halfRss === undefined ? "n/a" : fixed(megabytes(m.halfRss), 0)} MB at half the body`,
    });
  }
  if (cpuRows && floor !== undefined && m.postgres !== undefined) {
    out.push({
      name: `PostgreSQL CPU/product, ${short}`,
      scenario: `PostgreSQL CPU per product, ${subject}`,
      figure: (m.postgres.cpuSeconds * 1e6) / m.products,
      unit: "µs/product",
      baseline: {
        label: "COPY floor",
        name: "the floor's",
        figure: (floor.postgres.cpuSeconds * 1e6) / floor.products,
        unit: "µs/product",
      },
    });
  }
  return out;
}

/**
 * The PostgreSQL rows of the scenario: the NDJSON body into a fresh server on a fresh PostgreSQL,
 * then, with that server stopped, the floor into the same PostgreSQL. `redis` is the Redis
 * adapter's NDJSON case when the run measured it already. Resolves with the PostgreSQL case, the
 * SQLite rows' baseline.
 */
export async function postgresPart(redis: Measured | undefined): Promise<Measured | undefined> {
  if (!available("postgres")) {
    emit({
      name: "stream, postgres",
      scenario: "streamed imports into PostgreSQL",
      figure: null,
      unit: "",
      note: unavailableNote("postgres"),
    });
    return undefined;
  }
  const baseline = await ndjsonBaseline(redis, "redis", "PostgreSQL");
  let subject: Measured | undefined;
  let floor: Floor | undefined;
  await guarded(nameOf("postgres", "ndjson"), "streamed NDJSON import, postgres", async () => {
    progress(`postgres: streamed NDJSON import, up to ${fixed(megabytes(budget), 0)} MB`);
    const rigged = await startRig("postgres", "ndjson", configOf);
    try {
      subject = await ndjsonInto(rigged, "postgres ndjson");
      // The server's connections would otherwise stay open beside the floor's.
      await rigged.server.stop();
      progress(`postgres: the floor, a bare COPY of the same ${count(subject.products)} products`);
      floor = await copyFloor(rigged.postgres as NonNullable<Rig["postgres"]>, subject.products, true);
      progress(`  ${count(Math.round(floor.products / floor.seconds))} products/s, ${describeFloor(floor)}`);
      if (floor.matching !== floor.products) process.exitCode = 1;
    } finally {
      await rigged.stop();
    }
  });
  if (subject !== undefined) for (const row of rows(subject, floor, baseline)) emit(row);
  return subject;
}
