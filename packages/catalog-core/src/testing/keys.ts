// The idempotency-key clauses of the storage contract (`CatalogStore.claimKey`, clause 6 of
// `StagedImport.commit`), registered by testCatalogStore beside the others: claims, records
// written with the products and only then, expiry, sites apart, and one winner among racers.
import { setTimeout as sleep } from "node:timers/promises";
import fc from "fast-check";
import { expect, test } from "vitest";
import type { Product } from "../product.ts";
import type { Site } from "../site.ts";
import type { CatalogStore, CommitResult, KeyToRecord, WriteOptions } from "../store.ts";
import { sampleProduct, uniqueSite } from "./arbitraries.ts";

const HOUR = 60 * 60 * 1000;
const keyOf = (key: string, fingerprint = "f1", retainMs = HOUR, claimed = true): KeyToRecord => ({
  key,
  fingerprint,
  retainMs,
  claimed,
});

// One import of `products` in one chunk, committed with `key`.
async function commitWith(
  store: CatalogStore,
  site: Site,
  products: readonly Product[],
  key: KeyToRecord | undefined,
  options: WriteOptions = { dryRun: false },
): Promise<CommitResult> {
  const staged = await store.beginImport(site, options);
  await staged.add(
    products,
    products.map((_, i) => i + 1),
  );
  return staged.commit(key);
}

