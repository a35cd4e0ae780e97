// The tenants registry and usage counters beyond the conformance suite: two stores on one
// database (two servers) see each other's writes and race fairly, and the sweep deletes the
// counters that ended, and only those.
import { setTimeout as sleep } from "node:timers/promises";
import { createPostgresStore } from "@catalog-kit/adapter-postgres";
import type { TenantEntries } from "@catalog-kit/catalog-core";
import { describeWithPostgres, sharedPostgres } from "@catalog-kit/test-support/vitest";
import pg from "pg";
import { expect, test } from "vitest";
import { tablesOf } from "../src/schema.ts";
import { sweepEndedCounters } from "../src/sweep.ts";

describeWithPostgres("PostgreSQL store: tenants and usage", () => {
  test("a write of one store is read by another on the same schema, and of racing creations one applies", async () => {
    const url = await sharedPostgres();
    const schema = `tenants_${crypto.randomUUID().slice(0, 8)}`;
    const [one, other] = [createPostgresStore({ url, schema }), createPostgresStore({ url, schema })];
    try {
      const before = (await other.readTenants()) as TenantEntries;
      expect(before).toEqual({ version: 0, entries: [] });
      expect(await one.writeTenant({ key: "site:a", value: "{}", when: "absent" })).toBe(true);
      expect(await other.readTenants(0)).toEqual({ version: 1, entries: [{ key: "site:a", value: "{}" }] });
      expect(await other.readTenants(1)).toBeUndefined();
      for (let round = 0; round < 10; round++) {
        const key = `token:${round}`;
        const answers = await Promise.all(
          [one, other, one, other].map((store, i) => store.writeTenant({ key, value: `${i}`, when: "absent" })),
        );
        expect(answers.filter(Boolean)).toHaveLength(1);
      }
      expect((await one.readTenants())?.version).toBe(11);
    } finally {
      await Promise.all([one.close(), other.close()]);
    }
  });

  test("the sweep deletes ended counters and keeps live ones", async () => {
    const url = await sharedPostgres();
    const schema = `usage_${crypto.randomUUID().slice(0, 8)}`;
    const store = createPostgresStore({ url, schema, sweepIntervalMs: 0 });
    const pool = new pg.Pool({ connectionString: url });
    try {
      await store.countUsage(
        [
          { key: "ended", amount: 1 },
          { key: "ended-too", amount: 2 },
        ],
        50,
      );
      await store.countUsage([{ key: "live", amount: 3 }], 60_000);
      await sleep(120);
      expect(await sweepEndedCounters(pool, tablesOf(schema))).toBe(2);
      const { rows } = await pool.query(`SELECT key FROM "${schema}".usage_counters`);
      expect(rows).toEqual([{ key: "live" }]);
      expect(await store.countUsage([{ key: "live", amount: 0 }], 60_000)).toEqual([3]);
    } finally {
      await pool.end();
      await store.close();
    }
  });
});
