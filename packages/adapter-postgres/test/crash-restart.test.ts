// PostgreSQL stopped at once (`pg_ctl stop -m immediate`: no checkpoint, a crash for the data
// files) right after imports were acknowledged, then started: every acknowledged product is
// there, because a commit is answered only once its WAL is written (synchronous_commit on).
import { createPostgresStore } from "@catalog-kit/adapter-postgres";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { type PostgresServer, startPostgres } from "@catalog-kit/test-support";
import { describeWithPostgres } from "@catalog-kit/test-support/vitest";
import { afterAll, beforeAll, expect, test } from "vitest";
import { importInChunks, products, titles, writtenBy } from "./support/fixtures.ts";

describeWithPostgres("PostgreSQL store: the server crashes after acknowledging imports", () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres({ durable: true });
  });
  afterAll(async () => {
    await server?.stop();
  });

  test("every acknowledged product is there after an immediate stop and a start", async () => {
    const store = createPostgresStore({ url: server.url });
    const sites = [uniqueSite(), uniqueSite()];
    const acknowledged = await Promise.all(
      sites.map(async (site, k) => [
        await importInChunks(store, site, products(0, 3000, `first-${k}`)),
        await importInChunks(store, site, products(2000, 5000, `second-${k}`), { replace: true }),
      ]),
    );
    expect(acknowledged.flat().every((result) => result.applied)).toBe(true);
    await server.halt("immediate");
    await server.start();

    // The store's old connections are dead: it reconnects on its own.
    for (const [k, site] of sites.entries()) {
      const found = await titles(store, site).catch(() => titles(store, site));
      expect(found.size).toBe(3000);
      expect(writtenBy(found, `second-${k}`)).toBe(3000);
    }
    await store.close();
  });
});