/** Registers the idempotency-key clauses; `store()` gives the store under test once it is open. */
export function testKeys(store: () => CatalogStore, numRuns: number): void {
  const claim = (site: Site, key: string, leaseMs = HOUR) => store().claimKey(site, key, leaseMs);

  test("keys: a claim holds the key until released, and then it can be claimed again", async () => {
    const site = uniqueSite();
    const first = await claim(site, "k1");
    expect(first.state).toBe("claimed");
    expect(await claim(site, "k1")).toEqual({ state: "busy" });
    expect((await claim(site, "k2")).state).toBe("claimed");
    if (first.state === "claimed") await first.release();
    const again = await claim(site, "k1");
    expect(again.state).toBe("claimed");
  });

  test("keys: a claim lapses by itself after its lease, and a lapsed claim's release frees no other", async () => {
    const site = uniqueSite();
    const first = await claim(site, "k", 150);
    expect((await claim(site, "k")).state).toBe("busy");
    await sleep(400);
    const second = await claim(site, "k");
    expect(second.state).toBe("claimed");
    if (first.state === "claimed") await first.release();
    expect(await claim(site, "k")).toEqual({ state: "busy" });
  });

  test("keys: a commit records its key with its counts in the same step as the products", async () => {
    const site = uniqueSite();
    const held = await claim(site, "k");
    const result = await commitWith(store(), site, [sampleProduct("a", "sa"), sampleProduct("b", "sb")], keyOf("k"));
    const counts = { created: 2, updated: 0, unchanged: 0 };
    expect(result).toEqual({ applied: true, counts });
    // Recorded before busy: a claim left behind by a process that died after its commit does not hide the record.
    expect(held.state).toBe("claimed");
    expect(await claim(site, "k")).toEqual({ state: "recorded", record: { fingerprint: "f1", counts } });
    if (held.state === "claimed") await held.release();
    expect(await claim(site, "k")).toEqual({ state: "recorded", record: { fingerprint: "f1", counts } });
  });

  test("keys: a commit under a recorded key writes nothing and answers the record", async () => {
    const site = uniqueSite();
    await commitWith(store(), site, [sampleProduct("a", "sa")], keyOf("k", "first"));
    const changed = sampleProduct("a", "sa", { price: 7 });
    const result = await commitWith(store(), site, [changed, sampleProduct("b", "sb")], keyOf("k", "second"));
    expect(result).toEqual({
      applied: false,
      conflicts: [],
      recorded: { fingerprint: "first", counts: { created: 1, updated: 0, unchanged: 0 } },
    });
    expect(await store().find(site, "a")).toEqual(sampleProduct("a", "sa"));
    expect(await store().find(site, "b")).toBeUndefined();
  });

  test("keys: a commit without the claim is busy while another holds it, and applies once it is let go", async () => {
    const site = uniqueSite();
    const held = await claim(site, "k");
    const unclaimed = keyOf("k", "f1", HOUR, false);
    const busy = await commitWith(store(), site, [sampleProduct("a", "sa")], unclaimed);
    expect(busy).toEqual({ applied: false, conflicts: [], busy: true });
    expect(await store().find(site, "a")).toBeUndefined();
    expect(await claim(site, "other")).toMatchObject({ state: "claimed" });
    if (held.state === "claimed") await held.release();
    const counts = { created: 1, updated: 0, unchanged: 0 };
    expect(await commitWith(store(), site, [sampleProduct("a", "sa")], unclaimed)).toEqual({ applied: true, counts });
    // The record comes first: a claim left behind does not hide it from a retry without the claim.
    const left = await claim(site, "k2");
    await commitWith(store(), site, [sampleProduct("b", "sb")], keyOf("k2"));
    expect(await commitWith(store(), site, [], keyOf("k2", "f1", HOUR, false))).toEqual({
      applied: false,
      conflicts: [],
      recorded: { fingerprint: "f1", counts },
    });
    if (left.state === "claimed") await left.release();
  });

  test("keys: a replace records its deleted count", async () => {
    const site = uniqueSite();
    await commitWith(store(), site, [sampleProduct("a", "sa"), sampleProduct("b", "sb")], undefined);
    const result = await commitWith(store(), site, [sampleProduct("a", "sa")], keyOf("r"), {
      dryRun: false,
      replace: true,
    });
    const counts = { created: 0, updated: 0, unchanged: 1, deleted: 1 };
    expect(result).toEqual({ applied: true, counts });
    expect(await claim(site, "r")).toEqual({ state: "recorded", record: { fingerprint: "f1", counts } });
  });

  test("keys: a refused commit and an aborted import record nothing", async () => {
    const site = uniqueSite();
    await commitWith(store(), site, [sampleProduct("holder", "s1")], undefined);
    const refused = await commitWith(store(), site, [sampleProduct("a", "s1")], keyOf("k"));
    expect(refused.applied).toBe(false);
    const staged = await store().beginImport(site, { dryRun: false });
    await staged.add([sampleProduct("b", "sb")], [1]);
    await staged.abort();
    expect((await claim(site, "k")).state).toBe("claimed");
    expect(await store().find(site, "a")).toBeUndefined();
  });

  test("keys: a key of one site is not the same key of another site", async () => {
    const site = uniqueSite();
    const other = { siteType: "other", siteId: site.siteId };
    await commitWith(store(), site, [sampleProduct("a", "sa")], keyOf("k"));
    expect((await claim(site, "k")).state).toBe("recorded");
    expect((await claim(other, "k")).state).toBe("claimed");
    expect(await commitWith(store(), other, [sampleProduct("a", "sa")], keyOf("k"))).toEqual({
      applied: true,
      counts: { created: 1, updated: 0, unchanged: 0 },
    });
  });

  test("keys: a record expires after its retention, and the key can be used again", async () => {
    const site = uniqueSite();
    await commitWith(store(), site, [sampleProduct("a", "sa")], keyOf("k", "f1", 200));
    expect((await claim(site, "k")).state).toBe("recorded");
    await sleep(500);
    expect((await claim(site, "k")).state).toBe("claimed");
    const result = await commitWith(store(), site, [sampleProduct("a", "sa")], keyOf("k", "f2"));
    expect(result).toEqual({ applied: true, counts: { created: 0, updated: 0, unchanged: 1 } });
  });

  test("keys: of claims of one key at once, exactly one is granted", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 8 }), async (racers) => {
        const site = uniqueSite();
        const answers = await Promise.all(Array.from({ length: racers }, () => claim(site, "race")));
        expect(answers.filter((answer) => answer.state === "claimed")).toHaveLength(1);
        expect(answers.filter((answer) => answer.state === "busy")).toHaveLength(racers - 1);
      }),
      { numRuns: Math.min(numRuns, 20) },
    );
  });

  test("keys: of two commits racing under one key, exactly one applies", async () => {
    const site = uniqueSite();
    const results = await Promise.all([
      commitWith(store(), site, [sampleProduct("a", "sa", { price: 1 })], keyOf("k", "one")),
      commitWith(store(), site, [sampleProduct("a", "sa", { price: 2 })], keyOf("k", "two")),
    ]);
    const applied = results.filter((result) => result.applied);
    expect(applied).toHaveLength(1);
    const winner = results[0]?.applied ? "one" : "two";
    const loser = results.find((result) => !result.applied);
    expect(loser).toMatchObject({ applied: false, recorded: { fingerprint: winner } });
    expect((await store().find(site, "a"))?.price).toBe(winner === "one" ? 1 : 2);
  });
}
