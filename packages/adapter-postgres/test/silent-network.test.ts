// The network to PostgreSQL goes silent (nothing forwarded, nothing closed, as when a link or a
// firewall drops packets): lookups, pages, removes, claims, an import's chunk and ping answer
// STORAGE_UNAVAILABLE within their bound, the pool drops the connections that went silent, and
// once the network heals the store works again. A commit is not bound so: a healthy one that
// waits longer still applies.
import { createPostgresStore, type PostgresStore } from "@catalog-kit/adapter-postgres";
import { isCatalogError } from "@catalog-kit/catalog-core";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { type PostgresServer, startPostgres } from "@catalog-kit/test-support";
import { describeWithPostgres } from "@catalog-kit/test-support/vitest";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type CommitProxy, startCommitProxy } from "./support/commit-proxy.ts";
import { importInChunks, products } from "./support/fixtures.ts";

const QUERY_TIMEOUT_MS = 400;
const ACQUIRE_TIMEOUT_MS = 400;

// The call's outcome, or "no answer" once `ms` passed.
async function within(call: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise((resolve) => {
    timer = setTimeout(resolve, ms, "no answer");
  });
  try {
    return await Promise.race([
      call.then(
        (value) => ({ value }),
        (error: unknown) => error,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function expectUnavailable(outcome: unknown): void {
  expect(isCatalogError(outcome, "STORAGE_UNAVAILABLE"), String(outcome)).toBe(true);
}

describeWithPostgres("PostgreSQL store: a silent network", () => {
  let server: PostgresServer;
  let proxy: CommitProxy;
  let store: PostgresStore;
  let admin: pg.Client;
  const site = uniqueSite();

  beforeAll(async () => {
    server = await startPostgres();
    proxy = await startCommitProxy(server.port);
    store = createPostgresStore({
      url: proxy.url,
      queryTimeoutMs: QUERY_TIMEOUT_MS,
      acquireTimeoutMs: ACQUIRE_TIMEOUT_MS,
      sweepIntervalMs: 0,
    });
    admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await importInChunks(store, site, products(0, 100, "old"));
  });
  afterAll(async () => {
    proxy?.heal();
    await admin?.end();
    await store?.close();
    await proxy?.close();
    await server?.stop();
  });

  test("lookups, pages, removes, claims, a chunk and ping answer within their bound; after the network heals they work again", async () => {
    // Connections of the pool already open, and one more opened while the network is silent.
    await Promise.all([store.ping(), store.find(site, "p00001"), store.list(site, undefined, 10)]);
    const staged = await store.beginImport(uniqueSite(), { dryRun: false });
    await staged.add(products(0, 10, "cut"), [...Array(10).keys()]);
    expect(store.poolStats().total).toBeGreaterThan(0);
    proxy.stall();
    const bound = QUERY_TIMEOUT_MS + ACQUIRE_TIMEOUT_MS + 1000;
    const started = Date.now();
    const outcomes = await Promise.all([
      within(store.ping(), bound),
      within(store.find(site, "p00002"), bound),
      within(store.list(site, undefined, 10), bound),
      within(store.remove(site, "p00003"), bound),
      within(store.claimKey(site, "k", 60_000), bound),
      within(staged.add(products(10, 20, "cut"), [...Array(10).keys()]), bound),
    ]);
    for (const outcome of outcomes) expectUnavailable(outcome);
    expect(Date.now() - started).toBeLessThan(bound);
    // The connections that went silent are dropped, not lent again (one still connecting ends
    // by its own timeout).
    await expect.poll(() => store.poolStats().total, { timeout: ACQUIRE_TIMEOUT_MS + 1000 }).toBe(0);
    await staged.abort();
    expect(store.poolStats().imports).toBe(0);

    proxy.heal();
    expect((await store.find(site, "p00002"))?.title).toBe("old 2");
    await store.ping();
    expect((await store.list(site, undefined, 10)).length).toBe(10);
    expect((await store.remove(site, "p00003"))?.id).toBe("p00003");
  });

  test("a commit waiting longer than the bound for its site's lock still applies; a remove waiting for it fails", async () => {
    await admin.query("BEGIN");
    await admin.query("SELECT 1 FROM catalog.sites WHERE site_id = $1 FOR UPDATE", [site.siteId]);
    const commit = importInChunks(store, site, products(0, 10, "new"));
    const remove = within(store.remove(site, "p00004"), QUERY_TIMEOUT_MS + 1000);
    expectUnavailable(await remove);
    await new Promise((resolve) => setTimeout(resolve, 3 * QUERY_TIMEOUT_MS));
    await admin.query("COMMIT");
    expect((await commit).applied).toBe(true);
    expect((await store.find(site, "p00004"))?.title).toBe("new 4");
  });
});
