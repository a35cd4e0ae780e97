// Single-product operations on the memory adapter: lookups, deletes and single imports per second.
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { type Catalog, createCatalog, type Product, type Site } from "@catalog-kit/catalog-core";
import { generateProducts } from "../data.ts";
import { timeAlternating } from "../measure.ts";
import { benchOptions, roundsFor } from "../options.ts";
import { emit, progress } from "../report.ts";

const site: Site = { siteType: "bench", siteId: "shop-1" };
const { quick } = benchOptions();
const size = quick ? 1_000 : 10_000;
const products = generateProducts(size);
// Visit products in a scrambled order, as real traffic does, not in insertion order.
const order = products.map((_, i) => (i * 7_919) % size);

async function loaded(): Promise<Catalog> {
  const catalog = createCatalog({ store: createMemoryStore(), sites: [site] });
  await catalog.importProducts(site, products);
  return catalog;
}

const shared = await loaded();
const rounds = roundsFor(size, quick);
progress(
  `single operations over ${size.toLocaleString("en-US")} products: ${rounds.warmup} warm-up + ${rounds.iterations} rounds`,
);
const times = await timeAlternating(
  [
    {
      name: "get by id",
      run: async () => {
        for (const i of order) await shared.getProduct(site, (products[i] as Product).id);
      },
    },
    {
      name: "get by SKU",
      run: async () => {
        for (const i of order) await shared.getProduct(site, (products[i] as Product).sku);
      },
    },
    {
      name: "delete",
      // Loading the catalog to delete from is setup, outside the clock.
      setup: () => loaded(),
      run: async (catalog) => {
        for (const i of order) await (catalog as Catalog).deleteProduct(site, (products[i] as Product).id);
      },
    },
    {
      name: "single import",
      setup: () => createCatalog({ store: createMemoryStore(), sites: [site] }),
      run: async (catalog) => {
        for (const i of order) await (catalog as Catalog).importProduct(site, products[i]);
      },
    },
  ],
  rounds,
);
for (const name of times.samples.keys()) {
  emit({
    name: `${name}, memory`,
    scenario: `${name}, memory (${size.toLocaleString("en-US")} products stored)`,
    figure: size / times.median(name),
    unit: "ops/s",
  });
}
