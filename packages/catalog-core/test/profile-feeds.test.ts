// The Google Merchant Center and Meta import profiles: feeds shaped like the platforms' published
// examples (TSV) and as the XML decoder hands items over, through the grouping every profile shares.
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { checkProducts, Problems } from "../src/parse.ts";
import { google } from "../src/profiles/google.ts";
import { meta } from "../src/profiles/meta.ts";
import type { ImportProfile, ProfileParameters, ProfileRow } from "../src/profiles/profile.ts";
import { GOOGLE_FEED, META_FEED, MUG, S, TSHIRT, tsv } from "./support/feed-examples.ts";
import { runProfile, tsvRows } from "./support/feed-rows.ts";

async function importTsv(profile: ImportProfile, text: string, parameters: ProfileParameters) {
  const { rows } = tsvRows(profile, text);
  return runProfile(profile, "tsv", parameters, [rows]);
}

// Every record a valid product: what the engine checks after the profile.
function accepted(records: readonly unknown[]) {
  const problems = new Problems();
  checkProducts(records, (index, path) => ({ pointer: `/${index}/${path.join("/")}` }), problems);
  return problems.list;
}

describe("Google Merchant Center feeds", () => {
  test("an item group of 3 variants is one product; an item without a group is its own", async () => {
    const { records, positions, problems } = await importTsv(google, GOOGLE_FEED, { currency: "USD" });
    expect(problems.list).toEqual([]);
    expect(records).toEqual([TSHIRT, MUG]);
    expect(positions).toEqual([2, 5]);
    expect(accepted(records)).toEqual([]);
  });

  test("variants=items: one product an item, its id and sku the item's id, at its row", async () => {
    const { rows } = tsvRows(google, GOOGLE_FEED);
    const { records, positions } = await runProfile(google, "tsv", { currency: "USD", variants: "items" }, [rows]);
    expect(
      records
        .map((r) => r as Record<string, unknown>)
        .map(({ id, sku, price, available }) => [id, sku, price, available]),
    ).toEqual([
      ["TSHIRT-S-RED", "TSHIRT-S-RED", 15, true],
      ["TSHIRT-M-RED", "TSHIRT-M-RED", 12, true],
      ["TSHIRT-L-RED", "TSHIRT-L-RED", 17.5, false],
      ["MUG-1", "MUG-1", 8.99, false],
    ]);
    expect(positions).toEqual([2, 3, 4, 5]);
    expect(accepted(records)).toEqual([]);
  });

  const one = (price: string, extra: Record<string, string> = {}) =>
    tsv(
      ["id", "title", "link", "image_link", "availability", "price", ...Object.keys(extra)],
      ["A1", "Lamp", `${S}/lamp`, `${S}/lamp.jpg`, "in_stock", price, ...Object.values(extra)],
    );

  test('"15,00 EUR" with the decimal ","', async () => {
    const { records, problems } = await importTsv(google, one("15,00 EUR"), { currency: "EUR", decimal: "," });
    expect(problems.list).toEqual([]);
    expect(records).toMatchObject([{ price: 15 }]);
  });

  test("a price in another currency is refused at its row and column", async () => {
    const { problems } = await importTsv(google, one("15.00 EUR"), { currency: "usd" });
    expect(problems.list).toEqual([
      { row: 2, column: "price", message: "The price is in EUR; this import's currency is USD" },
    ]);
  });

  test("a sale price counts without dates, within them, and not outside them", async () => {
    const sale = (dates: string) => one("20.00 EUR", { sale_price: "14.50 EUR", sale_price_effective_date: dates });
    const priceOf = async (dates: string) =>
      ((await importTsv(google, sale(dates), { currency: "EUR" })).records[0] as { price: number }).price;
    expect(await priceOf("")).toBe(14.5);
    expect(await priceOf("2000-01-01T13:00-0800/2999-01-01T15:30-0800")).toBe(14.5);
    expect(await priceOf("2000-01-01T13:00:00Z/2999-01-01T15:30:00+01:00")).toBe(14.5);
    expect(await priceOf("2001-02-24T13:00-0800/2001-02-28T15:30-0800")).toBe(20);
    expect(await priceOf("2998-02-24/2999-02-28")).toBe(20);
  });

  test("sale dates that are no interval, and a sale price in another currency, are located problems", async () => {
    const text = one("20.00 EUR", { sale_price: "14.50 USD", sale_price_effective_date: "2001-02-30/2001-03-01" });
    const { problems } = await importTsv(google, text, { currency: "EUR" });
    expect(problems.list.map(({ row, column }) => [row, column])).toEqual([
      [2, "sale_price"],
      [2, "sale_price_effective_date"],
    ]);
  });

  test("an unknown availability is a problem at its cell", async () => {
    const text = tsv(["id", "title", "link", "image_link", "availability", "price"], ["A1", "L", "u", "i", "soon", ""]);
    const { problems } = await importTsv(google, text, { currency: "EUR" });
    expect(problems.list).toMatchObject([{ row: 2, column: "availability" }]);
  });

  test("an availability spelled like an object's inherited property (constructor) is a problem", async () => {
    const text = tsv(
      ["id", "title", "link", "image_link", "availability", "price"],
      ["A1", "L", "u", "i", "constructor", ""],
    );
    const { problems } = await importTsv(google, text, { currency: "EUR" });
    expect(problems.list).toMatchObject([{ row: 2, column: "availability" }]);
  });

  test("header names compare without case; cells and problems keep the file's spelling", async () => {
    const text = tsv(
      ["ID", "Title", "Link", "Image_Link", "Availability", "Price"],
      ["A1", "Lamp", "u", "i", "In Stock", "9 GBP"],
    );
    const { header } = tsvRows(google, text);
    expect(google.detect(header)).toBe(true);
    expect(google.columnOf("price", header)).toBe("Price");
    const { records, problems } = await importTsv(google, text, { currency: "EUR" });
    expect(problems.list).toMatchObject([{ row: 2, column: "Price" }]);
    expect(records).toMatchObject([{ id: "A1", sku: "A1", title: "Lamp", available: true, url: "u" }]);
  });
});

