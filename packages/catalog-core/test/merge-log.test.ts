// The log a merge keeps of its records: read back as written, in the memory its compressed bytes take.
import { expect, test } from "vitest";
import { MergeLog } from "../src/merge-stage.ts";

// A step of price-and-stock records, as a CSV merge logs them.
function step(first: number) {
  const records = Array.from({ length: 500 }, (_, i) => ({
    sku: `SKU-${((first + i) * 7919).toString(36)}`,
    price: (((first + i) * 37) % 10_000) / 100,
    available: i % 3 !== 0,
  }));
  return { positions: records.map((_, i) => first + i), records, targets: records.map((_, i) => `id-${first + i}`) };
}

test("a merge's log reads back as written, each step in memory of its own compressed size", () => {
  const log = new MergeLog();
  const steps = [0, 500, 1_000, 1_500].map(step);
  for (const written of steps) log.append(written);
  expect([...log.peek()]).toEqual(steps);
  // zlib writes into 16 KB pieces, and Buffer's pool (Node.js 24) into 64 KB slabs: a step's ~7 KB kept in
  // either would take more than twice its size.
  for (const bytes of (log as unknown as { chunks: Buffer[] }).chunks) {
    expect(bytes.length).toBeGreaterThan(4_096);
    expect(bytes.buffer.byteLength).toBe(bytes.length);
  }
  expect([...log.read()]).toEqual(steps);
  expect([...log.peek()]).toEqual([]);
});
