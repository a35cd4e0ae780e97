// The `idempotencyKey` option of the catalog's imports, in-process: the same call again replays,
// another call under the key is refused, a key in use is refused, and a streamed body answered
// from the record is read to its end (its fingerprint needs every byte).
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Catalog, CatalogError, createCatalog, type Site } from "../src/index.ts";
import { sampleProduct } from "../src/testing/arbitraries.ts";
import { IMPORT_ID } from "./support/import-ids.ts";

let sites = 0;
function fresh(): { catalog: Catalog; site: Site } {
  const site = { siteId: `s${++sites}`, siteType: "test" };
  return { catalog: createCatalog({ store: createMemoryStore(), sites: [site] }), site };
}

const code = (promise: Promise<unknown>) =>
  promise.then(
    () => "ok",
    (error: unknown) => (error instanceof CatalogError ? error.code : String(error)),
  );

const csvOf = (ids: readonly string[]) =>
  `id,sku,title,available,featured_image,url\n${ids.map((id) => `${id},S-${id},T,true,https://i,https://u`).join("\n")}\n`;

describe("idempotencyKey", () => {
  it("replays every import call, applying nothing again", async () => {
    const { catalog, site } = fresh();
    const calls: [string, (key: string) => Promise<unknown>][] = [
      ["products", (key) => catalog.importProducts(site, [sampleProduct("a", "S-a")], { idempotencyKey: key })],
      ["product", (key) => catalog.importProduct(site, sampleProduct("b", "S-b"), { idempotencyKey: key })],
      ["csv", (key) => catalog.importCsv(site, csvOf(["c"]), { idempotencyKey: key })],
      ["stream", (key) => catalog.importStream(site, [csvOf(["d"])], { format: "csv", idempotencyKey: key })],
    ];
    for (const [name, call] of calls) {
      const first = await call(`key-${name}`);
      expect(first).toMatchObject({ created: 1, total: 1 });
      expect(first).not.toHaveProperty("replayed");
      await catalog.deleteProduct(
        site,
        name === "products" ? "a" : name === "product" ? "b" : name === "csv" ? "c" : "d",
      );
      expect(await call(`key-${name}`)).toEqual({ ...(first as object), replayed: true, importId: IMPORT_ID });
    }
    expect((await catalog.listProducts(site)).products).toEqual([]);
  });

  it("refuses another call under a used key, whatever differs", async () => {
    const { catalog, site } = fresh();
    const products = [sampleProduct("a", "S-a")];
    await catalog.importProducts(site, products, { idempotencyKey: "k" });
    expect(await code(catalog.importProducts(site, [sampleProduct("b", "S-b")], { idempotencyKey: "k" }))).toBe(
      "IDEMPOTENCY_KEY_REUSED",
    );
    expect(await code(catalog.importProducts(site, products, { idempotencyKey: "k", mode: "replace" }))).toBe(
      "IDEMPOTENCY_KEY_REUSED",
    );
    expect(await code(catalog.importCsv(site, csvOf(["a"]), { idempotencyKey: "k" }))).toBe("IDEMPOTENCY_KEY_REUSED");
    await expect(catalog.getProduct(site, "b")).rejects.toThrow(CatalogError);
  });

  it("refuses a key in use, and reads a replayed stream to its end", async () => {
    const { catalog, site } = fresh();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    async function* slow() {
      yield csvOf(["a"]);
      await gate;
    }
    const running = catalog.importStream(site, slow(), { format: "csv", idempotencyKey: "k" });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await code(catalog.importStream(site, [csvOf(["a"])], { format: "csv", idempotencyKey: "k" }))).toBe(
      "IDEMPOTENCY_KEY_IN_USE",
    );
    release();
    await running;
    let read = 0;
    async function* counted() {
      for (const piece of [csvOf(["a"]), ""]) {
        read++;
        yield piece;
      }
    }
    expect(await catalog.importStream(site, counted(), { format: "csv", idempotencyKey: "k" })).toMatchObject({
      replayed: true,
    });
    expect(read).toBe(2);
  });

  it("leaves the key unused after a refusal or a dry run; bad keys name the option", async () => {
    const { catalog, site } = fresh();
    const invalid = [{ ...sampleProduct("a", "S-a"), price: -1 }];
    expect(await code(catalog.importProducts(site, invalid, { idempotencyKey: "k" }))).toBe("VALIDATION_FAILED");
    const dry = await catalog.importProducts(site, [sampleProduct("a", "S-a")], { idempotencyKey: "k", dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, created: 1 });
    expect(await catalog.importProducts(site, [sampleProduct("a", "S-a")], { idempotencyKey: "k" })).toMatchObject({
      created: 1,
    });
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300 }), async (key) => {
        const valid = /^[\x21-\x7e]{1,255}$/.test(key);
        // A site of its own each run: "k" is used above, and a key of a site answers for that site.
        const other = fresh();
        const answer = other.catalog.importProducts(other.site, [sampleProduct("z", "S-z")], {
          idempotencyKey: key,
          dryRun: true,
        });
        if (valid) await expect(answer).resolves.toMatchObject({ dryRun: true });
        else
          await expect(answer).rejects.toMatchObject({
            code: "VALIDATION_FAILED",
            problems: [{ parameter: "idempotencyKey" }],
          });
      }),
      // "k", the key committed above, always among the runs: it is another site's key here.
      { numRuns: 100, examples: [["k"]] },
    );
  });

  it("claims no key for a body in memory to be written; a dry run's claim overlaps its checks, and it begins once granted", async () => {
    const site = { siteId: "overlap", siteType: "test" };
    const inner = createMemoryStore();
    const events: string[] = [];
    let grant!: () => void;
    const store = {
      ...inner,
      async claimKey(s: Site, key: string, leaseMs: number) {
        events.push("claim asked");
        await new Promise<void>((resolve) => {
          grant = resolve;
        });
        events.push("claim granted");
        return inner.claimKey(s, key, leaseMs);
      },
      async beginImport(s: Site, options: { dryRun: boolean }) {
        events.push("begin");
        return inner.beginImport(s, options);
      },
    };
    const catalog = createCatalog({ store, sites: [site] });
    // Its commit checks the key's record and claims: one call to the store.
    expect(await catalog.importProducts(site, [sampleProduct("a", "S-a")], { idempotencyKey: "k" })).toMatchObject({
      created: 1,
    });
    expect(events).toEqual(["begin"]);
    events.length = 0;
    const dry = { idempotencyKey: "d", dryRun: true };
    const running = catalog.importProducts(site, [sampleProduct("b", "S-b")], dry);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events).toEqual(["claim asked"]);
    grant();
    expect(await running).toMatchObject({ created: 1, dryRun: true });
    expect(events).toEqual(["claim asked", "claim granted", "begin"]);
  });

  it("answers a key another import holds as in use, writing nothing, and a bad body as bad", async () => {
    const { catalog, site } = fresh();
    const store = createMemoryStore();
    const held = createCatalog({ store, sites: [site] });
    const claim = await store.claimKey(site, "k", 60_000);
    expect(claim.state).toBe("claimed");
    const invalid = [{ ...sampleProduct("a", "S-a"), price: -1 }];
    expect(await code(held.importProducts(site, invalid, { idempotencyKey: "k" }))).toBe("VALIDATION_FAILED");
    for (const dryRun of [false, true]) {
      expect(await code(held.importProducts(site, [sampleProduct("a", "S-a")], { idempotencyKey: "k", dryRun }))).toBe(
        "IDEMPOTENCY_KEY_IN_USE",
      );
    }
    await expect(held.getProduct(site, "a")).rejects.toThrow(CatalogError);
    if (claim.state === "claimed") await claim.release();
    expect(await held.importProducts(site, [sampleProduct("a", "S-a")], { idempotencyKey: "k" })).toMatchObject({
      created: 1,
    });
    await catalog.close();
  });
});
