// Tenants across servers, as operators run them: two `catalog-kit serve` processes on one store
// (one SQLite file, one Redis, one PostgreSQL). A site made through one is served by the other, and
// a token revoked through one is refused by the other, each within the registry's second.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type CliProcess, startCli, stopCli } from "@catalog-kit/test-support/http";
import {
  describeWithPostgres,
  describeWithRedis,
  FILE_TAG,
  sharedPostgres,
  sharedRedis,
} from "@catalog-kit/test-support/vitest";
import { afterAll, afterEach, describe, expect, it } from "vitest";

const dir = await mkdtemp(join(tmpdir(), "catalog-tenants-shared-"));
const running: CliProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map(stopCli));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const ADMIN = "ops-secret";
const product = {
  id: "p1",
  sku: "P-1",
  title: "Mug",
  available: true,
  featured_image: "https://i/p",
  url: "https://u/p",
};

async function serve(name: string, storage: object): Promise<string> {
  const file = join(dir, `${name}.json`);
  await writeFile(
    file,
    JSON.stringify({
      sites: [{ siteId: "file-site", siteType: "shop" }],
      tokens: [{ token: ADMIN, sites: "*", name: "ops", scopes: ["admin", "read", "import"] }],
      storage,
    }),
  );
  const server = startCli({ CATALOG_CONFIG: file, ACCESS_LOG: "off" });
  running.push(server);
  return /listening on (http:\S+)/.exec(await server.waitForOutput(/listening on (http:\S+)/))?.[1] as string;
}

const call = (url: string, method: string, path: string, token: string, body?: unknown) =>
  fetch(url + path, {
    method,
    headers: { "x-service-access-token": token, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

// Polls `check` until it holds, and answers how long that took; fails after 3 s.
async function within(check: () => Promise<boolean>): Promise<number> {
  const start = performance.now();
  while (!(await check())) {
    if (performance.now() - start > 3_000) throw new Error("never held within 3 s");
    await sleep(25);
  }
  return performance.now() - start;
}

function sharedTenants(storage: (name: string) => Promise<object>) {
  it("a site made through one server is served by the other, and a token revoked through one is refused by the other", async () => {
    const stored = await storage("two");
    const [a, b] = await Promise.all([serve("a", stored), serve("b", stored)]);
    const site = { siteId: `made-${FILE_TAG}`, siteType: "shop" };
    expect((await call(a, "POST", "/admin/v1/sites", ADMIN, site)).status).toBe(201);
    const created = await call(a, "POST", "/admin/v1/tokens", ADMIN, {
      name: "feed",
      sites: [site],
      scopes: ["import"],
    });
    const { id, token } = (await created.json()) as { id: string; token: string };
    const importInto = (url: string) =>
      call(url, "POST", "/external/product/v1/bulk", token, { ...site, products: [product] });
    // Seen by the other server within its registry's second, with room for a loaded machine.
    const seen = await within(async () => (await importInto(b)).status === 200);
    expect(seen).toBeLessThan(2_000);
    expect((await call(a, "DELETE", `/admin/v1/tokens/${id}`, ADMIN)).status).toBe(200);
    const refused = await within(async () => (await importInto(b)).status === 401);
    expect(refused).toBeLessThan(2_000);
    expect((await importInto(a)).status).toBe(401);
  });

  it("two servers making one site at once: one is answered 201, the other 409, and the site is one", async () => {
    const stored = await storage("race");
    const [a, b] = await Promise.all([serve("race-a", stored), serve("race-b", stored)]);
    const site = { siteId: `raced-${FILE_TAG}`, siteType: "shop" };
    const answers = await Promise.all([a, b].map((url) => call(url, "POST", "/admin/v1/sites", ADMIN, site)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
    const listed = (await (await call(b, "GET", "/admin/v1/sites", ADMIN)).json()) as { sites: { siteId: string }[] };
    expect(listed.sites.filter((s) => s.siteId === site.siteId)).toHaveLength(1);
  });
}

describe("two servers on one SQLite file", () => {
  sharedTenants(async (name) => ({ adapter: "sqlite", path: join(dir, `${name}.db`) }));
});

describeWithRedis("two servers on one Redis", () => {
  sharedTenants(async (name) => ({ adapter: "redis", url: await sharedRedis(), keyPrefix: `${FILE_TAG}-${name}` }));
});

describeWithPostgres("two servers on one PostgreSQL", () => {
  sharedTenants(async (name) => ({ adapter: "postgres", url: await sharedPostgres(), schema: `${FILE_TAG}_${name}` }));
});
