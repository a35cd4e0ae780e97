// The WooCommerce profile over files whose variations the exporter wrote anywhere: before their
// parent, after other products, across the parts the file arrives in.
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import type { ProfileRow } from "../src/profiles/profile.ts";
import { byId, image, importRows, rowsOf, wooFile } from "./support/woocommerce-file.ts";

describe("WooCommerce variations written anywhere (property)", () => {
  interface Spec {
    readonly variables: readonly (readonly number[])[];
    readonly simples: number;
    readonly order: readonly number[];
    readonly bySku: readonly boolean[];
    readonly cuts: readonly number[];
  }
  const specArb = fc
    .record({
      variables: fc.array(fc.array(fc.integer({ min: 1, max: 999 }), { minLength: 1, maxLength: 4 }), {
        minLength: 1,
        maxLength: 4,
      }),
      simples: fc.integer({ min: 0, max: 4 }),
    })
    .chain(({ variables, simples }) => {
      const size = simples + variables.reduce((n, prices) => n + 1 + prices.length, 0);
      return fc.record({
        variables: fc.constant(variables),
        simples: fc.constant(simples),
        order: fc.shuffledSubarray([...Array(size).keys()], { minLength: size, maxLength: size }),
        bySku: fc.array(fc.boolean(), { minLength: size, maxLength: size }),
        cuts: fc.array(fc.integer({ min: 0, max: size }), { maxLength: 5 }),
      });
    });

  // Rows in the order the spec gives; a variation names its parent by ID or SKU as it draws.
  function build(spec: Spec) {
    const rows: Record<string, string>[] = [];
    let id = 100;
    spec.variables.forEach((prices, v) => {
      const parent = id++;
      rows.push({ ID: String(parent), Type: "variable", SKU: `V${v}`, Name: `V${v}`, Images: image(`v${v}.jpg`) });
      prices.forEach((price, i) => {
        const parentName = spec.bySku[rows.length] ? `V${v}` : `id:${parent}`;
        const sku = `V${v}-${i}`;
        rows.push({ ID: String(id++), Type: "variation", SKU: sku, Name: sku, "Regular price": String(price) });
        (rows.at(-1) as Record<string, string>).Parent = parentName;
        (rows.at(-1) as Record<string, string>).Images = image(`${sku}.jpg`);
      });
    });
    for (let s = 0; s < spec.simples; s++) rows.push({ ID: String(id++), Type: "simple", SKU: `S${s}`, Name: "S" });
    return rowsOf(wooFile(spec.order.map((i) => rows[i] as Record<string, string>)));
  }

  test.prop([specArb], { numRuns: 100 })("one product per variable product, each variation once", async (spec) => {
    const rows = build(spec);
    const cuts = [...spec.cuts];
    const grouped = await importRows(rows, {}, cuts);
    expect(grouped.problems.list).toEqual([]);
    expect(grouped.records).toHaveLength(spec.variables.length + spec.simples);
    const products = byId(grouped.records);
    let id = 100;
    spec.variables.forEach((prices, v) => {
      const product = products[String(id)] as Record<string, unknown>;
      id += 1 + prices.length;
      const variations = rows.filter((row) => String(row.cells.SKU).startsWith(`V${v}-`));
      expect(product.price).toBe(Number(variations[0]?.cells["Regular price"]));
      if (prices.length > 1)
        expect([product.price_min, product.price_max]).toEqual([Math.min(...prices), Math.max(...prices)]);
      else expect(product.price_min).toBeUndefined();
      expect(product.images).toEqual([image(`v${v}.jpg`), ...variations.map((row) => row.cells.Images)]);
    });
    const items = await importRows(rows, { variants: "items" }, cuts);
    expect(items.problems.list).toEqual([]);
    const skus = items.records.map((r) => r.sku as string).sort();
    const expected = spec.variables.flatMap((prices, v) => prices.map((_, i) => `V${v}-${i}`));
    for (let s = 0; s < spec.simples; s++) expected.push(`S${s}`);
    expect(skus).toEqual(expected.sort());
    for (const record of items.records) {
      const row = rows.find((r) => r.cells.SKU === record.sku) as ProfileRow;
      expect(record.price).toBe(row.cells["Regular price"] === "" ? undefined : Number(row.cells["Regular price"]));
    }
  });
});
