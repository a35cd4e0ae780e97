import fc from "fast-check";
import { expect, it } from "vitest";
import { KeyTable } from "../src/profiles/key-table.ts";

it("keeps the first position of every name through its growth, and knows no other name", () => {
  fc.assert(
    fc.property(fc.uniqueArray(fc.string({ maxLength: 12 }), { minLength: 1, maxLength: 3_000 }), (names) => {
      const table = new KeyTable();
      for (const [i, name] of names.entries()) table.add(name, i + 1);
      // A name added again keeps the position where its group began.
      table.add(names[0] as string, 999_999);
      for (const [i, name] of names.entries()) expect(table.get(name)).toBe(i + 1);
      expect(table.get(`${names.join("|")}-absent`)).toBeUndefined();
    }),
    { numRuns: 40 },
  );
});

it("holds a million names in 12 bytes a slot, a quarter of its slots free at least", () => {
  const table = new KeyTable();
  for (let i = 0; i < 1_000_000; i++) table.add(`handle-${i}`, i);
  expect(table.get("handle-0")).toBe(0);
  expect(table.get("handle-999999")).toBe(999_999);
  expect(table.get("handle-1000000")).toBeUndefined();
  const slots = (table as unknown as { at: Uint32Array }).at.length;
  expect(slots * 12).toBeLessThanOrEqual(24 * 1024 * 1024);
  expect(1_000_000 / slots).toBeLessThanOrEqual(0.75);
});
