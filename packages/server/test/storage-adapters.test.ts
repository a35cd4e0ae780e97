// Storage adapters as modules: an outside package named in the configuration, found beside the
// file and held to the storage contract; a module named by its path; and every way a name or its
// options can fail, each a configuration error at its key.
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { testCatalogStore } from "@catalog-kit/catalog-core/testing";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig, parseConfig } from "../src/config.ts";
import { openStore } from "../src/open-store.ts";

const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));
const FIXTURE = join(FIXTURES, "catalog-store-fixture");
// Where the fixture leaves what its last `create` was given.
const OPENED = Symbol.for("catalog-store-fixture.opened");
const opened = () => (globalThis as Record<symbol, unknown>)[OPENED];

// The configuration's folder, with the adapter packages installed beside it as npm would put
// them (here, links to the fixtures).
const dir = await mkdtemp(join(tmpdir(), "catalog-adapters-"));
afterAll(() => rm(dir, { recursive: true, force: true }));
await mkdir(join(dir, "node_modules"));
for (const name of ["catalog-store-fixture", "not-an-adapter"])
  await symlink(join(FIXTURES, name), join(dir, "node_modules", name), "junction");

const base = { sites: [{ siteId: "s", siteType: "t" }], tokens: [{ token: "t", sites: "*" }] };
let files = 0;

async function configFile(storage: unknown, rest: object = {}): Promise<string> {
  const file = join(dir, `config-${files++}.json`);
  await writeFile(file, JSON.stringify({ ...base, ...rest, storage }));
  return file;
}

async function issuesOf(storage: unknown, rest: object = {}): Promise<readonly string[]> {
  const error = await loadConfig(await configFile(storage, rest)).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).issues;
}

const byName = await loadConfig(await configFile({ adapter: "catalog-store-fixture", label: "by name" }));

describe("an outside adapter named by its package, beside the configuration file", () => {
  testCatalogStore(() => openStore(byName.storage, { configDir: dir }), {
    numRuns: 25,
    breakable: { notApplicable: "the fixture's store is the memory store: there is no backend to lose" },
    closing: { notApplicable: "the fixture's store is the memory store, which keeps answering after close" },
  });

  it("is given its options as its schema gave them, and the configuration's folder", async () => {
    expect(byName.storage).toEqual({ adapter: "catalog-store-fixture", label: "by name", dataFile: "catalog.data" });
    await (await openStore(byName.storage, { configDir: dir })).close();
    expect(opened()).toEqual({
      options: { label: "by name", dataFile: "catalog.data" },
      context: { configDir: dir },
      dataFile: join(dir, "catalog.data"),
    });
  });

  it("has its options validated by openStore when only parsed", async () => {
    const { storage } = parseConfig({ ...base, storage: { adapter: "catalog-store-fixture", label: 5 } });
    const error = await openStore(storage, { configDir: dir }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues).toEqual(["storage.label: Must be a string"]);
  });
});

describe("an adapter named by its path", () => {
  it("is found relative to the configuration file, as a file or a package folder, or absolute, or as a file URL", async () => {
    const file = join(FIXTURE, "index.js");
    // A relative name starts with ./ or ../, as in an import.
    const beside = (path: string) =>
      relative(dir, path).startsWith("..") ? relative(dir, path) : `./${relative(dir, path)}`;
    for (const name of [beside(file), beside(FIXTURE), file, pathToFileURL(file).href]) {
      const config = await loadConfig(await configFile({ adapter: name, dataFile: "data/products.db" }));
      expect(config.storage, name).toEqual({ adapter: name, label: "fixture", dataFile: "data/products.db" });
      const store = await openStore(config.storage, { configDir: dir });
      await expect(store.ping()).resolves.toBeUndefined();
      await store.close();
      expect(opened(), name).toMatchObject({ dataFile: join(dir, "data", "products.db") });
    }
  });

  it("a module written beside the configuration, with no schema, gets its options as written", async () => {
    await writeFile(
      join(dir, "plain.js"),
      `export { create } from ${JSON.stringify(pathToFileURL(join(FIXTURE, "index.js")).href)};\n`,
    );
    const config = await loadConfig(await configFile({ adapter: "./plain.js", dataFile: "/srv/catalog.db", extra: 1 }));
    expect(config.storage).toEqual({ adapter: "./plain.js", dataFile: "/srv/catalog.db", extra: 1 });
    await (await openStore(config.storage, { configDir: dir })).close();
    expect(opened()).toMatchObject({ options: { dataFile: "/srv/catalog.db", extra: 1 }, dataFile: "/srv/catalog.db" });
  });
});

