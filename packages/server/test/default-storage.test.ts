// A configuration that names no storage keeps its catalog in a SQLite file beside itself: the
// server as `npm start` runs it, stopped and started again, still holds what it acknowledged.
import { access, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CliProcess, startCli, stopCli } from "@catalog-kit/test-support/http";
import { afterAll, afterEach, expect, it } from "vitest";
import { ADMIN_TOKEN, product, SITE_A } from "./support/fixtures.ts";

const dir = await mkdtemp(join(tmpdir(), "catalog-default-storage-"));
const running: CliProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map(stopCli));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const file = join(dir, "catalog.json");
const headers = { "x-service-access-token": ADMIN_TOKEN, "content-type": "application/json" };

async function start(): Promise<string> {
  const server = startCli({ CATALOG_CONFIG: file, ACCESS_LOG: "off" });
  running.push(server);
  const out = await server.waitForOutput(/, sqlite storage\n/);
  return /listening on (http:\S+)/.exec(out)?.[1] as string;
}

it("keeps the products of a configuration without storage across a restart, in catalog-kit.db beside it", async () => {
  await writeFile(file, JSON.stringify({ sites: [SITE_A], tokens: [{ token: ADMIN_TOKEN, sites: "*" }] }));
  let url = await start();
  const imported = await fetch(`${url}/external/product/v1/bulk`, {
    method: "POST",
    headers,
    body: JSON.stringify({ ...SITE_A, products: [product("kept-1"), product("kept-2")] }),
  });
  expect(await imported.json()).toMatchObject({ total: 2, created: 2 });
  await Promise.all(running.splice(0).map(stopCli));
  await access(join(dir, "catalog-kit.db"));

  url = await start();
  const query = `siteId=${SITE_A.siteId}&siteType=${SITE_A.siteType}`;
  const found = await fetch(`${url}/external/product/v1/kept-2?${query}`, { headers });
  expect(found.status).toBe(200);
  expect(await found.json()).toMatchObject({ id: "kept-2", sku: "SKU-kept-2" });
});
