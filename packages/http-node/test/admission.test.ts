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

  // The budget is the operator's to choose, down to one body's worth: whatever one token holds,
  // the largest body of another is admitted at once.
  test.prop([fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 1_000 }), fc.array(fc.nat(2_000))])(
    "admits another token's body at once, whatever one token holds",
    async (perToken, budget, sizes) => {
      const admission = createAdmission(perToken, budget);
      const slow = {};
      for (const bytes of sizes.slice(0, perToken)) void admission.admit(slow, bytes, request());
      await settle();
      let admitted = false;
      void admission.admit({}, budget * 2, request()).then(() => {
        admitted = true;
      });
      await settle();
      expect(admitted).toBe(true);
    },
  );

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
    const half = budget / 2;
    const owners = [{}, {}, {}, {}];
    const held: { owner: number; bytes: number; release: Release }[] = [];
    const waiting = new Set<{ owner: number; bytes: number }>();
    for (const step of steps) {
      if (step.admit) {
        const entry = { owner: step.owner, bytes: Math.min(step.bytes, half) };
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
      const mine = (owner: number) => held.filter((entry) => entry.owner === owner);
      const bytesOf = (owner: number) => mine(owner).reduce((sum, entry) => sum + entry.bytes, 0);
      for (let owner = 0; owner < owners.length; owner++) {
        expect(mine(owner).length).toBeLessThanOrEqual(perToken);
        expect(bytesOf(owner)).toBeLessThanOrEqual(half);
      }
      for (const entry of waiting) {
        const full = mine(entry.owner).length >= perToken || bytesOf(entry.owner) + entry.bytes > half;
        expect(full || used + entry.bytes > budget).toBe(true);
        // One token never keeps another out: a body waits only while others hold bytes too.
        expect(held.every((h) => h.owner === entry.owner) && mine(entry.owner).length > 0 ? full : true).toBe(true);
      }
    }
  });
});
