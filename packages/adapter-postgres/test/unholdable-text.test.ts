// Text PostgreSQL cannot hold (NUL, which `text` refuses; lone surrogates, which the driver would
// send as U+FFFD, another string) names no product and no site: a lookup, a remove or a page of
// it finds nothing, never fails, and never fails the other lookups sent in its statement.
import { createPostgresStore, type PostgresStore } from "@catalog-kit/adapter-postgres";
import { isCatalogError, type Product } from "@catalog-kit/catalog-core";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { describeWithPostgres, FILE_TAG, sharedPostgres } from "@catalog-kit/test-support/vitest";
import { afterAll, beforeAll, expect, test } from "vitest";
import { Lookups, type Read } from "../src/lookups.ts";
import { tablesOf } from "../src/schema.ts";
import { importInChunks, products } from "./support/fixtures.ts";

const NUL_KEY = "p00007\u0000";
// U+FFFD is what the driver would write for the lone surrogate: a product holds it, to be missed.
const SURROGATE_KEY = "p00009\ud800";
const REPLACED = "p00009\ufffd";

describeWithPostgres("PostgreSQL store: text it cannot hold", () => {
  let store: PostgresStore;

  beforeAll(async () => {
    store = createPostgresStore({ url: await sharedPostgres(), schema: FILE_TAG });
    await store.ping();
  });
  afterAll(async () => {
    await store?.close();
  });

  async function seeded() {
    const site = uniqueSite();
    const items: Product[] = [
      ...products(0, 30, "a"),
      { ...products(9, 10, "a")[0], id: REPLACED, sku: "odd" } as Product,
    ];
    await importInChunks(store, site, items);
    return site;
  }

  // 30 keys asked at once: 28 stored ones, the NUL one and the lone surrogate one.
  const keysOfBatch = () => products(0, 30, "a").map((p, i) => (i === 7 ? NUL_KEY : i === 9 ? SURROGATE_KEY : p.id));

  test("30 lookups at once, one key with NUL and one with a lone surrogate: those find nothing, the 28 others their product", async () => {
    const site = await seeded();
    const keys = keysOfBatch();
    for (const by of [undefined, "id", "sku"] as const) {
      const asked =
        by === "sku" ? keys.map((key, i) => (key.startsWith("p") && key.length === 6 ? `sku-${i}` : key)) : keys;
      const found = await Promise.all(asked.map((key) => store.find(site, key, by)));
      expect(found[7]).toBeUndefined();
      expect(found[9]).toBeUndefined();
      const others = found.filter((_, i) => i !== 7 && i !== 9).map((p) => p?.title);
      expect(others).toEqual(
        products(0, 30, "a")
          .filter((_, i) => i !== 7 && i !== 9)
          .map((p) => p.title),
      );
    }
  });

  test("30 removes at once, one key with NUL and one with a lone surrogate: those remove nothing, the 28 others their product", async () => {
    const site = await seeded();
    const removed = await Promise.all(keysOfBatch().map((key) => store.remove(site, key)));
    expect(removed[7]).toBeUndefined();
    expect(removed[9]).toBeUndefined();
    expect(removed.filter((p) => p !== undefined)).toHaveLength(28);
    expect((await store.find(site, "p00007"))?.title).toBe("a 7");
    expect((await store.find(site, REPLACED))?.id).toBe(REPLACED);
  });

  test("a site with NUL or a lone surrogate has no products, and asking for it fails no one else", async () => {
    const site = await seeded();
    const ghosts = [
      { ...site, siteId: `${site.siteId}\u0000` },
      { ...site, siteType: `${site.siteType}\u0000` },
      { ...site, siteId: `${site.siteId}\udc00` },
    ];
    const asks = await Promise.all([
      ...ghosts.map((ghost) => store.find(ghost, "p00001")),
      ...ghosts.map((ghost) => store.remove(ghost, "p00001")),
      store.find(site, "p00001"),
    ]);
    expect(asks.slice(0, -1)).toEqual(ghosts.flatMap(() => [undefined, undefined]));
    expect(asks.at(-1)?.title).toBe("a 1");
    for (const ghost of ghosts) {
      expect(await store.list(ghost, undefined, 10)).toEqual([]);
      expect(await store.list(ghost, "p00001", 10)).toEqual([]);
    }
  });

  test("an import or a key claim into a site with NUL or a lone surrogate is refused, and writes nothing", async () => {
    const site = uniqueSite();
    // Each would be the same row as `site` with U+FFFD, or fail in the middle of the import.
    const ghosts = [
      { ...site, siteId: `${site.siteId}\ud800` },
      { ...site, siteId: `${site.siteId}\udc00` },
      { ...site, siteType: `${site.siteType}\u0000` },
    ];
    for (const ghost of ghosts) {
      const began = await store.beginImport(ghost, { dryRun: false, replace: false }).catch((error: unknown) => error);
      expect(isCatalogError(began, "VALIDATION_FAILED"), String(began)).toBe(true);
      const claimed = await store.claimKey(ghost, "k", 1_000).catch((error: unknown) => error);
      expect(isCatalogError(claimed, "VALIDATION_FAILED"), String(claimed)).toBe(true);
    }
    await importInChunks(store, site, products(0, 3, "real"));
    expect((await store.find(site, "p00001"))?.title).toBe("real 1");
    expect(await store.find({ ...site, siteId: `${site.siteId}\ufffd` }, "p00001")).toBeUndefined();
  });
});

test("a batch PostgreSQL refuses for the data of one key is asked again key by key: only that key fails", async () => {
  // A stand-in for PostgreSQL that refuses a statement holding the key "bad" (SQLSTATE 22021).
  const read: Read = async (_what, _sql, args) => {
    const keys = (Array.isArray(args[2]) ? args[2] : [args[2]]) as string[];
    if (keys.includes("bad")) throw Object.assign(new Error("invalid byte sequence"), { code: "22021" });
    return (
      Array.isArray(args[2]) ? keys.map((key, i) => ({ i: String(i + 1), body: `#${key}` })) : [{ body: `#${keys[0]}` }]
    ) as never;
  };
  const lookups = new Lookups(tablesOf("catalog"), read);
  const site = uniqueSite();
  const asked = ["a", "bad", "c", "d"];
  const answers = await Promise.allSettled(asked.map((key) => lookups.find(site, key, undefined)));
  expect(answers.map((answer) => answer.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
  expect(answers.filter((answer) => answer.status === "fulfilled").map((answer) => answer.value)).toEqual([
    "#a",
    "#c",
    "#d",
  ]);
});

test("a batch that fails for any other reason (the server is gone) fails each of its lookups once, not key by key", async () => {
  let statements = 0;
  const read: Read = async () => {
    statements++;
    throw Object.assign(new Error("Connection terminated"), {});
  };
  const lookups = new Lookups(tablesOf("catalog"), read);
  const site = uniqueSite();
  const answers = await Promise.allSettled(["a", "b", "c"].map((key) => lookups.find(site, key, undefined)));
  expect(answers.map((answer) => answer.status)).toEqual(["rejected", "rejected", "rejected"]);
  expect(statements).toBe(1);
});
