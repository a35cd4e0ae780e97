// The WooCommerce profile: files shaped as WooCommerce's product exporter writes them, read into
// product records through the grouping stage, wherever the exporter puts a product's variations.
import { describe, expect, test } from "vitest";
import { checkProducts, Problems } from "../src/parse.ts";
import { woocommerce } from "../src/profiles/woocommerce.ts";
import { byId, HEADER, image, importFile, importRows, rowsOf, SHOP, wooFile } from "./support/woocommerce-file.ts";

// The product schema's judgement, as the engine makes it after the profile.
function schemaProblems(records: readonly unknown[]) {
  const problems = new Problems();
  checkProducts(records, (index, path) => ({ pointer: `/${index}/${path.join("/")}` }), problems);
  return problems.list;
}

describe("WooCommerce profile", () => {
  const exported = wooFile([
    {
      ID: "10",
      Type: "simple",
      SKU: "MUG-1",
      Name: "Mug",
      "Short description": "A mug.",
      Description: "A large mug.\\nDishwasher safe.\\n\\nMade in Portugal.",
      "Regular price": "12.50",
      Images: `${image("mug.jpg")}, ${image("mug\\,side.jpg")}`,
    },
    { ID: "20", Type: "variable", SKU: "TEE", Name: "T-shirt", Description: "Cotton.", Images: image("tee.jpg") },
    {
      ID: "21",
      Type: "variation, virtual",
      SKU: "TEE-S",
      Name: "T-shirt - S",
      "Regular price": "15",
      Images: image("tee-s.jpg"),
      Parent: "TEE",
    },
    {
      ID: "22",
      Type: "variation",
      SKU: "TEE-M",
      Name: "T-shirt - M",
      "In stock?": "0",
      "Regular price": "17",
      Images: image("tee-m.jpg"),
      Parent: "TEE",
    },
    { ID: "30", Type: "simple, downloadable", SKU: "EBOOK", Name: "E-book", "In stock?": "backorder" },
    { ID: "40", Type: "variable", Name: "Cap", "Short description": "A cap." },
    { ID: "50", Type: "simple", SKU: "DRAFT", Name: "Draft", Published: "-1", "Regular price": "5" },
    { ID: "41", Type: "variation", Name: "Cap - Red", "Regular price": "9", Parent: "id:40" },
    { ID: "42", Type: "variation", Name: "Cap - Blue", "Regular price": "8", "In stock?": "0", Parent: "id:40" },
    { ID: "61", Type: "variation", SKU: "HAT-L", Name: "Hat - L", "Regular price": "30", Parent: "HAT" },
    { ID: "60", Type: "variable", SKU: "HAT", Name: "Hat", Images: image("hat.jpg") },
    {
      ID: "80",
      Type: "external",
      SKU: "BOOK",
      Name: "Book",
      "Regular price": "20",
      "External URL": "https://books.example/b/1",
      "Button text": "Buy",
    },
  ]);

  test("an exporter's file: simple, external and variable products, variations before, after and apart", async () => {
    const { records, problems } = await importFile(exported);
    expect(problems.list).toEqual([]);
    expect(byId(records)).toEqual({
      "10": {
        id: "10",
        sku: "MUG-1",
        title: "Mug",
        description: "A large mug.\nDishwasher safe.\n\nMade in Portugal.",
        price: 12.5,
        available: true,
        images: [image("mug.jpg"), image("mug,side.jpg")],
        featured_image: image("mug.jpg"),
        url: `${SHOP}/?p=10`,
      },
      "20": {
        id: "20",
        sku: "TEE-S",
        title: "T-shirt",
        description: "Cotton.",
        price: 15,
        price_min: 15,
        price_max: 17,
        available: true,
        images: [image("tee.jpg"), image("tee-s.jpg"), image("tee-m.jpg")],
        featured_image: image("tee.jpg"),
        url: `${SHOP}/?p=20`,
      },
      "30": { id: "30", sku: "EBOOK", title: "E-book", available: true, url: `${SHOP}/?p=30` },
      // No SKU on the parent or its variations: the variations have none to inherit.
      "40": {
        id: "40",
        title: "Cap",
        description: "A cap.",
        price: 9,
        price_min: 8,
        price_max: 9,
        available: true,
        url: `${SHOP}/?p=40`,
      },
      "50": { id: "50", sku: "DRAFT", title: "Draft", price: 5, available: false, url: `${SHOP}/?p=50` },
      "60": {
        id: "60",
        sku: "HAT-L",
        title: "Hat",
        price: 30,
        available: true,
        images: [image("hat.jpg")],
        featured_image: image("hat.jpg"),
        url: `${SHOP}/?p=60`,
      },
      "80": {
        id: "80",
        sku: "BOOK",
        title: "Book",
        price: 20,
        available: true,
        url: "https://books.example/b/1",
      },
    });
    expect(records).toHaveLength(7);
    // The schema then names what the file lacks: product 40's SKU, the images of those without.
    const missing = schemaProblems(records).map((p) => {
      const [, index, field] = String(p.pointer).split("/");
      return `${records[Number(index)]?.id} ${field}`;
    });
    expect(missing.sort()).toEqual([
      "30 featured_image",
      "40 featured_image",
      "40 sku",
      "50 featured_image",
      "80 featured_image",
    ]);
  });

  test("every record of a complete file passes the product schema", async () => {
    const text = wooFile([
      { ID: "1", Type: "simple", SKU: "A", Name: "A", "Regular price": "1", Images: image("a.jpg") },
      {
        ID: "3",
        Type: "variation",
        SKU: "B-1",
        Name: "B 1",
        "Regular price": "2",
        Images: image("b1.jpg"),
        Parent: "B",
      },
      { ID: "2", Type: "variable", SKU: "B", Name: "B", Images: image("b.jpg") },
      { ID: "4", Type: "variation", SKU: "B-2", Name: "B 2", "Regular price": "3", Parent: "id:2" },
    ]);
    const { records, problems } = await importFile(text);
    expect(problems.list).toEqual([]);
    expect(records).toHaveLength(2);
    expect(schemaProblems(records)).toEqual([]);
  });

  test("a variation before a parent it names by SKU, and one naming it by ID, join it across parts", async () => {
    const rows = rowsOf(
      wooFile([
        { ID: "11", Type: "variation", SKU: "S-1", Name: "S 1", "Regular price": "4", Parent: "SHOE" },
        { ID: "12", Type: "variation", SKU: "S-2", Name: "S 2", "Regular price": "6", Parent: "id:10" },
        { ID: "5", Type: "simple", SKU: "X", Name: "X", "Regular price": "1" },
        { ID: "10", Type: "variable", SKU: "SHOE", Name: "Shoe" },
        { ID: "13", Type: "variation", SKU: "S-3", Name: "S 3", "Regular price": "5", Parent: "SHOE" },
      ]),
    );
    for (const cuts of [[], [1], [2, 3], [1, 2, 3, 4]]) {
      const { records, positions, problems } = await importRows(rows, {}, cuts);
      expect(problems.list).toEqual([]);
      expect(byId(records)["10"]).toMatchObject({ sku: "S-1", price: 4, price_min: 4, price_max: 6 });
      expect(records).toHaveLength(2);
      expect(positions[records.findIndex((r) => r.id === "10")]).toBe(5);
    }
  });

  test("a variation whose parent is not in the file is a problem at its Parent", async () => {
    const { records, problems } = await importFile(
      wooFile([
        { ID: "1", Type: "simple", SKU: "A", Name: "A" },
        { ID: "7", Type: "variation", SKU: "V", Name: "V", Parent: "id:6" },
        { ID: "8", Type: "variation", SKU: "W", Name: "W" },
      ]),
    );
    expect(records.map((r) => r.id)).toEqual(["1"]);
    expect(problems.list).toEqual([
      { row: 3, column: "Parent", message: 'The parent "id:6" of this variation is not in this file' },
      { row: 4, column: "Parent", message: "A variation needs its parent: the variable product's SKU or id:<ID>" },
    ]);
  });

  test("a variable product without variations is a product of its own SKU and price", async () => {
    const { records } = await importFile(
      wooFile([{ ID: "9", Type: "variable", SKU: "V", Name: "V", "Regular price": "3", "In stock?": "0" }]),
    );
    expect(records).toEqual([{ id: "9", sku: "V", title: "V", price: 3, available: false, url: `${SHOP}/?p=9` }]);
  });

  test("a draft or private parent makes its variations unavailable; a disabled variation is", async () => {
    const file = (published: string) =>
      wooFile([
        { ID: "1", Type: "variable", SKU: "P", Name: "P", Published: published },
        { ID: "2", Type: "variation", SKU: "P-1", Name: "P 1", Published: "0", Parent: "P" },
        { ID: "3", Type: "variation", SKU: "P-2", Name: "P 2", Published: "", Parent: "P" },
      ]);
    expect((await importFile(file("1"))).records[0]).toMatchObject({ available: true });
    expect((await importFile(file("1"), { variants: "items" })).records.map((r) => r.available)).toEqual([false, true]);
    expect((await importFile(file("-1"))).records[0]).toMatchObject({ available: false });
    expect((await importFile(file("0"))).records[0]).toMatchObject({ available: false });
  });

  test("prices with a decimal comma: read with decimal=',', refused with '.'", async () => {
    const text = wooFile([
      { ID: "1", Type: "simple", SKU: "A", Name: "A", "Regular price": "19,90" },
      { ID: "2", Type: "variable", SKU: "B", Name: "B" },
      { ID: "3", Type: "variation", SKU: "B-1", Name: "B 1", "Regular price": "1234,5", Parent: "B" },
    ]);
    const comma = await importFile(text, { decimal: "," });
    expect(comma.problems.list).toEqual([]);
    expect(comma.records.map((r) => r.price)).toEqual([19.9, 1234.5]);
    const dot = await importFile(text, { decimal: "." });
    expect(dot.records.map((r) => r.price)).toEqual([undefined, undefined]);
    expect(dot.problems.list).toEqual([
      { row: 2, column: "Regular price", message: expect.stringContaining('"19,90" is not a price') },
      { row: 4, column: "Regular price", message: expect.stringContaining("decimal=,") },
    ]);
  });

  test("a sale price counts only between its dates", async () => {
    let now = Date.UTC(2024, 4, 15, 12);
    const sale = (starts: string, ends: string) =>
      importFile(
        wooFile([
          {
            ID: "1",
            Type: "simple",
            SKU: "A",
            Name: "A",
            "Date sale price starts": starts,
            "Date sale price ends": ends,
            "Sale price": "8",
            "Regular price": "10",
          },
        ]),
        {},
        now,
      ).then(({ records, problems }) => (problems.count > 0 ? problems.list : records[0]?.price));
    expect(await sale("", "")).toBe(8);
    expect(await sale("2024-05-01 0:00:00", "2024-05-31 23:59:59")).toBe(8);
    expect(await sale("2024-05-15", "2024-05-15")).toBe(8);
    expect(await sale("2024-05-16", "")).toBe(10);
    expect(await sale("", "2024-05-14")).toBe(10);
    expect(await sale("2024-02-30", "")).toEqual([
      { row: 2, column: "Date sale price starts", message: expect.stringContaining("is not a date") },
    ]);
    now = Date.now();
    expect(await sale("2000-01-01", "2999-12-31")).toBe(8);
    expect(await sale("2999-01-01", "")).toBe(10);
  });

  test("stock status: 1 and backorder sell, 0 does not, anything else is a problem", async () => {
    const { records, problems } = await importFile(
      wooFile(
        ["1", "backorder", "0", "yes"].map((stock, i) => ({
          ID: String(i + 1),
          Type: "simple",
          SKU: `S${i}`,
          Name: "S",
          "In stock?": stock,
        })),
      ),
    );
    expect(records.map((r) => r.available)).toEqual([true, true, false, false]);
    expect(problems.list).toEqual([{ row: 5, column: "In stock?", message: expect.stringContaining('"yes"') }]);
  });

  test("variants=items: one product a variation, the parent's page and images after its own", async () => {
    const { records, positions } = await importFile(exported, { variants: "items" });
    const items = byId(records);
    expect(items["21"]).toEqual({
      id: "21",
      sku: "TEE-S",
      title: "T-shirt - S",
      description: "Cotton.",
      price: 15,
      available: true,
      images: [image("tee-s.jpg"), image("tee.jpg")],
      featured_image: image("tee-s.jpg"),
      url: `${SHOP}/?p=20`,
    });
    expect(items["22"]).toMatchObject({ sku: "TEE-M", price: 17, available: false });
    expect(items["10"]).toMatchObject({ sku: "MUG-1", price: 12.5 });
    expect(Object.keys(items).sort()).toEqual(["10", "21", "22", "30", "41", "42", "50", "61", "80"]);
    expect(positions[records.findIndex((r) => r.id === "61")]).toBe(11);
  });

  test("a file written for import, without IDs: SKUs are ids, the page is product/<sku>", async () => {
    const { records, problems } = await importFile(
      wooFile([
        { Type: "variable", SKU: "JACKET", Name: "Jacket" },
        { Type: "variation", SKU: "JACKET-S", Name: "Jacket S", "Regular price": "80", Parent: "JACKET" },
        { Type: "simple", SKU: "SCARF", Name: "Scarf", "Regular price": "20" },
      ]),
    );
    expect(problems.list).toEqual([]);
    expect(records.map((r) => [r.id, r.sku, r.url])).toEqual([
      ["SCARF", "SCARF", `${SHOP}/product/SCARF`],
      ["JACKET", "JACKET-S", `${SHOP}/product/JACKET`],
    ]);
  });

  test("a product's row given twice is a problem", async () => {
    const { problems } = await importFile(
      wooFile([
        { ID: "1", Type: "simple", SKU: "A", Name: "A" },
        { ID: "1", Type: "simple", SKU: "A", Name: "A" },
      ]),
    );
    expect(problems.list).toEqual([{ row: 3, column: "ID", message: expect.stringContaining("row 2") }]);
  });

  test("columns: kept, the platform's (also per file and in other units), unknown", () => {
    expect(["ID", "Type", "SKU", "Name", "Parent", "Images", "In stock?"].map(woocommerce.column)).toEqual(
      Array(7).fill("kept"),
    );
    const ignored = ["Weight (lbs)", "Length (in)", "Attribute 3 value(s)", "Meta: _wpcom_is_markdown"];
    ignored.push("Download 2 URL", "Brands", "GTIN, UPC, EAN, or ISBN", "Tags", ...HEADER.slice(-5));
    expect(ignored.map(woocommerce.column)).toEqual(Array(ignored.length).fill("ignored"));
    expect(["Favourite colour", "id", "Attribute name", "Meta:"].map(woocommerce.column)).toEqual(
      Array(4).fill(undefined),
    );
    expect(HEADER.every((name) => woocommerce.column(name) !== undefined)).toBe(true);
  });

  test("detect and columnOf", () => {
    expect(woocommerce.detect(HEADER)).toBe(true);
    expect(woocommerce.detect(["SKU", "Type", "Name", "Regular price", "Parent"])).toBe(true);
    expect(woocommerce.detect(["Handle", "Title", "Variant SKU", "Variant Price"])).toBe(false);
    expect(woocommerce.detect(["id", "sku", "title", "available", "featured_image", "url"])).toBe(false);
    expect(woocommerce.columnOf("id", HEADER)).toBe("ID");
    expect(woocommerce.columnOf("id", ["SKU", "Name"])).toBe("SKU");
    expect(woocommerce.columnOf("price_max", HEADER)).toBe("Regular price");
    expect(woocommerce.columnOf("featured_image", HEADER)).toBe("Images");
  });
});
