// A hostile configuration file: __proto__, constructor and prototype as keys are refused, naming
// the key, and pollute nothing; as plain values they are just names. Names a store cannot hold
// as given are refused at their key.
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

// Names PostgreSQL cannot hold as given: two sites that differ only in lone surrogates would be
// one site there (the driver writes U+FFFD for each), so that one token's replace would empty
// the other's catalog; a schema over 63 bytes would be cut to another schema's name.
describe("names a store cannot hold", () => {
  const token = { token: "t", sites: "*" };
  const site = { siteId: "s", siteType: "t" };
  // JSON escapes, as a file would hold them: JSON.stringify writes lone surrogates escaped.
  const issuesOfFile = async (config: unknown): Promise<readonly string[]> => {
    const dir = await mkdtemp(join(tmpdir(), "catalog-names-"));
    try {
      const file = join(dir, "config.json");
      await writeFile(file, JSON.stringify(config));
      const error = await loadConfig(file).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConfigError);
      return (error as ConfigError).issues;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };

  it("site ids and types that are not well-formed Unicode, or hold NUL, are refused at their key", async () => {
    const sites = [
      site,
      { siteId: "tenant\ud800", siteType: "shopify" },
      { siteId: "tenant\udc00", siteType: "shopify" },
      { siteId: "tenant", siteType: "shop\u0000ify" },
    ];
    expect(await issuesOfFile({ sites, tokens: [token] })).toEqual([
      "sites[1].siteId: Must be well-formed Unicode (no lone surrogates)",
      "sites[2].siteId: Must be well-formed Unicode (no lone surrogates)",
      "sites[3].siteType: Must not contain NUL (U+0000)",
    ]);
    const inToken = {
      token: "a",
      sites: [{ siteId: "s\ud800", siteType: "t" }],
      defaultSite: { siteId: "s", siteType: "\u0000" },
    };
    expect(await issuesOfFile({ sites: [site], tokens: [inToken] })).toEqual([
      "tokens[0].sites[0].siteId: Must be well-formed Unicode (no lone surrogates)",
      "tokens[0].defaultSite.siteType: Must not contain NUL (U+0000)",
    ]);
  });

  it("a postgres schema PostgreSQL would cut short, reserves or cannot hold is refused, naming why", async () => {
    const storage = (schema: string) => ({
      sites: [site],
      tokens: [token],
      storage: { adapter: "postgres", url: "postgres://db/catalog", schema },
    });
    const cases: [string, RegExp][] = [
      ["s".repeat(64), /^storage\.schema: Must be at most 63 bytes/],
      ["é".repeat(32), /^storage\.schema: Must be at most 63 bytes/],
      ["pg_shop", /^storage\.schema: Must not start with "pg_"/],
      ["shop\u0000", /^storage\.schema: Must be well-formed Unicode without NUL/],
      ["shop\ud800", /^storage\.schema: Must be well-formed Unicode without NUL/],
      ["", /^storage\.schema: Must not be empty$/],
    ];
    for (const [schema, issue] of cases) {
      const issues = await issuesOfFile(storage(schema));
      expect(issues, schema).toHaveLength(1);
      expect(issues[0], schema).toMatch(issue);
    }
    const longest = `${"é".repeat(31)}s`;
    const dir = await mkdtemp(join(tmpdir(), "catalog-names-"));
    try {
      await writeFile(join(dir, "ok.json"), JSON.stringify(storage(longest)));
      expect((await loadConfig(join(dir, "ok.json"))).storage).toMatchObject({ schema: longest });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
