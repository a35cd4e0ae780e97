// What the import history costs a streamed import: the NDJSON body through the standalone server
// with its history on (the default: the import's record and progress written at most once a
// second while it runs, then its end) against the same server with `"history": false`, in alternating rounds
// (on, off, on, off...) on fresh servers and stores, so that the machine's drift falls on both
// alike. The row's figure is the median of the on rounds, its ratio the median of the per-round
// ratios; the note gives every round and the spread.
import { median } from "../measure.ts";
import { emit, guarded, progress, type Row } from "../report.ts";
import { available, SERVER, type Storage, startRig, unavailableNote } from "../rig.ts";
import { type Measured, rate, requireImported, streamCase } from "./cases.ts";
import { describe, LABEL, nameOf, sizeLabel } from "./rows.ts";
import { budget, configOf, count, fixed, megabytes, quick } from "./setup.ts";

/** Rounds of each side: enough for a median that one disturbed round does not move. */
const ROUNDS = quick ? 2 : 3;

/** The configuration of the baseline: the same server, recording nothing. */
const withoutHistory = (storage: object) => ({ ...configOf(storage), history: false });

async function oneImport(storage: Storage, history: boolean): Promise<Measured> {
  const rigged = await startRig(storage, history ? "history" : "no history", history ? configOf : withoutHistory);
  try {
    const { measured } = await streamCase(rigged, "ndjson");
    requireImported(measured, `${storage} ndjson, history ${history ? "on" : "off"}`);
    return measured;
  } finally {
    await rigged.stop();
  }
}

// "±0.4 %": how far the farthest value of a side lies from its median.
const spread = (values: readonly number[]) => {
  const middle = median(values);
  const far = Math.max(...values.map((value) => Math.abs(value - middle)));
  return `±${fixed((far / middle) * 100, 1)} %`;
};

function row(storage: Storage, on: readonly Measured[], off: readonly Measured[]): Row {
  const onRates = on.map(rate);
  const offRates = off.map(rate);
  const ratios = onRates.map((value, round) => value / (offRates[round] as number));
  const rounds = ratios
    .map(
      (ratio, round) =>
        `round ${round + 1}: on ${count(Math.round(onRates[round] as number))}, off ${count(Math.round(offRates[round] as number))} products/s (${fixed(ratio, 3)}x)`,
    )
    .join("; ");
  // The server's CPU a product, which a busy machine disturbs less than the wall clock.
  const cpu = (m: Measured) => (m.serverCpu * 1e6) / m.products;
  const cpuRatios = on.map((m, round) => cpu(m) / cpu(off[round] as Measured));
  const cpuNote = `server CPU a product: on ${on.map((m) => fixed(cpu(m), 2)).join(", ")} µs, off ${off.map((m) => fixed(cpu(m), 2)).join(", ")} µs, median ratio ${fixed(median(cpuRatios), 3)}x`;
  // The on round nearest the median, whose CPU and memory the note gives.
  const middle = on.reduce((best, m) =>
    Math.abs(rate(m) - median(onRates)) < Math.abs(rate(best) - median(onRates)) ? m : best,
  );
  return {
    name: nameOf(storage, "history"),
    scenario: `streamed ${LABEL.history} over HTTP, ${storage}, ${sizeLabel(middle)} in one chunked request, ${SERVER}, ${on.length} rounds each, alternated`,
    figure: median(onRates),
    unit: "products/s",
    baseline: {
      label: "history false",
      name: 'the same body through the same server configured with "history": false (no record, no progress), a fresh server and store, alternated with the subject',
      figure: median(offRates),
      unit: "products/s",
    },
    ratio: median(ratios),
    // Issue 39: recording and progress add at most 2 % to a streamed import's time.
    target: { label: ">= 0.98x", minRatio: 0.98 },
    note: `${rounds}; spread of the rounds about their median: on ${spread(onRates)}, off ${spread(offRates)}, ratios ${fixed(Math.min(...ratios), 3)}x to ${fixed(Math.max(...ratios), 3)}x; ${cpuNote}; a median on round: ${describe(middle)}`,
  };
}

/** The history's cost on `storage`: alternating rounds with and without it, one row. */
export async function historyPart(storage: Storage): Promise<void> {
  if (!available(storage)) {
    emit({
      name: nameOf(storage, "history"),
      scenario: LABEL.history,
      figure: null,
      unit: "",
      note: unavailableNote(storage),
    });
    return;
  }
  await guarded(nameOf(storage, "history"), `streamed ${LABEL.history}, ${storage}`, async () => {
    const on: Measured[] = [];
    const off: Measured[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const history of [true, false]) {
        progress(
          `${storage}: NDJSON, history ${history ? "on" : "off"}, round ${round}/${ROUNDS}, up to ${fixed(megabytes(budget), 0)} MB`,
        );
        const m = await oneImport(storage, history);
        (history ? on : off).push(m);
        const cpu = fixed((m.serverCpu * 1e6) / m.products, 2);
        progress(
          `  ${count(Math.round(rate(m)))} products/s in ${fixed(m.seconds, 2)} s, server CPU ${cpu} µs a product`,
        );
      }
    }
    emit(row(storage, on, off));
  });
}
