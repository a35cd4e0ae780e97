import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import {
  checkKeyPrefix,
  deliveryKeys,
  escapeSitePart,
  historyKeys,
  idempotencyKeys,
  importKeys,
  incomingKeys,
  siteKeys,
  tenantKeys,
} from "../src/keys.ts";

/** The part of a key that Redis Cluster hashes: between the first `{` and the next `}`, if not empty. */
function hashTag(key: string): string {
  const open = key.indexOf("{");
  const close = open < 0 ? -1 : key.indexOf("}", open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

function allKeys(
  prefix: string,
  site: { siteType: string; siteId: string },
  token = "0123abcd",
  idempotencyKey = "a{b}:c",
): string[] {
  const keys = siteKeys(checkKeyPrefix(prefix), site);
  return [
    ...new Set([
      ...Object.values(importKeys(keys, token)),
      ...Object.values(incomingKeys(keys, token)),
      ...Object.values(idempotencyKeys(keys, idempotencyKey)),
      ...Object.values(historyKeys(keys)),
    ]),
  ];
}

// Idempotency keys as the contract allows them (1 to 255 visible ASCII characters), drawn to
// hit the characters that matter.
const visibleAscii = fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c));
const idempotencyKeyArb = fc.oneof(
  fc.string({ unit: fc.constantFrom("{", "}", ":", "*", "%", "a", "7"), minLength: 1, maxLength: 12 }),
  fc.string({ unit: visibleAscii, minLength: 1, maxLength: 255 }),
);

// Site names drawn to hit the characters that matter, plus anything else.
const sitePart = fc.oneof(
  fc.string({ unit: fc.constantFrom("{", "}", ":", "%", "a", "7", "B", "%7B", "é", "😀"), minLength: 1, maxLength: 8 }),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }),
);
const siteArb = fc.record({ siteType: sitePart, siteId: sitePart });
const prefixArb = fc.oneof(
  fc.constant(""),
  fc.constant("catalog"),
  fc.string({ maxLength: 10 }).filter((s) => !/[{}]/.test(s)),
);

