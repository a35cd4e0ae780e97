import { setTimeout as sleep } from "node:timers/promises";
import { fc, test } from "@fast-check/vitest";
import { expect } from "vitest";
import { createLimiter } from "../src/limiter.ts";

test.prop(
  [fc.integer({ min: 1, max: 4 }), fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.boolean()), { maxLength: 20 })],
  {
    numRuns: 100,
  },
)(
  "never runs more than `max` tasks at once, starts them in order, and settles each as its task did",
  async (max, tasks) => {
    const limiter = createLimiter(max);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const results = await Promise.allSettled(
      tasks.map(([ms, fails], i) =>
        limiter.run(async () => {
          started.push(i);
          peak = Math.max(peak, ++running);
          await sleep(ms);
          running--;
          if (fails) throw new Error(`task ${i}`);
          return i;
        }),
      ),
    );
    expect(peak).toBeLessThanOrEqual(max);
    expect(started).toEqual(tasks.map((_, i) => i));
    results.forEach((result, i) => {
      expect(result).toEqual(
        tasks[i]?.[1] ? { status: "rejected", reason: new Error(`task ${i}`) } : { status: "fulfilled", value: i },
      );
    });
  },
);

test("refuses a limit that could never run anything", () => {
  for (const max of [0, -1, 1.5, Number.NaN]) expect(() => createLimiter(max)).toThrow(RangeError);
});
