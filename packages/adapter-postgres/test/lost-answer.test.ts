// The answer to a statement lost on the way back, its connection closed without a word: a retry
// of an idempotency key's claim takes the key, rather than finding it held (busy) for the whole
// lease by a claim no one owns; a remove fails saying nothing was written, never with an
// uncaught error from its dropped connection.
import { createPostgresStore, type PostgresStore } from "@catalog-kit/adapter-postgres";
import { isCatalogError } from "@catalog-kit/catalog-core";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { type PostgresServer, startPostgres } from "@catalog-kit/test-support";
import { describeWithPostgres } from "@catalog-kit/test-support/vitest";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type CommitProxy, startCommitProxy } from "./support/commit-proxy.ts";
import { importInChunks, products } from "./support/fixtures.ts";

const LEASE_MS = 600_000;

describeWithPostgres("PostgreSQL store: the answer to a claim or a remove lost", () => {
  let server: PostgresServer;
  let proxy: CommitProxy;
  let store: PostgresStore;
  let admin: pg.Client;

  beforeAll(async () => {
    server = await startPostgres();
    proxy = await startCommitProxy(server.port);
    store = createPostgresStore({ url: proxy.url, sweepIntervalMs: 0 });
    await store.ping();
    admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await store?.close();
    await proxy?.close();
    await server?.stop();
  });

  const claims = async (siteId: string) =>
    (
      await admin.query(
        "SELECT count(*)::int AS n FROM catalog.import_key_claims c JOIN catalog.sites s USING (site) WHERE s.site_id = $1",
        [siteId],
      )
    ).rows[0].n;

  test("the claim's statement answered, its answer lost: nothing was written, and a retry takes the key", async () => {
    const site = uniqueSite();
    const lost = proxy.loseNextAnswerTo("import_key_claims AS c");
    const error = await store.claimKey(site, "k", LEASE_MS).catch((e: unknown) => e);
    await lost;
    expect(isCatalogError(error, "STORAGE_UNAVAILABLE")).toBe(true);
    expect((error as Error).message).toMatch(/nothing was written/);
    expect(await claims(site.siteId)).toBe(0);

    const retry = await store.claimKey(site, "k", LEASE_MS);
    expect(retry.state).toBe("claimed");
    if (retry.state === "claimed") await retry.release();
    expect(await claims(site.siteId)).toBe(0);
  });

  test("the answer to the claim's COMMIT lost: the error says the outcome is unknown, and a retry takes the key", async () => {
    const site = uniqueSite();
    const lost = proxy.loseNextCommitAnswer();
    const error = await store.claimKey(site, "k", LEASE_MS).catch((e: unknown) => e);
    await lost;
    expect(isCatalogError(error, "STORAGE_UNAVAILABLE")).toBe(true);
    expect((error as Error).message).toMatch(/may or may not have been applied/);
    expect((error as Error).message).not.toMatch(/nothing was written/);

    // The claim committed with no one to own it: it was given back.
    expect(await claims(site.siteId)).toBe(0);
    const retry = await store.claimKey(site, "k", LEASE_MS);
    expect(retry.state).toBe("claimed");
    if (retry.state === "claimed") await retry.release();
  });

  test("a remove whose DELETE's answer is lost: nothing was written, and the retry removes", async () => {
    const site = uniqueSite();
    await importInChunks(store, site, products(0, 10, "old"));
    const lost = proxy.loseNextAnswerTo("DELETE FROM");
    const error = await store.remove(site, "p00001").catch((e: unknown) => e);
    await lost;
    expect(isCatalogError(error, "STORAGE_UNAVAILABLE"), String(error)).toBe(true);
    expect((error as Error).message).toMatch(/nothing was written/);
    expect((await store.find(site, "p00001"))?.id).toBe("p00001");
    expect((await store.remove(site, "p00001"))?.id).toBe("p00001");
  });
});
