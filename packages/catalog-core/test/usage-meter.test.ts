// The usage meter over the memory store, on a fake clock: windows aligned to the clock, counts
// settled and read back, several meters over one store agreeing within the margin the README
// documents, running counts across meters, and a failed settle losing nothing.
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createUsageMeter, RUNNING_SLOT_MS, type UsageMeter } from "../src/index.ts";

const MINUTE = 60_000;
const SETTLE = 250;

function clock(start = 1_000 * MINUTE) {
  const state = { t: start };
  return { state, now: () => state.t };
}

function meters(count: number, now: () => number, store = createMemoryStore()): UsageMeter[] {
  return Array.from({ length: count }, () => createUsageMeter({ store, now, settleEveryMs: 0 }));
}

describe("a window count", () => {
  it("admits up to its limit in a window aligned to the clock, then again in the next", () => {
    const { state, now } = clock(1_000 * MINUTE + 20_000);
    const [meter] = meters(1, now) as [UsageMeter];
    const count = meter.window("token", "requests", MINUTE);
    for (let i = 0; i < 3; i++) expect(count.take(now(), 1, 3)).toBe(true);
    expect(count.take(now(), 1, 3)).toBe(false);
    expect(count.used(now())).toBe(3);
    expect(count.endOf(now())).toBe(1_001 * MINUTE);
    state.t = 1_001 * MINUTE;
    expect(count.used(now())).toBe(0);
    expect(count.take(now(), 3, 3)).toBe(true);
    expect(count.take(now(), 1, 3)).toBe(false);
    expect(count.add(now(), 5)).toBe(8);
  });

  it("is the same object for the same owner, quota and window, and another for another owner", () => {
    const [meter] = meters(1, Date.now) as [UsageMeter];
    expect(meter.window("a", "requests", MINUTE)).toBe(meter.window("a", "requests", MINUTE));
    expect(meter.window("a", "requests", MINUTE)).not.toBe(meter.window("b", "requests", MINUTE));
    // Owners and quotas never run together into one key.
    expect(meter.window("a:b", "c", MINUTE)).not.toBe(meter.window("a", "b:c", MINUTE));
  });

  it("settles with the store: each meter sees the other's counts after its next settle", async () => {
    const { now } = clock();
    const [a, b] = meters(2, now) as [UsageMeter, UsageMeter];
    const countA = a.window("t", "requests", MINUTE);
    const countB = b.window("t", "requests", MINUTE);
    for (let i = 0; i < 5; i++) countA.take(now(), 1, 100);
    countB.take(now(), 1, 100);
    await a.settle();
    expect(countA.used(now())).toBe(5);
    await b.settle();
    expect(countB.used(now())).toBe(6);
    await a.settle();
    expect(countA.used(now())).toBe(6);
    expect(countA.take(now(), 95, 100)).toBe(false);
    expect(countA.take(now(), 94, 100)).toBe(true);
  });

  it("counts what arrives while a settle is under way once, neither lost nor twice", async () => {
    const { now } = clock();
    const [a, b] = meters(2, now) as [UsageMeter, UsageMeter];
    const count = a.window("t", "bytes", MINUTE);
    count.add(now(), 300);
    const settling = a.settle();
    count.add(now(), 200);
    expect(count.used(now())).toBe(500);
    await settling;
    expect(count.used(now())).toBe(500);
    await a.settle();
    expect(count.used(now())).toBe(500);
    b.window("t", "bytes", MINUTE).used(now());
    await b.settle();
    expect(b.window("t", "bytes", MINUTE).used(now())).toBe(500);
  });

  it("keeps the counts of a failed settle for the next one, and says it failed", async () => {
    const { now } = clock();
    const store = createMemoryStore();
    let down = true;
    const failures: unknown[] = [];
    const flaky = {
      countUsage: (counts: Parameters<typeof store.countUsage>[0], ttlMs: number) =>
        down ? Promise.reject(new Error("down")) : store.countUsage(counts, ttlMs),
    };
    const meter = createUsageMeter({ store: flaky, now, settleEveryMs: 0, onError: (e) => failures.push(e) });
    const count = meter.window("t", "requests", MINUTE);
    count.add(now(), 7);
    await meter.settle();
    expect(failures).toHaveLength(1);
    expect(count.used(now())).toBe(7);
    down = false;
    await meter.settle();
    expect(await store.countUsage([{ key: '["t","requests",60000,60000000]', amount: 0 }], MINUTE)).toEqual([7]);
  });

  it("drops the counts of a window that ended before they were settled", async () => {
    const { state, now } = clock();
    const store = createMemoryStore();
    const [a, b] = meters(2, now, store) as [UsageMeter, UsageMeter];
    a.window("t", "requests", MINUTE).add(now(), 4);
    state.t += MINUTE;
    await a.settle();
    b.window("t", "requests", MINUTE).used(now());
    await b.settle();
    expect(b.window("t", "requests", MINUTE).used(now())).toBe(0);
  });
});

