// The memory store against the storage contract, and its field-by-field code against encodeProduct.
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { decodeProduct, encodeProduct, PRODUCT_FIELDS, type Product } from "@catalog-kit/catalog-core";
import { productArb, testCatalogStore, uniqueSite } from "@catalog-kit/catalog-core/testing";
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";

testCatalogStore(() => createMemoryStore());

describe("memory store, field by field", () => {
  const one = productArb(fc.constant("p"));
  test.prop([one, one, fc.subarray([...PRODUCT_FIELDS])], { numRuns: 500 })(
    "an upsert is unchanged exactly when encodeProduct is equal, and find answers the canonical product",
    async (first, other, fields) => {
      // The second product takes some fields of another (an absent one given as undefined), keys reversed.
      const changed: Record<string, unknown> = { ...first };
      for (const field of fields) changed[field] = other[field];
      const second = Object.fromEntries(Object.entries(changed).reverse()) as Product;
      const store = createMemoryStore();
      const site = uniqueSite();
      await store.upsert(site, [first], { dryRun: false });
      const same = encodeProduct(first) === encodeProduct(second);
      expect(await store.upsert(site, [second], { dryRun: false })).toEqual({
        applied: true,
        counts: { created: 0, updated: same ? 0 : 1, unchanged: same ? 1 : 0 },
      });
      const found = await store.find(site, "p");
      const canonical = decodeProduct(encodeProduct(same ? first : second));
      expect(found).toStrictEqual(canonical);
      expect(Object.keys(found ?? {})).toEqual(Object.keys(canonical));
    },
  );
});
