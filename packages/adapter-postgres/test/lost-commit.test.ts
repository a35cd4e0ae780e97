// The answer to COMMIT lost after the server committed: the import fails with an error that
// says the outcome is unknown (never that nothing was written), and the site holds the import
// whole, with the record of its idempotency key; the store goes on working.
import { createPostgresStore, type PostgresStore } from "@catalog-kit/adapter-postgres";
import { isCatalogError } from "@catalog-kit/catalog-core";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { type PostgresServer, startPostgres } from "@catalog-kit/test-support";
import { describeWithPostgres } from "@catalog-kit/test-support/vitest";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type CommitProxy, startCommitProxy } from "./support/commit-proxy.ts";
import { importInChunks, products, titles, writtenBy } from "./support/fixtures.ts";

describeWithPostgres("PostgreSQL store: the answer to COMMIT lost", () => {
  let server: PostgresServer;
  let proxy: CommitProxy;
  let store: PostgresStore;
  let direct: PostgresStore;

  beforeAll(async () => {
    server = await startPostgres();
    proxy = await startCommitProxy(server.port);
    store = createPostgresStore({ url: proxy.url });
    direct = createPostgresStore({ url: server.url });
    await store.ping();
  });
  afterAll(async () => {
    await store?.close();
    await direct?.close();
    await proxy?.close();
    await server?.stop();
  });

  for (const replace of [false, true]) {
    test(`${replace ? "a replace" : "an import"}: the error says the outcome is unknown; the site holds it whole`, async () => {
      const site = uniqueSite();
      await importInChunks(store, site, products(0, 1500, "old"));
      const lost = proxy.loseNextCommitAnswer();
      const error = await importInChunks(store, site, products(1000, 3000, "new"), { replace }).catch((e) => e);
      await lost;
      expect(isCatalogError(error, "STORAGE_UNAVAILABLE")).toBe(true);
      expect(error.message).toMatch(/may or may not have been applied/);
      expect(error.message).not.toMatch(/nothing was written/);

      // The server committed before its answer was withheld: the import is there whole.
      const found = await titles(direct, site);
      expect(writtenBy(found, "new")).toBe(2000);
      expect(writtenBy(found, "old")).toBe(replace ? 0 : 1000);
      expect(await titles(store, site)).toEqual(found);
      expect(store.poolStats().imports).toBe(0);
    });
  }

  test("with a key: the key's record is there with the products, and the retry is answered by it", async () => {
    const site = uniqueSite();
    const key = { key: "k", fingerprint: "f", retainMs: 60_000, claimed: false };
    const lost = proxy.loseNextCommitAnswer();
    const error = await importInChunks(store, site, products(0, 1500, "new"), { key }).catch((e) => e);
    await lost;
    expect(error.message).toMatch(/may or may not have been applied/);

    expect(writtenBy(await titles(direct, site), "new")).toBe(1500);
    const recorded = { fingerprint: "f", counts: { created: 1500, updated: 0, unchanged: 0 } };
    expect(await direct.claimKey(site, "k", 60_000)).toEqual({ state: "recorded", record: recorded });
    expect(await importInChunks(store, site, products(0, 1500, "again"), { key })).toEqual({
      applied: false,
      conflicts: [],
      recorded,
    });
    expect(writtenBy(await titles(store, site), "new")).toBe(1500);
  });
});
