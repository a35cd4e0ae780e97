// The delivery queue clauses of the storage contract (`saveImport`'s deliveries,
// `claimDeliveries`, `settleDelivery`), registered by testCatalogStore beside the others. The
// queue is one per store: each test enqueues ids of its own, due in a time of its own far from
// the clock, looks only at its own among what it claims, and settles them all before it ends.
import { expect, test } from "vitest";
import type { CatalogStore, ClaimedDelivery, Delivery } from "../store.ts";
import { uniqueSite } from "./arbitraries.ts";

const LEASE = 60_000;

/** Registers the delivery queue clauses; `store()` gives the store under test once it is open. */
export function testDeliveries(store: () => CatalogStore): void {
  // A test's own deliveries, and a time of its own: each test starts a year after the one before.
  let epoch = 4_000_000_000_000;
  function queue() {
    const prefix = `d${crypto.randomUUID().replaceAll("-", "")}`;
    const t0 = (epoch += 365 * 24 * 3_600_000);
    const made = new Set<string>();
    const delivery = (name: string, at: number, value = `{"name":"${name}"}`): Delivery => {
      made.add(`${prefix}${name}`);
      return { id: `${prefix}${name}`, dueAt: t0 + at, value };
    };
    const enqueue = (...deliveries: Delivery[]) =>
      store().saveImport(uniqueSite(), { id: "000000000001a", value: "{}" }, { deliveries });
    const own = (claimed: readonly ClaimedDelivery[]) => claimed.filter(({ id }) => made.has(id));
    const claim = async (at: number, limit = 1_000, leaseMs = LEASE) =>
      own(await store().claimDeliveries(t0 + at, leaseMs, limit));
    const names = (claimed: readonly ClaimedDelivery[]) => claimed.map(({ id }) => id.slice(prefix.length));
    // Settles every delivery of the test that is still queued (far in its future, every lease lapsed).
    const cleanUp = async () => {
      for (const { id, lease } of await claim(100 * LEASE)) await store().settleDelivery(id, lease);
    };
    return { t0, delivery, enqueue, claim, names, cleanUp };
  }

  test("deliveries: one saved with a record is claimed once due, with its value, and not before", async () => {
    const q = queue();
    const a = q.delivery("a", 1_000, '{"url":"https://example.com/hook","é":"😀"}');
    await q.enqueue(a);
    expect(await q.claim(999)).toEqual([]);
    const [claimed, ...rest] = await q.claim(1_000);
    expect(rest).toEqual([]);
    expect(claimed).toMatchObject({ id: a.id, dueAt: a.dueAt, value: a.value });
    expect(typeof claimed?.lease).toBe("string");
    expect(await store().settleDelivery(a.id, claimed?.lease as string)).toBe(true);
    await q.cleanUp();
  });

  test("deliveries: earliest due first, at most limit a claim", async () => {
    const q = queue();
    await q.enqueue(q.delivery("c", 30), q.delivery("a", 10), q.delivery("b", 20), q.delivery("d", 40));
    // Others' deliveries may come first in the store's order: the limit is checked on a store
    // that holds only this test's due ones, so the claim is made at a time only they are due in.
    const first = await q.claim(35, 2);
    expect(q.names(first).length).toBeLessThanOrEqual(2);
    const all = [...first, ...(await q.claim(35))];
    expect(q.names(all).sort()).toEqual(["a", "b", "c"]);
    expect(q.names(all)).toEqual(["a", "b", "c"].slice(0, all.length));
    await q.cleanUp();
  });

  test("deliveries: a leased delivery is not claimed again until its lease lapses; the lapsed lease settles nothing", async () => {
    const q = queue();
    const a = q.delivery("a", 0);
    await q.enqueue(a);
    const [first] = await q.claim(0, 10, 5_000);
    expect(first?.id).toBe(a.id);
    expect(await q.claim(4_999)).toEqual([]);
    const [second] = await q.claim(5_000);
    expect(second?.id).toBe(a.id);
    expect(second?.lease).not.toBe(first?.lease);
    expect(await store().settleDelivery(a.id, first?.lease as string)).toBe(false);
    expect(await store().settleDelivery(a.id, second?.lease as string)).toBe(true);
    expect(await store().settleDelivery(a.id, second?.lease as string)).toBe(false);
    expect(await q.claim(100 * LEASE)).toEqual([]);
  });

  test("deliveries: a delivery whose lease lapsed is claimed in the order of its dueAt, not of its lease's end", async () => {
    const q = queue();
    await q.enqueue(q.delivery("a", 0));
    expect(q.names(await q.claim(0, 10, 1_000))).toEqual(["a"]);
    await q.enqueue(q.delivery("b", 500));
    // At 2,000 both are free: `a` (due at 0, its lease ended at 1,000) comes before `b` (due at 500).
    expect(q.names(await q.claim(2_000))).toEqual(["a", "b"]);
    await q.cleanUp();
  });

  test("deliveries: settled with next, a delivery is due again then with its new value, unleased", async () => {
    const q = queue();
    const a = q.delivery("a", 0, '{"attempt":1}');
    await q.enqueue(a);
    const [claimed] = await q.claim(0);
    const next = { dueAt: q.t0 + 10, value: '{"attempt":2}' };
    expect(await store().settleDelivery(a.id, claimed?.lease as string, next)).toBe(true);
    expect(await q.claim(9)).toEqual([]);
    // Due at 10 though the old lease would run to 60,000: settling ended it.
    const [again] = await q.claim(10);
    expect(again).toMatchObject({ id: a.id, dueAt: next.dueAt, value: next.value });
    expect(await store().settleDelivery(a.id, claimed?.lease as string)).toBe(false);
    await q.cleanUp();
  });

  test("deliveries: an id the store holds is left as it is when saved again, leased or not", async () => {
    const q = queue();
    await q.enqueue(q.delivery("a", 0, '{"v":1}'));
    await q.enqueue(q.delivery("a", 0, '{"v":2}'));
    const [claimed, ...rest] = await q.claim(0);
    expect(rest).toEqual([]);
    expect(claimed?.value).toBe('{"v":1}');
    await q.enqueue(q.delivery("a", 0, '{"v":3}'));
    expect(await q.claim(1)).toEqual([]);
    expect(await store().settleDelivery(claimed?.id as string, claimed?.lease as string)).toBe(true);
    await q.cleanUp();
  });

  test("deliveries: claims made at once never hand out one delivery twice", async () => {
    const q = queue();
    const made = Array.from({ length: 40 }, (_, i) => q.delivery(`n${i}`, i));
    await q.enqueue(...made);
    const claims = await Promise.all(Array.from({ length: 8 }, () => q.claim(100, 7)));
    const ids = claims.flat().map(({ id }) => id);
    expect(new Set(ids).size).toBe(ids.length);
    await q.cleanUp();
  });
}
