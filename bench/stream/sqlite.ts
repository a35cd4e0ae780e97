// The streamed NDJSON import into SQLite (a fresh database file of its own), against the
// PostgreSQL adapter's streamed import of the same body in the same run (measured here, without
// its floor, when the run did not measure it already), and the server's peak RSS.
import { emit, guarded, progress, type Row } from "../report.ts";
import { available, startRig, unavailableNote } from "../rig.ts";
import { type Measured, rate } from "./cases.ts";
import { ndjsonBaseline, ndjsonInto } from "./postgres.ts";
import { describe, nameOf, subjectOf } from "./rows.ts";
import { budget, configOf, count, fixed, megabytes } from "./setup.ts";

function rows(m: Measured, postgres: Measured | undefined): Row[] {
  const subject = subjectOf("sqlite", "ndjson", m);
  const short = nameOf("sqlite", "ndjson");
  const against = {
    label: "PostgreSQL",
    name: `the same body streamed into PostgreSQL (adapter-postgres, a private server) through the same server, same run${postgres === undefined ? "" : `, ${count(postgres.products)} products`}`,
  };
  return [
    postgres === undefined
      ? {
          name: short,
          scenario: subject,
          figure: rate(m),
          unit: "products/s",
          note: `no baseline: ${available("postgres") ? "the PostgreSQL case failed" : unavailableNote("postgres")}; ${describe(m)}`,
        }
      : {
          name: short,
          scenario: subject,
          figure: rate(m),
          unit: "products/s",
          baseline: { ...against, figure: rate(postgres), unit: "products/s" },
          ratio: rate(m) / rate(postgres),
          target: { label: ">= 1.0x", minRatio: 1 },
          note: `${describe(m)}; PostgreSQL: ${describe(postgres)}`,
        },
    ...(m.peakRss === undefined
      ? []
      : [
          {
            name: `peak RSS, ${short}`,
            scenario: `server peak RSS (VmHWM), ${subject}`,
            figure: megabytes(m.peakRss),
            unit: "MB",
            ...(postgres?.peakRss === undefined
              ? {}
              : {
                  baseline: {
                    label: "PostgreSQL",
                    name: "the same into PostgreSQL",
                    figure: megabytes(postgres.peakRss),
                    unit: "MB",
                  },
                }),
            // The products live in the file and SQLite's page cache: the server's peak is to stay under 300 MB.
            target: { label: "<= 300 MB", max: 300 },
            note: `fresh server and database file; idle ${fixed(megabytes(m.idleRss), 0)} MB, ${m.halfRss === undefined ? "n/a" : fixed(megabytes(m.halfRss), 0)} MB at half the body`,
          } satisfies Row,
        ]),
  ];
}

/**
 * The SQLite rows of the scenario: the NDJSON body into a fresh server on a fresh database file.
 * `postgres` is the PostgreSQL adapter's NDJSON case when the run measured it already; otherwise
 * it is measured first, for the purpose, when PostgreSQL is available here.
 */
export async function sqlitePart(postgres: Measured | undefined): Promise<void> {
  const baseline = await ndjsonBaseline(postgres, "postgres", "SQLite");
  await guarded(nameOf("sqlite", "ndjson"), "streamed NDJSON import, sqlite", async () => {
    progress(`sqlite: streamed NDJSON import, up to ${fixed(megabytes(budget), 0)} MB`);
    const rigged = await startRig("sqlite", "ndjson", configOf);
    let subject: Measured;
    try {
      subject = await ndjsonInto(rigged, "sqlite ndjson");
    } finally {
      await rigged.stop();
    }
    for (const row of rows(subject, baseline)) emit(row);
  });
}
