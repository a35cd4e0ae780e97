// What the READMEs state of the code, checked against it: the storage backends the intro and the
// test command name, the number of methods of `CatalogStore`, and the packages' module format.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { publishedPackages } from "@catalog-kit/test-support";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const read = (path: string) => readFile(`${ROOT}${path}`, "utf8");
const readme = await read("README.md");
const NUMBERS = [
  ...["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"],
  ...["thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"],
];

it("the root README's intro names every storage adapter, and its test command every server the tests start", () => {
  const intro = readme.slice(0, readme.indexOf("\n## "));
  for (const backend of ["memory", "Redis", "Redis Cluster", "PostgreSQL"]) expect(intro).toContain(backend);
  const testLine = intro.split("\n").find((line) => line.includes("npm test")) as string;
  expect(testLine).toMatch(/redis-server/);
  expect(testLine).toMatch(/PostgreSQL|postgresql/);
});

it("says how many methods CatalogStore has wherever a README counts them", async () => {
  const store = await read("packages/catalog-core/src/store.ts");
  const body = /export interface CatalogStore \{([\s\S]*?)\n\}/.exec(store)?.[1] ?? "";
  const methods = [...body.matchAll(/^ {2}(\w+)\(/gm)].map(([, name]) => name);
  expect(methods).toHaveLength(16);
  for (const path of ["README.md", "examples/custom-adapter/README.md", "packages/catalog-core/ADAPTERS.md"]) {
    const counts = [...(await read(path)).matchAll(/\b(\w+) (?:async )?methods\b/g)].map(([, n]) => n as string);
    const said = counts.filter((word) => NUMBERS.includes(word));
    expect(said.length, path).toBeGreaterThan(0);
    for (const word of said) expect(word, path).toBe(NUMBERS[methods.length]);
  }
});

describe("the packages are ESM only, and say so", () => {
  it("in the root README", () => {
    expect(readme).toMatch(/ESM only/);
  });

  const workspaces = publishedPackages();
  it.each(workspaces)("%s: no require condition in its exports, and ESM only on its install line", async (name) => {
    const manifest = JSON.parse(await read(`packages/${name}/package.json`)) as { type: string; exports: unknown };
    expect(manifest.type).toBe("module");
    expect(JSON.stringify(manifest.exports)).not.toContain('"require"');
    const install = (await read(`packages/${name}/README.md`))
      .split("\n")
      .find((line) => line.startsWith(`npm install @catalog-kit/`));
    expect(install).toMatch(/ESM only/);
  });
});
