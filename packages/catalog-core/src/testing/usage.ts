// The usage counter clauses of the storage contract (`countUsage`), registered by testCatalogStore
// beside the others: totals, reads, several counters in one call, adds that race, and expiry.
// Counters are global to a store, so each test counts under keys of its own.
import { setTimeout as sleep } from "node:timers/promises";
import { expect, test } from "vitest";
import type { CatalogStore } from "../store.ts";

const MINUTE = 60_000;
const counterKey = (name = "c") => `usage:${crypto.randomUUID()}:${name}`;

/** Registers the usage counter clauses; `store()` gives the store under test once it is open. */
export function testUsage(store: () => CatalogStore): void {
  const count = (key: string, amount: number, ttlMs = MINUTE) => store().countUsage([{ key, amount }], ttlMs);

  test("usage: a counter starts at 0 and answers its total after each add; 0 reads it", async () => {
    const key = counterKey();
    expect(await count(key, 0)).toEqual([0]);
    expect(await count(key, 5)).toEqual([5]);
    expect(await count(key, 1_000_000_000)).toEqual([1_000_000_005]);
    expect(await count(key, 0)).toEqual([1_000_000_005]);
    expect(await store().countUsage([], MINUTE)).toEqual([]);
  });

  test("usage: one call adds to several counters and answers in order, a key given twice counting twice", async () => {
    const [a, b, c] = [counterKey("a"), counterKey("b"), counterKey("c")];
    await count(b, 10);
    const counts = [
      { key: a, amount: 1 },
      { key: b, amount: 2 },
      { key: a, amount: 3 },
      { key: c, amount: 0 },
    ];
    expect(await store().countUsage(counts, MINUTE)).toEqual([1, 12, 4, 0]);
    expect(await store().countUsage(counts, MINUTE)).toEqual([5, 14, 8, 0]);
  });

  test("usage: counters of different keys are independent", async () => {
    const [a, b] = [counterKey("a"), counterKey("b")];
    expect(await count(a, 3)).toEqual([3]);
    expect(await count(b, 4)).toEqual([4]);
    expect(await count(`${a}x`, 0)).toEqual([0]);
    expect(await count(a, 0)).toEqual([3]);
  });

  test("usage: adds from many calls at once are never lost, and each sees a total of its own", async () => {
    const [one, other] = [counterKey("one"), counterKey("other")];
    const calls = 50;
    const answers = await Promise.all(
      Array.from({ length: calls }, (_, i) =>
        store().countUsage(
          [
            { key: one, amount: 1 },
            { key: other, amount: i + 1 },
          ],
          MINUTE,
        ),
      ),
    );
    // Atomic adds of 1 answer each total from 1 to `calls` exactly once.
    expect(answers.map(([total]) => total).sort((l, r) => (l as number) - (r as number))).toEqual(
      Array.from({ length: calls }, (_, i) => i + 1),
    );
    expect(await count(one, 0)).toEqual([calls]);
    expect(await count(other, 0)).toEqual([(calls * (calls + 1)) / 2]);
  });

  test("usage: a counter is gone ttlMs after its first add, later adds not extending it, and starts again at 0", async () => {
    const [key, untouched] = [counterKey(), counterKey("untouched")];
    // A ttl long beside a loaded machine's round trips, and the wait for its end measured from
    // the first add, so that neither assertion depends on how long the calls took.
    const ttlMs = 1_000;
    const first = performance.now();
    expect(await count(key, 2, ttlMs)).toEqual([2]);
    expect(await count(untouched, 7, 60_000)).toEqual([7]);
    await sleep(300);
    expect(await count(key, 1, ttlMs)).toEqual([3]);
    await sleep(Math.max(0, ttlMs - (performance.now() - first)) + 150);
    expect(await count(key, 0, ttlMs)).toEqual([0]);
    expect(await count(key, 4, ttlMs)).toEqual([4]);
    expect(await count(untouched, 0, 60_000)).toEqual([7]);
  });
}
