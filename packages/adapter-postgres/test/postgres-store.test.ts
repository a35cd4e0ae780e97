// The PostgreSQL store against the storage contract, in a schema of its own on the run's server.
import { createPostgresStore } from "@catalog-kit/adapter-postgres";
import { testCatalogStore } from "@catalog-kit/catalog-core/testing";
import { startPostgres } from "@catalog-kit/test-support";
import { describeWithPostgres, FILE_TAG, sharedPostgres } from "@catalog-kit/test-support/vitest";

describeWithPostgres("PostgreSQL store", () => {
  testCatalogStore(async () => createPostgresStore({ url: await sharedPostgres(), schema: FILE_TAG }), {
    // A server of the clause's own, stopped: the run's server serves the other clauses on.
    breakable: async () => {
      const own = await startPostgres();
      return { store: createPostgresStore({ url: own.url }), breakBackend: () => own.stop() };
    },
  });
});