describe("columns", () => {
  test("kept, ignored (the platform's own), unknown", () => {
    expect(["id", "item_group_id", "summary", "sale_price_effective_date", "AVAILABILITY"].map(google.column)).toEqual(
      Array(5).fill("kept"),
    );
    expect(
      ["gtin", "custom_label_4", "shipping(country:price)", "mobile_link", "guid", "updated"].map(google.column),
    ).toEqual(Array(6).fill("ignored"));
    expect(["status", "fb_product_category", "video[0].url", "colour", "pricee"].map(google.column)).toEqual(
      Array(5).fill(undefined),
    );
    expect(meta.column("status")).toBe("kept");
    expect(
      ["fb_product_category", "video[0].url", "applink.ios_url", "rich_text_description"].map(meta.column),
    ).toEqual(Array(4).fill("ignored"));
    expect(["tax", "colour"].map(meta.column)).toEqual([undefined, undefined]);
  });

  test("columnOf: the product's id from item_group_id when the feed has groups", () => {
    expect(google.columnOf("id", ["id", "item_group_id"])).toBe("item_group_id");
    expect(google.columnOf("id", ["id"])).toBe("id");
    expect(google.columnOf("sku", ["id"])).toBe("id");
    expect(google.columnOf("available", [])).toBe("availability");
    expect(google.columnOf("url", [])).toBe("link");
    expect(meta.columnOf("description", ["id", "summary"])).toBe("summary");
    expect(meta.columnOf("featured_image", [])).toBe("image_link");
  });

  test("detect: Google's required columns without Meta's own; Meta's own fields or spellings", () => {
    const googleHeader = ["id", "title", "description", "link", "image_link", "availability", "price", "brand"];
    expect([google.detect(googleHeader), meta.detect(googleHeader)]).toEqual([true, false]);
    for (const metaOnly of ["fb_product_category", "quantity_to_sell_on_facebook", "status", "image[0].url"]) {
      expect([google.detect([...googleHeader, metaOnly]), meta.detect([...googleHeader, metaOnly])]).toEqual([
        false,
        true,
      ]);
    }
    expect(google.detect(["id", "title", "link", "price"])).toBe(false);
    // Shopify's current header has a Status too, and no id: not a feed.
    expect(meta.detect(["Title", "URL handle", "Description", "Status", "SKU", "Price"])).toBe(false);
  });
});

describe("Meta feeds", () => {
  test("an archived item is unavailable; the group is available through its active variant", async () => {
    const { header } = tsvRows(meta, META_FEED);
    expect(meta.detect(header)).toBe(true);
    const { records, problems } = await importTsv(meta, META_FEED, { currency: "USD" });
    expect(problems.list).toEqual([]);
    expect(records).toEqual([
      {
        id: "BOWL",
        sku: "DB_1",
        title: "Dog Bowl",
        description: "Blue bowl",
        price: 9.99,
        price_min: 9.99,
        price_max: 12.99,
        available: true,
        images: [`${S}/bowl.jpg`, `${S}/bowl-l.jpg`],
        featured_image: `${S}/bowl.jpg`,
        url: `${S}/bowl`,
      },
      {
        id: "DL_1",
        sku: "DL_1",
        title: "Dog Leash",
        price: 5,
        available: false,
        images: [`${S}/leash.jpg`],
        featured_image: `${S}/leash.jpg`,
        url: `${S}/leash`,
      },
    ]);
    expect(accepted(records)).toEqual([]);
  });
});

