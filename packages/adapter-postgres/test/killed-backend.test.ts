// The import's server process killed (pg_terminate_backend) in the middle of its commit and in
// the middle of its stream: nothing of it is visible (nor the record of its idempotency key), it
// fails whole with STORAGE_UNAVAILABLE saying nothing was written, and the next import works.
import { createPostgresStore, type PostgresStore } from "@catalog-kit/adapter-postgres";
import { isCatalogError } from "@catalog-kit/catalog-core";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { type PostgresServer, startPostgres } from "@catalog-kit/test-support";
import { describeWithPostgres } from "@catalog-kit/test-support/vitest";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { importInChunks, products, titles, writtenBy } from "./support/fixtures.ts";

const STAGED_BYTES =
  "SELECT coalesce(sum(pg_relation_size(oid)), 0)::int AS bytes FROM pg_class WHERE relname = 'catalog_import' AND relpersistence = 't'";

describeWithPostgres("PostgreSQL store: the import's backend killed", () => {
  let server: PostgresServer;
  let store: PostgresStore;
  let admin: pg.Client;

  beforeAll(async () => {
    server = await startPostgres();
    // No sweep: an expired record that a test holds locked must stay until it is locked.
    store = createPostgresStore({ url: server.url, sweepIntervalMs: 0 });
    await store.ping();
    admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await store?.close();
    await server?.stop();
  });

  async function pidOf(where: string): Promise<number> {
    for (let tries = 0; tries < 500; tries++) {
      const { rows } = await admin.query(
        `SELECT pid FROM pg_stat_activity WHERE application_name = 'catalog-kit' AND ${where}`,
      );
      if (rows.length === 1) return rows[0].pid;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`no single backend where ${where}`);
  }

  function expectNothingWritten(error: unknown): void {
    expect(isCatalogError(error, "STORAGE_UNAVAILABLE")).toBe(true);
    expect((error as Error).message).toMatch(/nothing was written/);
  }

  test("killed mid-commit, after some of its deletes: the site is as it was; the next import works", async () => {
    const site = uniqueSite();
    await importInChunks(store, site, products(0, 1000, "old"));
    // A row the replace must delete is locked, so the commit stops inside its transaction with
    // part of its work done; then its backend is terminated.
    await admin.query("BEGIN");
    await admin.query("SELECT 1 FROM catalog.products WHERE id = 'p00900' FOR UPDATE");
    const commit = importInChunks(store, site, [...products(0, 500, "new"), ...products(2000, 3000, "new")], {
      replace: true,
    }).catch((error: unknown) => error);
    const pid = await pidOf("wait_event_type = 'Lock'");
    await admin.query("SELECT pg_terminate_backend($1)", [pid]);
    await admin.query("ROLLBACK");
    expectNothingWritten(await commit);

    const found = await titles(store, site);
    expect(found.size).toBe(1000);
    expect(writtenBy(found, "old")).toBe(1000);
    expect(store.poolStats().imports).toBe(0);

    const next = await importInChunks(store, site, products(0, 1500, "next"), { replace: true });
    expect(next).toEqual({ applied: true, counts: { created: 500, updated: 1000, unchanged: 0, deleted: 0 } });
    expect(writtenBy(await titles(store, site), "next")).toBe(1500);
  });

  test("killed mid-commit with a key, its products written and its record waiting: neither is there", async () => {
    const site = uniqueSite();
    await importInChunks(store, site, products(0, 100, "old"));
    // An expired record of the key, which the commit replaces as its last write: locked, it
    // holds the commit there, every product already written in its transaction.
    await admin.query(
      `INSERT INTO catalog.import_keys
       SELECT site, 'k', 'expired', 0, 0, 0, NULL, now() - interval '1 second' FROM catalog.sites WHERE site_id = $1`,
      [site.siteId],
    );
    const locker = new pg.Client({ connectionString: server.url });
    await locker.connect();
    try {
      await locker.query("BEGIN");
      await locker.query("SELECT 1 FROM catalog.import_keys WHERE key = 'k' FOR UPDATE");
      const key = { key: "k", fingerprint: "new", retainMs: 60_000, claimed: false };
      const commit = importInChunks(store, site, products(0, 300, "new"), { key }).catch((error: unknown) => error);
      const pid = await pidOf("wait_event_type = 'Lock' AND query LIKE '%import_keys%'");
      await admin.query("SELECT pg_terminate_backend($1)", [pid]);
      expectNothingWritten(await commit);
    } finally {
      await locker.end();
    }

    const found = await titles(store, site);
    expect([found.size, writtenBy(found, "old")]).toEqual([100, 100]);
    const { rows } = await admin.query("SELECT fingerprint FROM catalog.import_keys WHERE key = 'k'");
    expect(rows).toEqual([{ fingerprint: "expired" }]);
    const claim = await store.claimKey(site, "k", 60_000);
    expect(claim.state).toBe("claimed");
    if (claim.state === "claimed") await claim.release();
  });

  test("killed between two chunks: the next chunk fails, nothing is visible, the staging is gone, the next import works", async () => {
    const site = uniqueSite();
    await importInChunks(store, site, products(0, 100, "old"));
    // A connection goes back to the pool with its staging emptied.
    expect((await admin.query(STAGED_BYTES)).rows[0].bytes).toBe(0);
    const staged = await store.beginImport(site, { dryRun: false });
    await staged.add(products(0, 500, "new"), [...Array(500).keys()]);
    const pid = await pidOf("query LIKE 'COPY pg_temp.catalog_import%'");
    await admin.query("SELECT pg_terminate_backend($1)", [pid]);
    expectNothingWritten(
      await staged
        .add(
          products(500, 1000, "new"),
          [...Array(500).keys()].map((i) => i + 500),
        )
        .catch((e) => e),
    );
    await staged.abort();
    await staged.abort();

    const found = await titles(store, site);
    expect([found.size, writtenBy(found, "old")]).toEqual([100, 100]);
    // Every staging table left on a connection is empty: the killed one went with its backend,
    // and those of connections back in the pool were emptied.
    await expect.poll(async () => (await admin.query(STAGED_BYTES)).rows[0].bytes, { timeout: 5000 }).toBe(0);
    expect(store.poolStats().imports).toBe(0);

    expect((await importInChunks(store, site, products(0, 1000, "next"))).applied).toBe(true);
    expect(writtenBy(await titles(store, site), "next")).toBe(1000);
  });
});
