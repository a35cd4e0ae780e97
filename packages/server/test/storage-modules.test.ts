// The server as `npm start` runs it, with its storage adapter loaded by module: on memory storage
// it never imports ioredis or pg (a hook makes either import fail, and a Redis or PostgreSQL
// storage shows that it does), and an outside adapter package named in the configuration file
// serves imports and lookups.
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type CliProcess, startCli, stopCli } from "@catalog-kit/test-support/http";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, product, SITE_A } from "./support/fixtures.ts";

const REFUSE_DRIVERS = new URL("./fixtures/refuse-drivers.mjs", import.meta.url).href;
const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));

const dir = await mkdtemp(join(tmpdir(), "catalog-modules-"));
await mkdir(join(dir, "node_modules"));
await symlink(join(FIXTURES, "catalog-store-fixture"), join(dir, "node_modules", "catalog-store-fixture"), "junction");
const running: CliProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map(stopCli));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function start(name: string, storage: unknown, env: Record<string, string> = {}): Promise<CliProcess> {
  const file = join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify({ sites: [SITE_A], tokens: [{ token: ADMIN_TOKEN, sites: "*" }], storage }));
  const server = startCli({ CATALOG_CONFIG: file, ACCESS_LOG: "off", ...env });
  running.push(server);
  return server;
}

const withoutDrivers = { NODE_OPTIONS: `--import=${REFUSE_DRIVERS}` };

describe("memory storage loads no database driver", () => {
  it("starts and answers with every import of ioredis and pg failing", async () => {
    const server = await start("memory", { adapter: "memory" }, withoutDrivers);
    const out = await server.waitForOutput(/, memory storage\n/);
    const url = /listening on (http:\S+)/.exec(out)?.[1] as string;
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(server.stderr()).toBe("");
  });

  it("while a Redis or a PostgreSQL storage cannot start under the same hook: it would see a driver", async () => {
    const storages = [
      ["redis", { adapter: "redis", url: "redis://127.0.0.1:1" }, "ioredis"],
      ["postgres", { adapter: "postgres", url: "postgres://127.0.0.1:1/catalog" }, "pg"],
    ] as const;
    for (const [name, storage, driver] of storages) {
      const server = await start(name, storage, withoutDrivers);
      expect(await server.exited, name).toBe(1);
      expect(server.stderr()).toContain(`storage.adapter: Cannot load "${name}": ${driver} was imported`);
    }
  });
});

describe("an outside adapter package beside the configuration file", () => {
  it("serves imports and lookups, and is named at start-up", async () => {
    const server = await start("outside", { adapter: "catalog-store-fixture", label: "served" });
    const out = await server.waitForOutput(/, catalog-store-fixture storage\n/);
    const url = /listening on (http:\S+)/.exec(out)?.[1] as string;
    const headers = { "x-service-access-token": ADMIN_TOKEN, "content-type": "application/json" };
    const imported = await fetch(`${url}/external/product/v1`, {
      method: "POST",
      headers,
      body: JSON.stringify({ ...SITE_A, product: product("o-1") }),
    });
    expect(await imported.json()).toMatchObject({ total: 1, created: 1 });
    const found = await fetch(`${url}/external/product/v1/o-1?siteId=${SITE_A.siteId}&siteType=${SITE_A.siteType}`, {
      headers,
    });
    expect(await found.json()).toMatchObject({ id: "o-1", sku: "SKU-o-1" });
  });

  it("refuses to start with an option its schema refuses, naming the key", async () => {
    const server = await start("refused", { adapter: "catalog-store-fixture", label: 7 });
    expect(await server.exited).toBe(1);
    expect(server.stderr()).toContain("  - storage.label: Must be a string\n");
  });
});
