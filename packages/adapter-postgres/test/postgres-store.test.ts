// The PostgreSQL store against the storage contract, on a server of its own.
import { createPostgresStore } from "@catalog-kit/adapter-postgres";
import { testCatalogStore } from "@catalog-kit/catalog-core/testing";
import { type PostgresServer, startPostgres } from "@catalog-kit/test-support";
import { describeWithPostgres } from "@catalog-kit/test-support/vitest";
import { afterAll } from "vitest";

describeWithPostgres("PostgreSQL store", () => {
  let server: PostgresServer | undefined;
  afterAll(async () => {
    await server?.stop();
  });
  testCatalogStore(async () => {
    server = await startPostgres();
    return createPostgresStore({ url: server.url });
  });
});
