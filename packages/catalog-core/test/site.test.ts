// Site keys: one key per site, and no two sites share one.
import { siteKey } from "@catalog-kit/catalog-core";
import { fc, test } from "@fast-check/vitest";
import { expect } from "vitest";

// Separators and digits are the characters that could make two sites share a key.
const part = fc.string({ unit: fc.constantFrom("a", ":", "1", "2", "{", "}", "é"), minLength: 1, maxLength: 6 });
const site = fc.record({ siteType: part, siteId: part });

test.prop([site, site], { numRuns: 2_000 })("two sites share a key exactly when they are the same site", (a, b) => {
  const same = a.siteType === b.siteType && a.siteId === b.siteId;
  expect(siteKey(a) === siteKey(b)).toBe(same);
});
