// Bulk JSON and CSV imports into the memory adapter, each beside its parser alone on the same text.
// Parts: `--only json`, `--only csv`; sizes: `--size 100000`.
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { type Catalog, createCatalog, type Site } from "@catalog-kit/catalog-core";
import { parse as parseCsv } from "csv-parse/sync";
import Papa from "papaparse";
import { type Dataset, makeDataset } from "../data.ts";
import { type Rounds, timeAlternating } from "../measure.ts";
import { benchOptions, roundsFor } from "../options.ts";
import { emit, progress, type Target } from "../report.ts";

const site: Site = { siteType: "bench", siteId: "shop-1" };
let sink: unknown;

function freshCatalog(): Catalog {
  return createCatalog({ store: createMemoryStore(), sites: [site] });
}

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`bench data check failed: ${what}`);
}

interface Case {
  readonly data: Dataset;
  readonly size: number;
  readonly label: string;
  readonly rounds: Rounds;
  /** The targets are set for 100,000 products. */
  readonly judged: boolean;
}

async function importJson({ data, size, label, rounds, judged }: Case): Promise<void> {
  progress(`bulk JSON import, ${label} products: ${rounds.warmup} warm-up + ${rounds.iterations} rounds`);
  const json = await timeAlternating(
    [
      { name: "parse", run: () => void (sink = JSON.parse(data.body)) },
      { name: "floor", run: () => void (sink = keepUnchecked(JSON.parse(data.body).products)) },
      {
        name: "import",
        setup: freshCatalog,
        run: (catalog) => (catalog as Catalog).importProducts(site, JSON.parse(data.body).products),
      },
    ],
    rounds,
  );
  // The import beside each baseline measured in the same rounds.
  const against = (key: string, baseline: string, name: string, target?: Target) =>
    emit({
      name: `bulk JSON ${label}, memory`,
      scenario: `bulk JSON import, ${label}, memory (JSON.parse + importProducts)`,
      figure: size / json.median("import"),
      unit: "products/s",
      baseline: { label: baseline, name, figure: size / json.median(key), unit: "products/s" },
      ratio: json.ratio("import", key),
      ...(target === undefined ? {} : { target }),
    });
  against("parse", "JSON.parse", "JSON.parse alone", judged ? { label: ">= 0.65x", minRatio: 0.65 } : undefined);
  against(
    "floor",
    "unchecked floor",
    "JSON.parse, then a copy of each product (its images array included) kept in a map by id, and its id in a map by sku: what any store of parsed products does, without a check",
  );
}

// The least an in-memory import of parsed products does: its own copy of each, its one array
// included (so that the caller's objects never reach the store), found by id and by sku.
function keepUnchecked(products: readonly Record<string, unknown>[]): [Map<string, object>, Map<string, string>] {
  const byId = new Map<string, object>();
  const idBySku = new Map<string, string>();
  for (const product of products) {
    const id = product.id as string;
    byId.set(id, { ...product, images: [...(product.images as string[])] });
    idBySku.set(product.sku as string, id);
  }
  return [byId, idBySku];
}

async function importCsv({ data, size, label, rounds, judged }: Case): Promise<void> {
  // Every contender must read the same records, or the comparison means nothing.
  const summary = await freshCatalog().importCsv(site, data.csvContent);
  check(summary.created === size, `importCsv created ${summary.created} of ${size}`);
  check(parseCsv(data.csvContent, { columns: true }).length === size, "csv-parse row count");
  const papa = Papa.parse<Record<string, string>>(data.csvContent, { header: true, skipEmptyLines: true });
  check(papa.data.length === size && papa.errors.length === 0, "papaparse rows");
  check(papa.data[size - 1]?.description === data.products[size - 1]?.description, "papaparse cells");

  progress(`CSV import, ${label} rows: ${rounds.warmup} warm-up + ${rounds.iterations} rounds`);
  const csv = await timeAlternating(
    [
      { name: "csv-parse", run: () => void (sink = parseCsv(data.csvContent, { columns: true })) },
      {
        name: "papaparse",
        run: () => void (sink = Papa.parse(data.csvContent, { header: true, skipEmptyLines: true })),
      },
      { name: "import", setup: freshCatalog, run: (catalog) => (catalog as Catalog).importCsv(site, data.csvContent) },
    ],
    rounds,
  );
  const name = `CSV ${label}, memory`;
  const scenario = `CSV import, ${label} rows, memory (importCsv)`;
  const figure = size / csv.median("import");
  emit({
    name,
    scenario,
    figure,
    unit: "rows/s",
    baseline: {
      label: "csv-parse",
      name: "csv-parse alone, columns: true",
      figure: size / csv.median("csv-parse"),
      unit: "rows/s",
    },
    ratio: csv.ratio("import", "csv-parse"),
  });
  emit({
    name,
    scenario,
    figure,
    unit: "rows/s",
    baseline: {
      label: "papaparse",
      name: "papaparse alone, header: true",
      figure: size / csv.median("papaparse"),
      unit: "rows/s",
    },
    ratio: csv.ratio("import", "papaparse"),
    ...(judged ? { target: { label: ">= 0.5x", minRatio: 0.5 } } : {}),
  });
}

const { quick, sizes, only } = benchOptions();
for (const size of sizes ?? (quick ? [1_000] : [1_000, 10_000, 100_000])) {
  const data = makeDataset(size);
  const one: Case = {
    data,
    size,
    label: size.toLocaleString("en-US"),
    rounds: roundsFor(size, quick),
    judged: size === 100_000,
  };
  if (only === undefined || only.includes("json")) await importJson(one);
  if (only === undefined || only.includes("csv")) await importCsv(one);
}
void sink;