describe("an adapter package's exports, read as an import() in Node reads them", () => {
  it("takes the import condition over a require one listed first, a subpath pattern, and refuses what it does not export", async () => {
    const root = join(dir, "node_modules", "@acme", "stores");
    await mkdir(join(root, "esm", "kinds"), { recursive: true });
    const reexport = `export { create, schema } from ${JSON.stringify(pathToFileURL(join(FIXTURE, "index.js")).href)};\n`;
    await writeFile(join(root, "esm", "main.js"), reexport);
    await writeFile(join(root, "esm", "kinds", "fast.js"), reexport);
    await writeFile(join(root, "main.cjs"), 'throw new Error("the require entry was taken");\n');
    await writeFile(
      join(root, "package.json"),
      JSON.stringify({
        name: "@acme/stores",
        type: "module",
        exports: {
          ".": { require: "./main.cjs", node: { import: "./esm/main.js" } },
          "./kinds/*": { import: "./esm/kinds/*.js" },
          "./kinds/hidden": null,
        },
      }),
    );
    for (const adapter of ["@acme/stores", "@acme/stores/kinds/fast"]) {
      const config = await loadConfig(await configFile({ adapter, label: adapter }));
      await (await openStore(config.storage, { configDir: dir })).close();
      expect(opened(), adapter).toMatchObject({ options: { label: adapter } });
    }
    const manifest = join(await realpath(root), "package.json");
    expect(await issuesOf({ adapter: "@acme/stores/kinds/hidden" })).toEqual([
      `storage.adapter: ${manifest} exports no "./kinds/hidden" for import()`,
    ]);
    expect(await issuesOf({ adapter: "@acme/stores/other" })).toEqual([
      `storage.adapter: ${manifest} exports no "./other" for import()`,
    ]);
  });
});

describe("an adapter that cannot be used is a configuration error at its key", () => {
  it("names a package that is not installed, or a file that is not there", async () => {
    expect(await issuesOf({ adapter: "no-such-adapter" })).toEqual([
      `storage.adapter: Cannot find the package "no-such-adapter" from ${dir} or from the server ` +
        '(the bundled adapters are memory, redis, postgres, sqlite; a file is named by its path, such as "./store.js")',
    ]);
    expect(await issuesOf({ adapter: "./missing.js" })).toEqual([
      `storage.adapter: Cannot find "./missing.js": there is no ${join(dir, "missing.js")}`,
    ]);
  });

  it("names a module that exports no create, or a schema that is not a Standard Schema", async () => {
    const file = join(await realpath(join(FIXTURES, "not-an-adapter")), "index.js");
    expect(await issuesOf({ adapter: "not-an-adapter" })).toEqual([
      `storage.adapter: "not-an-adapter" (${file}): Is not a storage adapter module: it exports no create function (it exports open, version)`,
    ]);
    await writeFile(join(dir, "odd-schema.js"), "export const schema = { parse() {} };\nexport function create() {}\n");
    expect(await issuesOf({ adapter: "./odd-schema.js" })).toEqual([
      `storage.adapter: "./odd-schema.js" (${join(dir, "odd-schema.js")}): Exports a schema that is not a Standard Schema v1 (no ~standard.validate): export a valibot, zod or arktype schema of the options, or none`,
    ]);
  });

  it("names a module that fails to load, with its own message", async () => {
    await writeFile(join(dir, "broken.js"), 'throw new Error("the driver is not installed");\n');
    expect(await issuesOf({ adapter: "./broken.js" })).toEqual([
      `storage.adapter: Cannot load "./broken.js" (${join(dir, "broken.js")}): the driver is not installed`,
    ]);
  });

  it("names each option its schema refuses, beside the file's other problems", async () => {
    expect(await issuesOf({ adapter: "catalog-store-fixture", label: 5, colour: "red" })).toEqual([
      "storage.colour: Not an option of this store",
      "storage.label: Must be a string",
    ]);
    expect(await issuesOf({ adapter: "catalog-store-fixture", label: 5 }, { limits: { maxBodyBytes: 0 } })).toEqual([
      "limits.maxBodyBytes: Must be at least 1",
      "storage.label: Must be a string",
    ]);
  });
});
