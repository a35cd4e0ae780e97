// The writer thread's heap is bounded, and an add of the largest products the catalog takes still
// goes through it: the store sends an add in slices, never the whole chunk as one message.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStore } from "@catalog-kit/adapter-sqlite";
import { PRODUCT_LIMITS, type Product } from "@catalog-kit/catalog-core";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import { afterAll, expect, test } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "catalog-sqlite-largest-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A product at every limit: about 276,000 characters.
function largest(i: number): Product {
  const url = (n: number) => `https://img.example/${i}/${n}/`.padEnd(PRODUCT_LIMITS.urlLength, "x");
  return {
    id: `${i}`.padStart(PRODUCT_LIMITS.keyLength, "0"),
    sku: `${i}`.padStart(PRODUCT_LIMITS.keyLength, "s"),
    title: "T".repeat(PRODUCT_LIMITS.titleLength),
    description: `${i} `.padEnd(PRODUCT_LIMITS.descriptionLength, "d"),
    available: true,
    images: Array.from({ length: PRODUCT_LIMITS.images }, (_, n) => url(n)),
    featured_image: url(0),
    url: url(-1),
  };
}

test("one add of 1,000 of the largest products (more than the writer thread's heap holds at once) is staged and committed", async () => {
  const store = createSqliteStore({ path: join(dir, "largest.db") });
  try {
    const site = uniqueSite();
    const products = Array.from({ length: 1_000 }, (_, i) => largest(i));
    const staged = await store.beginImport(site, { dryRun: false });
    await staged.add(
      products,
      products.map((_, i) => i),
    );
    expect(await staged.commit()).toEqual({ applied: true, counts: { created: 1_000, updated: 0, unchanged: 0 } });
    expect(await store.find(site, (products[999] as Product).id)).toEqual(products[999]);
  } finally {
    await store.close();
  }
}, 120_000);
