// The PostgreSQL store against the storage contract, on a server of its own.
import { createPostgresStore } from "@catalog-kit/adapter-postgres";
import { testCatalogStore } from "@catalog-kit/catalog-core/testing";
import { type PostgresServer, startPostgres } from "@catalog-kit/test-support";
import { describeWithPostgres } from "@catalog-kit/test-support/vitest";
import { afterAll, beforeAll } from "vitest";

describeWithPostgres("PostgreSQL store", () => {
  let server: PostgresServer;
  // Before the suite's own hooks: the clause on close calls the factory a second time.
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });
  testCatalogStore(() => createPostgresStore({ url: server.url }), {
    // A server of the clause's own, stopped: the suite's server serves the other clauses on.
    breakable: async () => {
      const own = await startPostgres();
      return { store: createPostgresStore({ url: own.url }), breakBackend: () => own.stop() };
    },
  });
});