// The admissions of one meter in its busiest span of `span` ms.
function busiest(times: readonly number[], span: number): number {
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while ((times[i] as number) - (times[j] as number) > span) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe("meters over one store", () => {
  it("never admit more than the quota plus what the others admitted in two settle intervals (fast-check)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 40 }),
        fc.array(fc.integer({ min: 0, max: SETTLE - 1 }), { minLength: 3, maxLength: 3 }),
        fc.array(fc.record({ meter: fc.nat(2), gap: fc.integer({ min: 0, max: 120 }) }), { maxLength: 300 }),
        async (count, limit, phases, requests) => {
          const { state, now } = clock();
          const all = meters(count, now);
          const counts = all.map((meter) => meter.window("t", "requests", MINUTE));
          const admitted: number[][] = all.map(() => []);
          const nextSettle = phases.slice(0, count);
          for (const { meter, gap } of requests) {
            const until = state.t + gap;
            // Every meter settles every SETTLE ms, each at its own phase, as its timer would.
            for (;;) {
              const due = Math.min(...nextSettle);
              if (1_000 * MINUTE + due > until) break;
              const which = nextSettle.indexOf(due);
              state.t = 1_000 * MINUTE + due;
              await all[which]?.settle();
              nextSettle[which] = due + SETTLE;
            }
            state.t = until;
            const at = meter % count;
            if (counts[at]?.take(now(), 1, limit)) admitted[at]?.push(state.t);
          }
          const total = admitted.reduce((sum, times) => sum + times.length, 0);
          const blind = admitted.map((times) => busiest(times, 2 * SETTLE));
          const blindSum = blind.reduce((sum, n) => sum + n, 0);
          const margin = Math.max(...blind.map((own) => blindSum - own));
          for (const times of admitted) expect(times.length).toBeLessThanOrEqual(limit);
          expect(total).toBeLessThanOrEqual(limit + margin);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("a running count", () => {
  it("admits up to its limit across meters once settled, and frees the places once ended", async () => {
    const { state, now } = clock();
    const [a, b] = meters(2, now) as [UsageMeter, UsageMeter];
    const runA = a.running("t", "imports:shop");
    const runB = b.running("t", "imports:shop");
    const first = runA.enter(now(), 2);
    const second = runA.enter(now(), 2);
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    expect(runA.enter(now(), 2)).toBeUndefined();
    await a.settle();
    await b.settle();
    expect(runB.running()).toBe(2);
    expect(runB.enter(now(), 2)).toBeUndefined();
    first?.();
    first?.();
    second?.();
    expect(runA.running()).toBe(0);
    // The others' reports stand for their slot and the next: the places come back within two slots.
    for (let i = 0; i < 2 * (RUNNING_SLOT_MS / SETTLE) + 1; i++) {
      state.t += SETTLE;
      await a.settle();
      await b.settle();
    }
    expect(runB.running()).toBe(0);
    const third = runB.enter(now(), 2);
    expect(third).toBeDefined();
    await b.settle();
    await a.settle();
    expect(runA.running()).toBe(1);
  });

  it("never lets more than the limit run across meters that settle twice between two starts (fast-check)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.array(
          fc.record({
            meter: fc.nat(2),
            leave: fc.boolean(),
            gap: fc.integer({ min: 0, max: 1_500 }),
            order: fc.nat(5),
          }),
          { maxLength: 80 },
        ),
        async (limit, steps) => {
          const { state, now } = clock();
          const all = meters(3, now);
          const counts = all.map((meter) => meter.running("t", "imports:shop"));
          const running: (() => void)[][] = all.map(() => []);
          for (const { meter, leave, gap, order } of steps) {
            state.t += gap;
            const at = meter % all.length;
            if (leave) running[at]?.pop()?.();
            else {
              const release = counts[at]?.enter(now(), limit);
              if (release !== undefined) running[at]?.push(release);
            }
            expect(running.reduce((sum, own) => sum + own.length, 0)).toBeLessThanOrEqual(limit);
            // Every meter settles twice before the next step, in an order of the step's choosing:
            // once to report, once to read what the others reported (a start is unseen until both).
            const turn = [...all.slice(order % all.length), ...all.slice(0, order % all.length)];
            for (const each of [...turn, ...turn]) await each.settle();
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it("still sees another meter's imports in a new slot before that meter has reported into it", async () => {
    const { state, now } = clock();
    const [a, b] = meters(2, now) as [UsageMeter, UsageMeter];
    a.running("t", "imports:shop").enter(now(), 5);
    await a.settle();
    const runB = b.running("t", "imports:shop");
    await b.settle();
    expect(runB.running()).toBe(1);
    state.t += RUNNING_SLOT_MS;
    await b.settle();
    expect(runB.running()).toBe(1);
  });

  it("counts an import that started and ended between two settles in the next report", async () => {
    const { now } = clock();
    const [a, b] = meters(2, now) as [UsageMeter, UsageMeter];
    const leave = a.running("t", "imports:shop").enter(now(), 5);
    leave?.();
    await a.settle();
    b.running("t", "imports:shop");
    await b.settle();
    expect(b.running("t", "imports:shop").running()).toBe(1);
  });
});
