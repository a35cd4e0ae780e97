// Heap held per stored product in the memory adapter. Needs --expose-gc: run through run.ts.
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { createCatalog, type Site } from "@catalog-kit/catalog-core";
import { generateProducts, toBulkBody, toCsvContent } from "../data.ts";
import { benchOptions } from "../options.ts";
import { emit, progress } from "../report.ts";

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("heap.ts needs node --expose-gc");

function settle(): NodeJS.MemoryUsage {
  // A few full collections, so that weak and finalizable garbage is gone as well.
  for (let i = 0; i < 4; i++) gc?.();
  return process.memoryUsage();
}

const { quick } = benchOptions();
const total = quick ? 100_000 : Number(process.env.HEAP_TOTAL ?? 1_000_000);
const chunk = 10_000;
const site: Site = { siteType: "bench", siteId: "shop-1" };

/** Imports `count` products chunk by chunk, in the given form, and measures what stays on the heap. */
async function measure(form: "json" | "csv", count: number): Promise<void> {
  const before = settle();
  const catalog = createCatalog({ store: createMemoryStore(), sites: [site] });
  let jsonBytes = 0;
  for (let first = 0; first < count; first += chunk) {
    // Products arrive as a client sends them, as text: never objects the bench built in memory.
    const products = generateProducts(chunk, 42, first);
    const body = toBulkBody(products);
    jsonBytes += Buffer.byteLength(body) - Buffer.byteLength('{"products":[]}') - (chunk - 1);
    if (form === "json") await catalog.importProducts(site, JSON.parse(body).products);
    else await catalog.importCsv(site, toCsvContent(products));
    if ((first + chunk) % 200_000 === 0)
      progress(`heap (${form}): ${(first + chunk).toLocaleString("en-US")} products stored`);
  }
  const after = settle();
  const heap = (after.heapUsed - before.heapUsed) / count;
  const external = (after.external - before.external) / count;
  const label = count.toLocaleString("en-US");
  emit({
    name: `heap per product, ${form === "json" ? "JSON" : "CSV"} import ${label}, memory`,
    scenario:
      form === "json"
        ? `memory adapter heap per product at ${label} products (heapUsed + external)`
        : `memory adapter heap per product at ${label} products imported as CSV`,
    figure: heap + external,
    unit: "B/product",
    baseline: { label: "product JSON", name: "product JSON (UTF-8)", figure: jsonBytes / count, unit: "B" },
    ...(form === "json" ? { target: { label: "<= 1.5x", maxRatio: 1.5 } } : {}),
    note: `heapUsed ${Math.round(heap)} B + external ${Math.round(external)} B (of which arrayBuffers ${Math.round((after.arrayBuffers - before.arrayBuffers) / count)} B)`,
  });
  // Keep the catalog reachable until the figure is taken.
  await catalog.checkHealth();
}

await measure("json", total);
// Cells cut from a large text can keep that text alive: this row shows it if they ever do again.
await measure("csv", total);
