import { encodeProduct, PRODUCT_FIELDS, type Product } from "@catalog-kit/catalog-core";
import { productArb } from "@catalog-kit/catalog-core/testing";
import { type RedisServer, startRedisServer } from "@catalog-kit/test-support";
import { describeWithRedis } from "@catalog-kit/test-support/vitest";
import { fc, test } from "@fast-check/vitest";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { type Chunk, chunksOf, MAX_CHUNK_CHARS } from "../src/chunk.ts";
import { siteKeys } from "../src/keys.ts";
import { callScript } from "../src/lua.ts";
import { UPSERT } from "../src/scripts/upsert.ts";
import { product } from "./support/products.ts";

// Ids, skus and text built from what the chunk format cuts on: quotes, backslashes, braces,
// the separator '},{"' (a string may end in '},{'), the keys Lua looks for, plus control
// characters (escaped by JSON) and characters of two, three and four bytes in UTF-8.
const tricky = fc
  .array(
    fc.constantFrom(
      '"',
      "\\",
      "{",
      "}",
      ",",
      ":",
      "},{",
      '},{"id":',
      '"id":"',
      '","sku":"',
      '"sku":"',
      "\n",
      "\u0001",
      "é",
      "€",
      "😀",
      "a",
    ),
    { minLength: 1, maxLength: 6 },
  )
  .map((parts) => parts.join(""));
const key = fc.oneof(fc.stringMatching(/^[a-z0-9-]{1,12}$/), tricky);
const trickyProduct = fc
  .tuple(productArb(key, key), tricky)
  .map(([p, text]) => ({ ...p, title: `${p.title}${text}`, images: [text, ...(p.images ?? [])] }));
const batchArb = fc.uniqueArray(trickyProduct, { selector: (p) => p.id, maxLength: 40 });

const payload = (chunk: Chunk) => (chunk.args[1] as Buffer).toString("utf8");

describe("chunksOf", () => {
  test.prop([batchArb, fc.integer({ min: 1, max: 50 })])(
    "cuts a batch in order into chunks whose JSON is encodeProduct's",
    (batch, size) => {
      const chunks = [...chunksOf(batch, size)];
      let from = 0;
      for (const chunk of chunks) {
        expect(chunk.count).toBeGreaterThan(0);
        expect(chunk.count).toBeLessThanOrEqual(size);
        const slice = batch.slice(from, from + chunk.count);
        expect(chunk.args[0]).toBe(String(chunk.count));
        expect(payload(chunk)).toBe(`[${slice.map(encodeProduct).join(",")}]`);
        from += chunk.count;
      }
      expect(from).toBe(batch.length);
    },
  );

  test("keeps the JSON of a chunk near MAX_CHUNK_CHARS, one product at least", () => {
    const description = "x".repeat(60_000);
    const batch = Array.from({ length: 200 }, (_, i) => product(`id-${i}`, `sku-${i}`, { description }));
    const chunks = [...chunksOf(batch, 1_000)];
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(payload(chunk).length).toBeLessThan(MAX_CHUNK_CHARS + 70_000);
    expect(chunks.reduce((n, c) => n + c.count, 0)).toBe(200);
    const huge = product("huge", "huge-sku", { description: "y".repeat(3 * MAX_CHUNK_CHARS) });
    expect([...chunksOf([huge, ...batch.slice(0, 3)], 1_000)].map((c) => c.count)).toEqual([1, 3]);
  });
});

describeWithRedis("the chunk format in Lua", () => {
  let server: RedisServer;
  let client: Redis;
  beforeAll(async () => {
    server = await startRedisServer();
    client = new Redis(server.url);
  });
  afterAll(async () => {
    client?.disconnect();
    await server?.stop();
  });

  // Distinct skus, as the catalog hands a store: the upsert script would refuse a batch whose
  // later chunk claims a sku an earlier chunk gave to another product.
  const distinctSkus = batchArb.filter((b) => b.length > 0 && new Set(b.map((p) => p.sku)).size === b.length);
  test.prop([distinctSkus, fc.integer({ min: 1, max: 50 })], { numRuns: 60 })(
    "Lua reads back every id, sku and JSON a client sent",
    async (batch: Product[], size) => {
      const site = siteKeys("chunk:", { siteType: "t", siteId: "s" });
      const keys = [site.products, site.skus, site.skuOf];
      await client.del(...keys);
      for (const chunk of chunksOf(batch, size)) {
        expect(await callScript(client, UPSERT, site, { dryRun: false, products: chunk })).toMatchObject({
          outcome: "ok",
        });
      }
      const [products, skus, skuOf] = await Promise.all(keys.map((k) => client.hgetall(k)));
      expect(products).toEqual(Object.fromEntries(batch.map((p) => [p.id, encodeProduct(p)])));
      expect(skus).toEqual(Object.fromEntries(batch.map((p) => [p.sku, p.id])));
      expect(skuOf).toEqual(Object.fromEntries(batch.map((p) => [p.id, p.sku])));
    },
  );

  // The chunk as chunk.ts sends it, but each product's fields in an order of its own.
  const reordered = (batch: readonly Product[], orders: readonly (readonly string[])[]): Chunk => {
    const jsons = batch.map((p, i) => JSON.stringify(p, orders[i] as string[]));
    const args: (string | Buffer)[] = [String(batch.length), Buffer.from(`[${jsons.join(",")}]`)];
    batch.forEach(({ id, sku }, i) => {
      if (JSON.stringify(id) !== `"${id}"` || JSON.stringify(sku) !== `"${sku}"`) args.push(String(i + 1), id, sku);
    });
    return { args, count: batch.length };
  };
  const order = fc.shuffledSubarray([...PRODUCT_FIELDS], { minLength: PRODUCT_FIELDS.length });
  test.prop([distinctSkus, fc.array(order, { minLength: 40, maxLength: 40 })], { numRuns: 60 })(
    "Lua reads every id and sku whatever the order of a product's fields",
    async (batch: Product[], orders) => {
      const site = siteKeys("chunk:", { siteType: "t", siteId: "order" });
      const keys = [site.products, site.skus, site.skuOf];
      await client.del(...keys);
      const chunk = reordered(batch, orders);
      expect(await callScript(client, UPSERT, site, { dryRun: false, products: chunk })).toMatchObject({
        outcome: "ok",
      });
      const [products, skus, skuOf] = await Promise.all(keys.map((k) => client.hgetall(k)));
      expect(products).toEqual(
        Object.fromEntries(batch.map((p, i) => [p.id, JSON.stringify(p, orders[i] as string[])])),
      );
      expect(skus).toEqual(Object.fromEntries(batch.map((p) => [p.sku, p.id])));
      expect(skuOf).toEqual(Object.fromEntries(batch.map((p) => [p.id, p.sku])));
    },
  );
});