describe("XML items", () => {
  // As the XML decoder gives RSS items: local names, a repeated element a list.
  const item = (position: number, cells: ProfileRow["cells"]): ProfileRow => ({ position, cells });
  const rss = [
    item(1, {
      id: "SH-1",
      item_group_id: "SH",
      title: "Shoe 41",
      description: "Leather",
      link: `${S}/shoe`,
      image_link: `${S}/shoe.jpg`,
      additional_image_link: [`${S}/shoe,side.jpg`, `${S}/shoe-top.jpg`],
      availability: "in stock",
      price: "80.00 EUR",
    }),
    item(2, {
      id: "SH-2",
      item_group_id: "SH",
      title: "Shoe 42",
      link: `${S}/shoe`,
      image_link: `${S}/shoe.jpg`,
      availability: "backorder",
      price: "80.00 EUR",
    }),
    item(3, {
      id: "SH-3",
      item_group_id: "SH",
      title: "Shoe 43",
      link: `${S}/shoe`,
      image_link: `${S}/shoe-43.jpg`,
      additional_image_link: `${S}/shoe-43-side.jpg`,
      availability: "out_of_stock",
      price: "85.00 EUR",
    }),
    // An Atom entry: its summary is the description.
    item(4, {
      id: "SOCK",
      title: "Sock",
      summary: "Wool",
      link: `${S}/sock`,
      image_link: `${S}/sock.jpg`,
      availability: "preorder",
      price: "4.00 EUR",
    }),
  ];

  test("repeated elements are lists, never split at a comma; Atom's summary is the description", async () => {
    const { records, positions, problems } = await runProfile(google, "xml", { currency: "EUR" }, [rss]);
    expect(problems.list).toEqual([]);
    expect(positions).toEqual([1, 4]);
    expect(records).toEqual([
      {
        id: "SH",
        sku: "SH-1",
        title: "Shoe 41",
        description: "Leather",
        price: 80,
        price_min: 80,
        price_max: 85,
        available: true,
        images: [
          `${S}/shoe.jpg`,
          `${S}/shoe,side.jpg`,
          `${S}/shoe-top.jpg`,
          `${S}/shoe-43.jpg`,
          `${S}/shoe-43-side.jpg`,
        ],
        featured_image: `${S}/shoe.jpg`,
        url: `${S}/shoe`,
      },
      {
        id: "SOCK",
        sku: "SOCK",
        title: "Sock",
        description: "Wool",
        price: 4,
        available: true,
        images: [`${S}/sock.jpg`],
        featured_image: `${S}/sock.jpg`,
        url: `${S}/sock`,
      },
    ]);
    expect(accepted(records)).toEqual([]);
  });

  test("a problem is located at its item and element", async () => {
    const bad = [item(7, { ...rss[3]?.cells, price: "4.00 USD" })];
    const { problems } = await runProfile(meta, "xml", { currency: "EUR" }, [bad]);
    expect(problems.list).toMatchObject([{ item: 7, element: "price" }]);
  });
});

describe("grouping", () => {
  // Groups of items, each variant with a price and an image of its own, and cuts into parts.
  const feedArb = fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 12 }).chain((sizes) => {
    const rows: ProfileRow[] = [];
    sizes.forEach((size, group) => {
      for (let v = 0; v < size; v++) {
        rows.push({
          position: rows.length + 2,
          cells: {
            id: `g${group}-v${v}`,
            // A group of one sometimes has no item_group_id: its own id names it.
            item_group_id: size === 1 && group % 2 === 0 ? "" : `g${group}`,
            title: `T${group}`,
            link: `${S}/${group}`,
            image_link: `${S}/${group}/${v}.jpg`,
            availability: "in_stock",
            price: `${v + 1}.00 EUR`,
          },
        });
      }
    });
    return fc.tuple(
      fc.constant({ sizes, rows }),
      fc.uniqueArray(fc.integer({ min: 0, max: rows.length }), { maxLength: 6 }),
    );
  });

  test.prop([feedArb])(
    "never loses or duplicates a variant, however the rows are cut into parts",
    async ([{ sizes, rows }, cuts]) => {
      const at = [0, ...cuts.sort((a, b) => a - b), rows.length];
      const parts = at.slice(1).map((end, i) => rows.slice(at[i], end));
      const groups = await runProfile(google, "tsv", { currency: "EUR" }, parts);
      expect(groups.problems.list).toEqual([]);
      expect(groups.records).toEqual(
        sizes.map((size, group) => ({
          id: size === 1 && group % 2 === 0 ? `g${group}-v0` : `g${group}`,
          sku: `g${group}-v0`,
          title: `T${group}`,
          price: 1,
          ...(size > 1 ? { price_min: 1, price_max: size } : {}),
          available: true,
          images: Array.from({ length: size }, (_, v) => `${S}/${group}/${v}.jpg`),
          featured_image: `${S}/${group}/0.jpg`,
          url: `${S}/${group}`,
        })),
      );
      const items = await runProfile(google, "tsv", { currency: "EUR", variants: "items" }, parts);
      expect(items.records.map((r) => (r as { id: string }).id)).toEqual(rows.map((row) => row.cells.id));
    },
  );
});
