// A record for each channel and each outcome: a JSON list, a csvContent, one product, a raw CSV
// and a raw NDJSON, each succeeded, failed validation, dry run and replayed, told apart by
// their channel and format and read back as they ended.
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { type Catalog, CatalogError, createCatalog, type ImportOptions, type Product } from "@catalog-kit/catalog-core";
import { describe, expect, test } from "vitest";
import { product } from "./support/catalog-calls.ts";
import { encodeCsv } from "./support/csv-encode.ts";

const site = { siteId: "shop-1", siteType: "shopify" };
type Send = (catalog: Catalog, item: Product, options: ImportOptions) => Promise<{ importId?: string }>;

const CHANNELS: readonly [string, "body" | "stream", string, Send][] = [
  ["a JSON list", "body", "products", (c, p, o) => c.importProducts(site, [p], o)],
  ["a csvContent", "body", "csv", (c, p, o) => c.importCsv(site, encodeCsv([p]), o)],
  ["one product", "body", "product", (c, p, o) => c.importProduct(site, p, o)],
  ["a raw CSV", "stream", "csv", (c, p, o) => c.importStream(site, [encodeCsv([p])], { ...o, format: "csv" })],
  [
    "a raw NDJSON",
    "stream",
    "ndjson",
    (c, p, o) => c.importStream(site, [`${JSON.stringify(p)}\n`], { ...o, format: "ndjson" }),
  ],
];

// The id of the import a call made, whether it succeeded or failed.
const idOf = (call: Promise<{ importId?: string }>) =>
  call.then(
    (summary) => summary.importId as string,
    (error: unknown) => (error as CatalogError).importId as string,
  );

describe.each(CHANNELS)("%s", (_, channel, format, send) => {
  const catalog = createCatalog({ store: createMemoryStore(), sites: [site] });
  let n = 0;
  const fresh = () => product(`${format}-${channel}-${++n}`, `SKU-${format}-${channel}-${n}`);

  test("succeeded", async () => {
    const record = await catalog.getImport(site, await idOf(send(catalog, fresh(), {})));
    expect(record).toMatchObject({ channel, format, state: "succeeded", dryRun: false, counts: { created: 1 } });
    expect(record).not.toHaveProperty("replayed");
  });

  test("failed validation", async () => {
    const record = await catalog.getImport(site, await idOf(send(catalog, { ...fresh(), price: -1 }, {})));
    expect(record).toMatchObject({
      channel,
      format,
      state: "failed",
      problemCount: 1,
      error: { code: "VALIDATION_FAILED" },
    });
    expect(record.problems).toHaveLength(1);
  });

  test("dry run", async () => {
    const item = fresh();
    const record = await catalog.getImport(site, await idOf(send(catalog, item, { dryRun: true })));
    expect(record).toMatchObject({ channel, format, state: "succeeded", dryRun: true, counts: { created: 1 } });
    await expect(catalog.getProduct(site, item.id)).rejects.toBeInstanceOf(CatalogError);
  });

  test("replayed", async () => {
    const item = fresh();
    const options = { idempotencyKey: `key-${item.id}` };
    const first = await idOf(send(catalog, item, options));
    const again = await idOf(send(catalog, item, options));
    expect(again > first).toBe(true);
    expect(await catalog.getImport(site, again)).toMatchObject({
      channel,
      format,
      state: "succeeded",
      replayed: true,
      idempotencyKey: options.idempotencyKey,
      counts: { created: 1 },
    });
    expect(await catalog.getImport(site, first)).not.toHaveProperty("replayed");
  });
});
