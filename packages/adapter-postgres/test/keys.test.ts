// Idempotency keys on PostgreSQL beyond the conformance suite: two commits of one key queued on
// the site's lock, and the claim of a store whose connections died, which lapses after its lease.
import { setTimeout as sleep } from "node:timers/promises";
import { createPostgresStore, type PostgresStore } from "@catalog-kit/adapter-postgres";
import type { KeyToRecord } from "@catalog-kit/catalog-core";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { type PostgresServer, startPostgres } from "@catalog-kit/test-support";
import { describeWithPostgres } from "@catalog-kit/test-support/vitest";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { importInChunks, products, titles, writtenBy } from "./support/fixtures.ts";

const HOUR = 60 * 60 * 1000;
const keyOf = (key: string, fingerprint: string, retainMs = HOUR): KeyToRecord => ({ key, fingerprint, retainMs });

describeWithPostgres("PostgreSQL store: idempotency keys", () => {
  let server: PostgresServer;
  let store: PostgresStore;
  let admin: pg.Client;

  beforeAll(async () => {
    server = await startPostgres();
    store = createPostgresStore({ url: server.url });
    await store.ping();
    admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await store?.close();
    await server?.stop();
  });

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

  test("the claim of a store whose connections died lapses after its lease, not before", async () => {
    const site = uniqueSite();
    const pool = new pg.Pool({ connectionString: server.url, application_name: "dying" });
    pool.on("error", () => {});
    const dying = createPostgresStore({ pool });
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
