// A schema name PostgreSQL would not keep as given (cut to 63 bytes, so that two long names are
// one schema; `pg_`, which it reserves; NUL or lone surrogates, which it cannot hold) is refused
// by the store and by `migrate` before any connection is opened.
import { createPostgresStore, migrate, schemaProblem } from "@catalog-kit/adapter-postgres";
import { describe, expect, test } from "vitest";

// Nothing listens here: a store that got as far as connecting would fail otherwise.
const url = "postgres://catalog@127.0.0.1:9/catalog";

const REFUSED: [string, string, RegExp][] = [
  ["64 bytes of ASCII", "s".repeat(64), /63 bytes/],
  ["64 bytes of two-byte characters", "é".repeat(32), /63 bytes/],
  ["the pg_ prefix", "pg_catalog_kit", /pg_/],
  ["NUL", "cata\u0000log", /NUL/],
  ["a lone surrogate", "catalog\ud800", /well-formed/],
  ["nothing", "", /empty/],
];

describe("the schema's name", () => {
  test.each(REFUSED)("%s is refused by createPostgresStore and migrate, naming why", async (_, schema, why) => {
    expect(schemaProblem(schema)).toMatch(why);
    expect(() => createPostgresStore({ url, schema })).toThrow(TypeError);
    expect(() => createPostgresStore({ url, schema })).toThrow(why);
    await expect(migrate({ url, schema })).rejects.toThrow(why);
  });

  test("63 bytes, upper-case PG_ (a quoted name of its own) and any well-formed text are taken", async () => {
    for (const schema of ["s".repeat(63), `${"é".repeat(31)}s`, "PG_shop", "catalog", "boutique-😀", 'a"b']) {
      expect(schemaProblem(schema), schema).toBeUndefined();
      await createPostgresStore({ url, schema }).close();
    }
  });
});