describe("key layout", () => {
  test("a plain site gets readable keys under the prefix", () => {
    const keys = siteKeys(checkKeyPrefix("catalog"), { siteType: "shopify", siteId: "shop-1" });
    expect(keys.products).toBe("catalog:{shopify:shop-1}:products");
    expect(keys.skus).toBe("catalog:{shopify:shop-1}:skus");
    expect(keys.skuOf).toBe("catalog:{shopify:shop-1}:sku-of");
    expect(keys.ids).toBe("catalog:{shopify:shop-1}:ids");
    expect(keys.mergingProducts).toBe("catalog:{shopify:shop-1}:merging:products");
    expect(keys.mergingIds).toBe("catalog:{shopify:shop-1}:merging:ids");
    expect(importKeys(keys, "ab12").stageSkus).toBe("catalog:{shopify:shop-1}:stage:ab12:skus");
    expect(importKeys(keys, "ab12").stageIds).toBe("catalog:{shopify:shop-1}:stage:ab12:ids");
    expect(incomingKeys(keys, "ab12").inPositions).toBe("catalog:{shopify:shop-1}:in:ab12:pos");
    expect(incomingKeys(keys, "ab12").inBases).toBe("catalog:{shopify:shop-1}:in:ab12:bases");
    expect(siteKeys(checkKeyPrefix(""), { siteType: "a", siteId: "b" }).products).toBe("{a:b}:products");
  });

  test("%, braces and colons in site names are percent-encoded", () => {
    expect(escapeSitePart("a{b}c:d%e")).toBe("a%7Bb%7Dc%3Ad%25e");
    expect(escapeSitePart("%7B")).toBe("%257B");
    expect(siteKeys(checkKeyPrefix("p"), { siteType: "x:y", siteId: "{z}" }).products).toBe(
      "p:{x%3Ay:%7Bz%7D}:products",
    );
  });

  test("a key prefix with a brace is refused", () => {
    expect(() => checkKeyPrefix("a{b")).toThrow(TypeError);
    expect(() => checkKeyPrefix("}")).toThrow(TypeError);
    expect(checkKeyPrefix("app:catalog")).toBe("app:catalog:");
  });

  test.prop([sitePart])("escaping is reversible and leaves no brace or colon", (part) => {
    const escaped = escapeSitePart(part);
    expect(escaped).not.toMatch(/[{}:]/);
    expect(decodeURIComponent(escaped)).toBe(part);
  });

  test.prop([prefixArb, siteArb, fc.stringMatching(/^[0-9a-f]{24}$/)])(
    "every key of a site carries the same hash tag, which is exactly the escaped site",
    (prefix, site, token) => {
      const expected = `${escapeSitePart(site.siteType)}:${escapeSitePart(site.siteId)}`;
      for (const key of allKeys(prefix, site, token)) expect(hashTag(key)).toBe(expected);
    },
  );

  test("an idempotency key's record and claim are named by the key's hex, under the site's tag", () => {
    const keys = siteKeys(checkKeyPrefix("catalog"), { siteType: "shopify", siteId: "shop-1" });
    expect(idempotencyKeys(keys, "{k}")).toEqual({
      keyRecord: "catalog:{shopify:shop-1}:idem:7b6b7d:record",
      keyClaim: "catalog:{shopify:shop-1}:idem:7b6b7d:claim",
    });
  });

  test.prop([prefixArb, siteArb, idempotencyKeyArb, idempotencyKeyArb])(
    "whatever an idempotency key holds, its keys keep the site's tag and meet no other key",
    (prefix, site, key, other) => {
      const keys = siteKeys(checkKeyPrefix(prefix), site);
      const mine = Object.values(idempotencyKeys(keys, key));
      for (const name of mine) expect(hashTag(name)).toBe(hashTag(keys.products));
      const rest = new Set(allKeys(prefix, site, "0123abcd", other));
      if (key === other) for (const name of mine) rest.delete(name);
      for (const name of mine) expect(rest.has(name)).toBe(false);
    },
  );

  test("a site's import history is under its tag; the delivery queue under a tag of its own", () => {
    const keys = siteKeys(checkKeyPrefix("catalog"), { siteType: "shopify", siteId: "shop-1" });
    expect(historyKeys(keys)).toEqual({
      historyIds: "catalog:{shopify:shop-1}:history:ids",
      historyRecords: "catalog:{shopify:shop-1}:history:records",
      historyProblems: "catalog:{shopify:shop-1}:history:problems",
    });
    expect(deliveryKeys(checkKeyPrefix("catalog"))).toEqual({
      deliveriesDue: "catalog:{deliveries}:due",
      deliveriesLeased: "catalog:{deliveries}:leased",
      deliveryValues: "catalog:{deliveries}:values",
      deliveryLeases: "catalog:{deliveries}:leases",
    });
  });

  test.prop([prefixArb, siteArb, idempotencyKeyArb])(
    "no key of a site is the delivery queue's or the registry's, nor has their tag",
    (prefix, site, key) => {
      const shared = [
        ...Object.values(deliveryKeys(checkKeyPrefix(prefix))),
        ...Object.values(tenantKeys(checkKeyPrefix(prefix))),
      ];
      const tags = new Set(shared.map(hashTag));
      expect(tags).toEqual(new Set(["deliveries", "tenants"]));
      for (const name of allKeys(prefix, site, "0123abcd", key)) {
        expect(shared).not.toContain(name);
        expect(tags.has(hashTag(name))).toBe(false);
      }
    },
  );

  test.prop([prefixArb, siteArb, siteArb])("two different sites never share a key or a tag", (prefix, a, b) => {
    fc.pre(a.siteType !== b.siteType || a.siteId !== b.siteId);
    const keysA = allKeys(prefix, a);
    const keysB = new Set(allKeys(prefix, b));
    expect(hashTag(keysA[0] as string)).not.toBe(hashTag([...keysB][0] as string));
    for (const key of keysA) expect(keysB.has(key)).toBe(false);
  });
});
