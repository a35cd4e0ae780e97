// The measurements of the adapter's README ("Measured"): an import of 300,000 products through the
// store (staged in chunks of 2,000, then committed), again unchanged, lookups by id and by sku,
// the main thread's longest event-loop stall while an import runs (what every other request of a
// server waits at worst), and, apart, the same import streamed as NDJSON through
// `catalog.importStream`, with the process's peak RSS. Each part in a process of its own, as the
// peak is the process's. `STORE_MODULE` names another module exporting `createSqliteStore` (an
// earlier version's sources, to compare in the same run). Run:
//   npx tsx --conditions=@catalog-kit/source packages/adapter-sqlite/test/measure-store.ts store
//   npx tsx --conditions=@catalog-kit/source packages/adapter-sqlite/test/measure-store.ts stream
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { createSqliteStore as Create } from "@catalog-kit/adapter-sqlite";
import { type CatalogStore, createCatalog, type Product, type Site } from "@catalog-kit/catalog-core";

const PRODUCTS = Number(process.env.PRODUCTS) || 300_000;
const CHUNK = 2_000;
const LOOKUPS = 20_000;
const site: Site = { siteType: "shopify", siteId: "measure" };

function product(i: number): Product {
  return {
    id: `product-${i}`,
    sku: `SKU-${i}`,
    title: `Blue ceramic mug number ${i}, 350 ml, dishwasher safe`,
    description: "A sturdy mug for every morning. ".repeat(12),
    price: 12.5 + (i % 100),
    available: i % 3 !== 0,
    images: [`https://img.example/${i}/1.jpg`, `https://img.example/${i}/2.jpg`],
    featured_image: `https://img.example/${i}/1.jpg`,
    url: `https://shop.example/products/${i}`,
  };
}

const peakMb = () => Math.round(process.resourceUsage().maxRSS / 1024);
const rate = (n: number, ms: number) => Math.round((n / ms) * 1000).toLocaleString("en");

const { createSqliteStore } = (await import(process.env.STORE_MODULE ?? "@catalog-kit/adapter-sqlite")) as {
  createSqliteStore: typeof Create;
};

interface Timed {
  stageMs: number;
  commitMs: number;
  /** The longest the event loop was held while staging, and while committing. */
  stageStallMs: number;
  commitStallMs: number;
}

// The event loop's longest delay while `run` runs: a timer of 1 ms resolution notices it late by that much.
async function stall<T>(run: () => Promise<T>): Promise<{ value: T; stallMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  // The histogram measures from its timer's first tick: a stall before it would go unseen.
  await new Promise((resolve) => setTimeout(resolve, 20));
  try {
    const value = await run();
    // One more turn, so that a stall ended by the last await is recorded.
    await new Promise((resolve) => setTimeout(resolve, 5));
    return { value, stallMs: histogram.max / 1e6 };
  } finally {
    histogram.disable();
  }
}

async function importAll(store: CatalogStore): Promise<Timed> {
  const started = performance.now();
  const staged = await store.beginImport(site, { dryRun: false });
  const stage = await stall(async () => {
    for (let start = 0; start < PRODUCTS; start += CHUNK) {
      const items = Array.from({ length: Math.min(CHUNK, PRODUCTS - start) }, (_, k) => product(start + k));
      await staged.add(
        items,
        items.map((_, k) => start + k),
      );
    }
  });
  const staging = performance.now();
  const commit = await stall(() => staged.commit());
  if (!commit.value.applied) throw new Error("the import was refused");
  return {
    stageMs: staging - started,
    commitMs: performance.now() - staging,
    stageStallMs: stage.stallMs,
    commitStallMs: commit.stallMs,
  };
}

async function lookups(store: CatalogStore, by: "id" | "sku"): Promise<string> {
  const started = performance.now();
  for (let k = 0; k < LOOKUPS; k++) {
    const i = (k * 7919) % PRODUCTS;
    const found = await store.find(site, by === "id" ? `product-${i}` : `SKU-${i}`, by);
    if (found === undefined) throw new Error(`product ${i} was not found by ${by}`);
  }
  return rate(LOOKUPS, performance.now() - started);
}

const dir = mkdtempSync(join(tmpdir(), "catalog-sqlite-measure-"));
try {
  const store = createSqliteStore({ path: join(dir, "measure.db") });
  if (process.argv[2] === "stream") {
    const catalog = createCatalog({ store, sites: [site] });
    async function* ndjson() {
      for (let i = 0; i < PRODUCTS; i++) yield `${JSON.stringify(product(i))}\n`;
    }
    const started = performance.now();
    const summary = await catalog.importStream(site, ndjson(), { format: "ndjson" });
    const ms = performance.now() - started;
    console.log(`importStream of ${PRODUCTS} NDJSON products: ${Math.round(ms)} ms, ${rate(PRODUCTS, ms)}/s`);
    console.log(`summary: ${JSON.stringify(summary).slice(0, 200)}`);
  } else {
    const first = await importAll(store);
    const said = (what: string, t: Timed) =>
      console.log(
        `${what}: staging ${Math.round(t.stageMs)} ms, commit ${Math.round(t.commitMs)} ms, ${rate(PRODUCTS, t.stageMs + t.commitMs)}/s; longest stall staging ${Math.round(t.stageStallMs)} ms, committing ${Math.round(t.commitStallMs)} ms`,
      );
    said(`import of ${PRODUCTS} into an empty site`, first);
    said("the same import again (all unchanged)", await importAll(store));
    console.log(`find by id: ${await lookups(store, "id")}/s; by sku: ${await lookups(store, "sku")}/s`);
  }
  await store.close();
  console.log(`peak RSS ${peakMb()} MB`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
