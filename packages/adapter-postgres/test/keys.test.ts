// Idempotency keys on PostgreSQL beyond the conformance suite: two commits of one key queued on
// the site's lock, the sweep of expired records and claims (by the expiry index, in batches), and
// the claim of a store whose connections died, which lapses after its lease.
import { setTimeout as sleep } from "node:timers/promises";
import { createPostgresStore, type PostgresStore } from "@catalog-kit/adapter-postgres";
import type { KeyToRecord } from "@catalog-kit/catalog-core";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { type PostgresServer, startPostgres } from "@catalog-kit/test-support";
import { describeWithPostgres } from "@catalog-kit/test-support/vitest";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { tablesOf } from "../src/schema.ts";
import { sweepExpiredKeys, sweepStatement } from "../src/sweep.ts";
import { importInChunks, products, titles, writtenBy } from "./support/fixtures.ts";

const HOUR = 60 * 60 * 1000;
const keyOf = (key: string, fingerprint: string, retainMs = HOUR): KeyToRecord => ({
  key,
  fingerprint,
  retainMs,
  claimed: true,
});

describeWithPostgres("PostgreSQL store: idempotency keys", () => {
  let server: PostgresServer;
  let store: PostgresStore;
  let admin: pg.Client;

  beforeAll(async () => {
    server = await startPostgres();
    store = createPostgresStore({ url: server.url, sweepIntervalMs: 100 });
    await store.ping();
    admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await store?.close();
    await server?.stop();
  });

  async function siteNo(schema: string, siteId: string): Promise<number> {
    const { rows } = await admin.query(`SELECT site FROM ${schema}.sites WHERE site_id = $1`, [siteId]);
    return rows[0].site;
  }

  // Rows of `table` for site `site`: `count` expired a second ago, keys `${prefix}0`, `${prefix}1`, ...
  async function insertExpired(schema: string, table: string, site: number, prefix: string, count: number) {
    const values =
      table === "import_keys"
        ? "'f', 1, 0, 0, NULL, now() - interval '1 second'"
        : "gen_random_uuid(), now() - interval '1 second'";
    await admin.query(
      `INSERT INTO ${schema}.${table} SELECT $1, $2 || k, ${values} FROM generate_series(0, $3 - 1) k`,
      [site, prefix, count],
    );
  }

  const rowsOf = async (schema: string, table: string, site: number) =>
    Number((await admin.query(`SELECT count(*) FROM ${schema}.${table} WHERE site = $1`, [site])).rows[0].count);

  test("two commits of one key queued on the site's lock: the second sees the first's record and writes nothing", async () => {
    const site = uniqueSite();
    await importInChunks(store, site, products(0, 10, "old"));
    // A client of its own: pg_stat_activity, read by `admin`, is a snapshot for a whole transaction.
    const locker = new pg.Client({ connectionString: server.url });
    await locker.connect();
    await locker.query("BEGIN");
    await locker.query("SELECT 1 FROM catalog.sites WHERE site_id = $1 FOR UPDATE", [site.siteId]);
    const racing = ["one", "two"].map((tag) =>
      importInChunks(store, site, products(0, 20, tag), { key: keyOf("k", tag) }),
    );
    try {
      await expect
        .poll(
          async () =>
            (
              await admin.query(
                "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'catalog-kit' AND wait_event_type = 'Lock'",
              )
            ).rows[0].n,
          { timeout: 10_000 },
        )
        .toBe(2);
    } finally {
      await locker.end();
    }
    const results = await Promise.all(racing);

    const winner = results[0]?.applied ? "one" : "two";
    const counts = { created: 10, updated: 10, unchanged: 0 };
    expect(results.filter((result) => result.applied)).toEqual([{ applied: true, counts }]);
    expect(results.find((result) => !result.applied)).toEqual({
      applied: false,
      conflicts: [],
      recorded: { fingerprint: winner, counts },
    });
    expect(writtenBy(await titles(store, site), winner)).toBe(20);
  });

  test("the store's timer sweeps expired records and claims, and leaves the live ones", async () => {
    const site = uniqueSite();
    await importInChunks(store, site, products(0, 1, "a"), { key: keyOf("live", "f") });
    await importInChunks(store, site, products(0, 1, "b"), { key: keyOf("short", "f", 50) });
    const held = await store.claimKey(site, "held", HOUR);
    await store.claimKey(site, "lapsing", 50);
    const no = await siteNo("catalog", site.siteId);
    await insertExpired("catalog", "import_keys", no, "old-", 2_500);
    await insertExpired("catalog", "import_key_claims", no, "old-", 1_500);

    await expect.poll(() => rowsOf("catalog", "import_keys", no), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => rowsOf("catalog", "import_key_claims", no), { timeout: 10_000 }).toBe(1);
    expect((await store.claimKey(site, "live", HOUR)).state).toBe("recorded");
    expect((await store.claimKey(site, "held", HOUR)).state).toBe("busy");
    if (held.state === "claimed") await held.release();
  });

  test("a sweep deletes in batches, by the expiry index", async () => {
    const schema = "swept";
    const other = createPostgresStore({ url: server.url, schema, sweepIntervalMs: 0 });
    const pool = new pg.Pool({ connectionString: server.url });
    try {
      const site = uniqueSite();
      await importInChunks(other, site, products(0, 1, "a"), { key: keyOf("live", "f") });
      const no = await siteNo(schema, site.siteId);
      await insertExpired(schema, "import_keys", no, "old-", 2_345);
      await insertExpired(schema, "import_key_claims", no, "old-", 678);
      // Live claims outnumber the expired ones by far, as they would between two sweeps.
      await admin.query(
        `INSERT INTO ${schema}.import_key_claims
         SELECT $1, 'live-' || k, gen_random_uuid(), now() + interval '1 hour' FROM generate_series(1, 20000) k`,
        [no],
      );
      await admin.query(`ANALYZE ${schema}.import_key_claims`);
      const plan = await admin.query(`EXPLAIN ${sweepStatement(`${schema}.import_key_claims`).replace("$1", "100")}`);
      expect(plan.rows.map((row) => row["QUERY PLAN"]).join("\n")).toMatch(/Index (Only )?Scan using \S*expires_at/);

      expect(await sweepExpiredKeys(pool, tablesOf(schema), 500)).toBe(2_345 + 678);
      expect(await rowsOf(schema, "import_keys", no)).toBe(1);
      expect(await rowsOf(schema, "import_key_claims", no)).toBe(20_000);
      expect(await sweepExpiredKeys(pool, tablesOf(schema), 500)).toBe(0);
    } finally {
      await pool.end();
      await other.close();
    }
  });

  test("the claim of a store whose connections died lapses after its lease, not before", async () => {
    const site = uniqueSite();
    const pool = new pg.Pool({ connectionString: server.url, application_name: "dying" });
    pool.on("error", () => {});
    const dying = createPostgresStore({ pool, sweepIntervalMs: 0 });
    expect((await dying.claimKey(site, "k", 1_500)).state).toBe("claimed");
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'dying'");
    await dying.close();
    await pool.end();

    expect(await store.claimKey(site, "k", HOUR)).toEqual({ state: "busy" });
    await sleep(1_800);
    const taken = await store.claimKey(site, "k", HOUR);
    expect(taken.state).toBe("claimed");
    if (taken.state === "claimed") await taken.release();
  });
});
