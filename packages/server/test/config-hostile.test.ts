// A hostile configuration file: __proto__, constructor and prototype as keys are refused, naming
// the key, and pollute nothing; as plain values they are just names.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.ts";

// Every own key of Object.prototype, to see that no file added one.
const prototypeKeys = () => Reflect.ownKeys(Object.prototype).map(String).sort();

function expectNoPollution(keysBefore: readonly string[]): void {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.hasOwn(Object.prototype, "polluted")).toBe(false);
  expect(prototypeKeys()).toEqual(keysBefore);
  expect(Object.getPrototypeOf({})).toBe(Object.prototype);
}

describe("prototype pollution", () => {
  const POISON = '{"polluted":"yes"}';
  let keysBefore: string[];
  beforeAll(() => {
    keysBefore = prototypeKeys();
  });

  it("a configuration file with __proto__, constructor or prototype keys is refused, naming the key, and pollutes nothing", async () => {
    const dir = await mkdtemp(join(tmpdir(), "catalog-hostile-"));
    try {
      const site = '{"siteId":"s","siteType":"t"}';
      const config = (sites: string, tokens: string, rest = "") => `{"sites":[${sites}],"tokens":[${tokens}]${rest}}`;
      const token = '{"token":"t","sites":"*"}';
      const cases: [string, string][] = [
        [config(site, token, `,"__proto__":${POISON}`), "__proto__: Unknown key"],
        [config(site, token, `,"constructor":{"prototype":${POISON}}`), "constructor: Unknown key"],
        [config(site, token, `,"prototype":${POISON}`), "prototype: Unknown key"],
        [config(site, `{"token":"t","sites":[${site}],"__proto__":{"sites":"*"}}`), "tokens[0].__proto__: Unknown key"],
        [config(site.replace("{", `{"__proto__":${POISON},`), token), "sites[0].__proto__: Unknown key"],
        [config(site, token, `,"limits":{"__proto__":{"maxBodyBytes":1}}`), "limits.__proto__: Unknown key"],
        [config(site, token, `,"storage":{"adapter":"memory","constructor":{}}`), "storage.constructor: Unknown key"],
      ];
      for (const [n, [text, named]] of cases.entries()) {
        const file = join(dir, `config-${n}.json`);
        await writeFile(file, text);
        const error = await loadConfig(file).catch((caught: unknown) => caught);
        expect(error, text).toBeInstanceOf(ConfigError);
        expect((error as ConfigError).issues, text).toContain(named);
        expectNoPollution(keysBefore);
      }
      // The same names as plain values are just names.
      const file = join(dir, "names.json");
      await writeFile(
        file,
        config('{"siteId":"__proto__","siteType":"constructor"}', '{"token":"prototype","sites":"*"}'),
      );
      const loaded = await loadConfig(file);
      expect(loaded.sites).toEqual([{ siteId: "__proto__", siteType: "constructor" }]);
      expect(Object.getPrototypeOf(loaded.sites[0])).toBe(Object.prototype);
      expectNoPollution(keysBefore);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
