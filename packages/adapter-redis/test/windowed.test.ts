import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { windowed } from "../src/windowed.ts";

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("windowed", () => {
  test.prop([fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 30 }), fc.integer({ min: 1, max: 5 })])(
    "runs every item once, never more than `width` at a time",
    async (delays, width) => {
      let running = 0;
      let most = 0;
      const done: number[] = [];
      await windowed(delays.entries(), width, async ([index, delay]) => {
        running++;
        most = Math.max(most, running);
        await tick(delay);
        running--;
        done.push(index);
      });
      expect(done.sort((a, b) => a - b)).toEqual(delays.map((_, i) => i));
      expect(most).toBeLessThanOrEqual(width);
    },
  );

  test.prop([fc.integer({ min: 0, max: 19 }), fc.integer({ min: 1, max: 4 })])(
    "after a failure, starts nothing new, lets running tasks settle, and throws the first error",
    async (failAt, width) => {
      let pulled = 0;
      function* items() {
        for (let i = 0; i < 20; i++) {
          pulled++;
          yield i;
        }
      }
      let running = 0;
      const error = await windowed(items(), width, async (i) => {
        running++;
        await tick(1);
        running--;
        if (i === failAt) throw new Error(`item ${i}`);
      }).catch((e: unknown) => e);
      expect(error).toEqual(new Error(`item ${failAt}`));
      expect(running).toBe(0);
      expect(pulled).toBeLessThanOrEqual(failAt + width);
    },
  );
});
