// The delivery queue beyond the conformance suite: stores of two servers claiming at once from
// one queue, times kept exactly as the caller gave them, and a claim that walks the index on the
// due time, not the queue.
import { createPostgresStore, type PostgresStore } from "@catalog-kit/adapter-postgres";
import type { ClaimedDelivery, Delivery } from "@catalog-kit/catalog-core";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { describeWithPostgres, FILE_TAG, sharedPostgres } from "@catalog-kit/test-support/vitest";
import pg from "pg";
import { expect, test } from "vitest";
import { claimSql } from "../src/deliveries.ts";
import { tablesOf } from "../src/schema.ts";

const enqueue = (store: PostgresStore, deliveries: readonly Delivery[]) =>
  store.saveImport(uniqueSite(), { id: "000000000001a", value: "{}" }, { deliveries });

describeWithPostgres("PostgreSQL store: delivery queue", () => {
  test("two stores claiming at once from one queue hand out every delivery, none twice", async () => {
    const url = await sharedPostgres();
    const schema = `${FILE_TAG}_claims`;
    const stores = [createPostgresStore({ url, schema }), createPostgresStore({ url, schema })];
    const made = Array.from({ length: 600 }, (_, i) => ({ id: `d${i}`, dueAt: 1_000 + (i % 17), value: `${i}` }));
    try {
      await enqueue(stores[0] as PostgresStore, made);
      const claimed: ClaimedDelivery[] = [];
      for (let round = 0; claimed.length < made.length && round < 100; round++) {
        const claims = await Promise.all(
          Array.from({ length: 16 }, (_, k) => (stores[k % 2] as PostgresStore).claimDeliveries(2_000, 60_000, 3)),
        );
        for (const claim of claims) {
          expect(claim.map(({ dueAt }) => dueAt)).toEqual(claim.map(({ dueAt }) => dueAt).sort((a, b) => a - b));
          claimed.push(...claim);
        }
      }
      expect(claimed.map(({ id }) => id).sort()).toEqual(made.map(({ id }) => id).sort());
      expect(new Set(claimed.map(({ lease }) => lease)).size).toBe(made.length);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  test("times are kept as the caller gave them, fractions of a millisecond included", async () => {
    const url = await sharedPostgres();
    const store = createPostgresStore({ url, schema: `${FILE_TAG}_times` });
    const t0 = Date.now() + 0.25;
    try {
      await enqueue(store, [{ id: "a", dueAt: t0, value: "1" }]);
      expect(await store.claimDeliveries(t0 - 0.125, 1_000, 10)).toEqual([]);
      const [claimed] = await store.claimDeliveries(t0, 0.5, 10);
      expect(claimed).toMatchObject({ id: "a", dueAt: t0, value: "1" });
      // Leased until t0 + 0.5, and no longer.
      expect(await store.claimDeliveries(t0 + 0.25, 1_000, 10)).toEqual([]);
      const [again] = await store.claimDeliveries(t0 + 0.5, 1_000, 10);
      expect(again?.id).toBe("a");
      const next = { dueAt: t0 + 86_400_000.75, value: "2" };
      expect(await store.settleDelivery("a", again?.lease as string, next)).toBe(true);
      const [last] = await store.claimDeliveries(t0 + 86_400_001, 1_000, 10);
      expect(last).toMatchObject({ id: "a", ...next });
      expect(await store.settleDelivery("a", last?.lease as string)).toBe(true);
    } finally {
      await store.close();
    }
  });

  test("a claim walks the index on the due time, however long the queue", async () => {
    const url = await sharedPostgres();
    const schema = `${FILE_TAG}_plan`;
    const store = createPostgresStore({ url, schema });
    const admin = new pg.Pool({ connectionString: url });
    try {
      const queued = Array.from({ length: 20_000 }, (_, i) => ({ id: `q${i}`, dueAt: 1_000_000 + i, value: "{}" }));
      await enqueue(store, queued);
      await admin.query(`ANALYZE "${schema}".deliveries`);
      const client = await admin.connect();
      try {
        await client.query("BEGIN");
        const { rows } = await client.query(`EXPLAIN (FORMAT JSON) ${claimSql(tablesOf(schema))}`, [
          1_000_100,
          60_000,
          10,
          "token",
        ]);
        await client.query("ROLLBACK");
        const plan = JSON.stringify(rows[0]["QUERY PLAN"]);
        expect(plan).toContain("deliveries_due_at_idx");
        expect(plan).not.toContain('"Seq Scan"');
      } finally {
        client.release();
      }
      expect((await store.claimDeliveries(1_000_100, 60_000, 1_000)).map(({ id }) => id)).toEqual(
        queued.slice(0, 101).map(({ id }) => id),
      );
    } finally {
      await admin.end();
      await store.close();
    }
  });
});
