import { EventEmitter } from "node:events";
import type { IncomingMessage } from "node:http";
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { createAdmission, type Release } from "../src/admission.ts";

const request = () => new EventEmitter() as unknown as IncomingMessage;
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("createAdmission", () => {
  it("refuses limits that are not positive integers", () => {
    expect(() => createAdmission(0, 10)).toThrow(/maxUploadsPerToken/);
    expect(() => createAdmission(1, 0.5)).toThrow(/bodyBytesInFlight/);
  });

  it("drops a waiter whose client leaves, with ClientGoneError", async () => {
    const admission = createAdmission(1, 100);
    const owner = {};
    await admission.admit(owner, 10, request());
    const req = request();
    const waiting = admission.admit(owner, 10, req);
    req.emit("close");
    await expect(waiting).rejects.toMatchObject({ name: "ClientGoneError" });
  });

  // A model of what must hold after every step: no token over its share, no byte over the budget,
  // and nobody left waiting who would fit.
  test.prop([
    fc.integer({ min: 1, max: 3 }),
    fc.integer({ min: 1, max: 100 }),
    fc.array(
      fc.oneof(
        fc.record({ admit: fc.constant(true), owner: fc.nat(3), bytes: fc.nat(120) }),
        fc.record({ admit: fc.constant(false), pick: fc.nat() }),
      ),
      { maxLength: 40 },
    ),
  ])("never exceeds its limits and never leaves a body waiting that fits", async (perToken, budget, steps) => {
    const admission = createAdmission(perToken, budget);
    const owners = [{}, {}, {}, {}];
    const held: { owner: number; bytes: number; release: Release }[] = [];
    const waiting = new Set<{ owner: number; bytes: number }>();
    for (const step of steps) {
      if (step.admit) {
        const entry = { owner: step.owner, bytes: Math.min(step.bytes, budget) };
        waiting.add(entry);
        void admission.admit(owners[step.owner] as object, step.bytes, request()).then((release) => {
          waiting.delete(entry);
          held.push({ ...entry, release });
        });
      } else if (held.length > 0) {
        const [gone] = held.splice(step.pick % held.length, 1);
        gone?.release();
        gone?.release(); // twice gives back once
      }
      await settle();
      const used = held.reduce((sum, entry) => sum + entry.bytes, 0);
      expect(used).toBeLessThanOrEqual(budget);
      for (let owner = 0; owner < owners.length; owner++) {
        expect(held.filter((entry) => entry.owner === owner).length).toBeLessThanOrEqual(perToken);
      }
      for (const entry of waiting) {
        const mine = held.filter((h) => h.owner === entry.owner).length;
        expect(mine >= perToken || used + entry.bytes > budget).toBe(true);
      }
    }
  });
});
