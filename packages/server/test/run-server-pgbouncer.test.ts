// The standalone server with PostgreSQL behind PgBouncer, as `npm start` runs it: in transaction
// pooling its start-up log says why the store refuses and what to do, and every call answers 503
// saying the same; in session pooling imports and lookups work.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Pgbouncer, type PostgresServer, startPgbouncer, startPostgres } from "@catalog-kit/test-support";
import { type CliProcess, startCli, stopCli } from "@catalog-kit/test-support/http";
import { describeWithPgbouncer } from "@catalog-kit/test-support/vitest";
import { afterAll, afterEach, beforeAll, expect, it, vi } from "vitest";

const site = { siteId: "shop-1", siteType: "shopify" };
const product = { id: "p-1", sku: "P-1", title: "T", available: true, featured_image: "https://i", url: "https://u" };
const headers = { "x-service-access-token": "pg-admin", "content-type": "application/json" };
const lookup = `/external/product/v1/P-1?siteId=${site.siteId}&siteType=${site.siteType}`;

describeWithPgbouncer("the standalone server behind PgBouncer", () => {
  let dir: string;
  let postgres: PostgresServer;
  const bouncers: Pgbouncer[] = [];
  const running: CliProcess[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "catalog-cli-pgbouncer-"));
    postgres = await startPostgres();
  }, 60_000);
  afterEach(async () => {
    await Promise.all(running.splice(0).map(stopCli));
  });
  afterAll(async () => {
    await Promise.all(bouncers.map((bouncer) => bouncer.stop()));
    await postgres?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  async function serve(poolMode: "session" | "transaction"): Promise<{ server: CliProcess; url: string }> {
    const bouncer = await startPgbouncer({ postgresPort: postgres.port, poolMode });
    bouncers.push(bouncer);
    const file = join(dir, `config-${poolMode}.json`);
    const storage = { adapter: "postgres", url: bouncer.url, poolSize: 4 };
    await writeFile(file, JSON.stringify({ sites: [site], tokens: [{ token: "pg-admin", sites: "*" }], storage }));
    const server = startCli({ CATALOG_CONFIG: file });
    running.push(server);
    const url = /listening on (http:\S+)/.exec(await server.waitForOutput(/listening on http:\S+\n/))?.[1] as string;
    return { server, url };
  }

  it("in transaction pooling, the start-up log and every answer say the store needs session pooling or a direct URL", async () => {
    const { server, url } = await serve("transaction");
    const said = /PgBouncer with pool_mode = transaction.*Use pool_mode = session .* or connect to PostgreSQL directly/;
    await vi.waitFor(() => expect(server.stdout() + server.stderr()).toMatch(said), { timeout: 10_000 });
    expect((await fetch(`${url}/healthz`)).status).toBe(503);
    const answer = await fetch(url + lookup, { headers });
    const problem = (await answer.json()) as { status: number; code: string; detail: string };
    expect(problem).toMatchObject({ status: 503, code: "STORAGE_UNAVAILABLE" });
    expect(problem.detail).toMatch(said);
  });

  it("in session pooling, imports and lookups work", async () => {
    const { url } = await serve("session");
    const imported = await fetch(`${url}/external/product/v1`, {
      method: "POST",
      headers,
      body: JSON.stringify({ ...site, product }),
    });
    expect(await imported.json()).toMatchObject({ total: 1, created: 1 });
    expect(await (await fetch(url + lookup, { headers })).json()).toMatchObject({ id: "p-1" });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });
});
