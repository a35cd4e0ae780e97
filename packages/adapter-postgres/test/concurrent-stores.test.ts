// Two stores (as two servers would be) streaming imports into one site while a third replaces
// it: every commit is all-or-nothing and the site ends as some order of the three commits leaves
// it, with the counts each commit answered true of that order.

import { setTimeout as sleep } from "node:timers/promises";
import { createPostgresStore, type PostgresStore } from "@catalog-kit/adapter-postgres";
import type { ImportCounts, Product } from "@catalog-kit/catalog-core";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { describeWithPostgres, FILE_TAG, sharedPostgres } from "@catalog-kit/test-support/vitest";
import fc from "fast-check";
import { afterAll, beforeAll, expect, test } from "vitest";
import { importInChunks, products, titles } from "./support/fixtures.ts";

interface Writer {
  readonly items: Product[];
  readonly replace: boolean;
}

// What `writers` applied in `order` leave, and the counts each would answer.
function serially(start: Map<string, string>, writers: readonly Writer[], order: readonly number[]) {
  const site = new Map(start);
  const counts: ImportCounts[] = [];
  for (const w of order) {
    const { items, replace } = writers[w] as Writer;
    const named = new Set(items.map((p) => p.id));
    const existing = items.filter((p) => site.has(p.id)).length;
    const unchanged = items.filter((p) => site.get(p.id) === p.title).length;
    const deleted = replace ? [...site.keys()].filter((id) => !named.has(id)).length : undefined;
    if (replace) for (const id of [...site.keys()]) if (!named.has(id)) site.delete(id);
    for (const p of items) site.set(p.id, p.title);
    counts[w] = {
      created: items.length - existing,
      updated: existing - unchanged,
      unchanged,
      ...(deleted === undefined ? {} : { deleted }),
    };
  }
  return { site, counts };
}

const ORDERS = [
  [0, 1, 2],
  [0, 2, 1],
  [1, 0, 2],
  [1, 2, 0],
  [2, 0, 1],
  [2, 1, 0],
];

describeWithPostgres("PostgreSQL store: two servers import into one site while a third replaces it", () => {
  let url: string;
  let stores: PostgresStore[];
  beforeAll(async () => {
    url = await sharedPostgres();
    stores = [0, 1, 2].map(() => createPostgresStore({ url, schema: FILE_TAG }));
  });
  afterAll(async () => {
    for (const store of stores ?? []) await store.close();
  });

  test("every commit whole, the site as some order of them leaves it", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(fc.nat(400), fc.nat(400), fc.nat(400)),
        fc.array(fc.nat(20), { minLength: 3, maxLength: 3 }),
        async (starts, pauses) => {
          const site = uniqueSite();
          await importInChunks(stores[0] as PostgresStore, site, products(0, 300, "old"));
          const before = await titles(stores[0] as PostgresStore, site);
          const writers: Writer[] = starts.map((from, w) => ({
            items: products(from, from + 400, `w${w}`),
            replace: w === 2,
          }));
          const results = await Promise.all(
            writers.map((writer, w) =>
              importInChunks(stores[w] as PostgresStore, site, writer.items, {
                replace: writer.replace,
                chunk: 100,
                pause: pauses[w] ? () => sleep(pauses[w] as number) : undefined,
              }),
            ),
          );
          const after = await titles(stores[1] as PostgresStore, site);
          const answered = results.map((r) => (r.applied ? r.counts : undefined));
          const matches = ORDERS.filter((order) => {
            const { site: expected, counts } = serially(before, writers, order);
            return (
              JSON.stringify([...expected].sort()) === JSON.stringify([...after].sort()) &&
              JSON.stringify(counts) === JSON.stringify(answered)
            );
          });
          expect(matches.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 8 },
    );
  });
});
