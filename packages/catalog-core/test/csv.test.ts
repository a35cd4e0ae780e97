// CSV decoding: header, typed cells, row and column of every problem, and csv-parse's errors.
import { type Product, ProductSchema } from "@catalog-kit/catalog-core";
import { productArb } from "@catalog-kit/catalog-core/testing";
import { fc, test } from "@fast-check/vitest";
import * as v from "valibot";
import { describe, expect } from "vitest";
import { csvCell, encodeCsv } from "./support/csv-encode.ts";
import { decodeCsv } from "./support/decode-csv.ts";

const HEADER = "id,sku,title,available,featured_image,url";

// CSV cannot tell an empty description from an absent one, so the round trip leaves it out.
const csvProductArb = productArb().map((p) => {
  if (p.description !== "") return p;
  const { description: _, ...rest } = p;
  return rest as Product;
});

describe("CSV decoding", () => {
  test("decodes typed cells: booleans, numbers, single image, JSON-array images", async () => {
    const text = `id,sku,title,price,available,images,featured_image,url
1,a,"Mug, ""blue""",19.99,TRUE,https://i/1.png,f,u
2,b,Plate,0,false,"[""https://i/1.png"",""https://i/2.png""]",f,u
`;
    expect((await decodeCsv(text)).records).toEqual([
      {
        id: "1",
        sku: "a",
        title: 'Mug, "blue"',
        price: 19.99,
        available: true,
        images: ["https://i/1.png"],
        featured_image: "f",
        url: "u",
      },
      {
        id: "2",
        sku: "b",
        title: "Plate",
        price: 0,
        available: false,
        images: ["https://i/1.png", "https://i/2.png"],
        featured_image: "f",
        url: "u",
      },
    ]);
  });

  test("ignores a BOM, accepts CRLF and LF in one document, skips blank lines, allows no final newline", async () => {
    const text = `\uFEFF${HEADER}\r\n1,a,T,true,f,u\r\n\r\n\n2,b,T,false,f,u\n   \n3,c,T,true,f,u`;
    const { records, rows } = await decodeCsv(text);
    expect(records.map((r) => r.id)).toEqual(["1", "2", "3"]);
    expect(rows).toEqual([2, 5, 7]);
  });

  test("columns may come in any order; absent optional columns and empty optional cells are absent fields", async () => {
    const { records } = await decodeCsv("url,featured_image,available,title,sku,id,price\nu,f,true,T,a,1,\n");
    expect(records).toEqual([{ url: "u", featured_image: "f", available: true, title: "T", sku: "a", id: "1" }]);
  });

  test("counts newlines inside quoted cells, LF or CRLF, in row numbers; a lone CR is not a line break", async () => {
    const text = `${HEADER}\r\n1,a,"two\r\nlines",true,f,u\r\n2,b,"cr\ronly",true,f,u\n3,c,"x\n\ny",true,f,u\n4,d,T,true,f,u\n`;
    expect((await decodeCsv(text)).rows).toEqual([2, 4, 5, 8]);
  });

  test.each([
    ["an empty document", "", 1, undefined],
    ["an unknown column", "id,sku,title,available,featured_image,url,colour\n", 1, "colour"],
    ["a repeated column", "id,sku,sku,title,available,featured_image,url\n", 1, "sku"],
    ["a missing required column", "id,title,available,featured_image,url\n", 1, "sku"],
  ])("rejects %s as INVALID_CSV naming row and column", async (_, text, row, column) => {
    const { problems } = await decodeCsv(text);
    expect(problems[0]).toMatchObject(column === undefined ? { row } : { row, column });
  });

  test("reports every row with the wrong number of cells", async () => {
    const { problems } = await decodeCsv(`${HEADER}\n1,a,T,true,f\n2,b,T,true,f,u\n3,c,T,true,f,u,extra\n`);
    expect(problems).toEqual([
      { row: 2, message: "Expected 6 cells, found 5" },
      { row: 4, message: "Expected 6 cells, found 7" },
    ]);
  });

  test.each([
    ["an unclosed quote", `${HEADER}\n1,a,"T,true,f,u\n`, 2],
    ["text after a closing quote", `${HEADER}\n1,a,T,true,f,u\n2,b,"T"x,true,f,u\n`, 3],
  ])("rejects %s as INVALID_CSV at its row", async (_, text, row) => {
    const { problems } = await decodeCsv(text);
    expect(problems[0]).toMatchObject({ row });
  });

  test.prop([fc.array(csvProductArb, { maxLength: 8 }), fc.constantFrom("\n", "\r\n")])(
    "random products encoded to CSV decode back equal",
    async (products, eol) => {
      const { records, problems } = await decodeCsv(encodeCsv(products, { eol }));
      expect(problems).toEqual([]);
      expect(records.map((record) => v.parse(ProductSchema, record))).toEqual(products);
    },
  );

  test.prop([
    fc.array(csvProductArb, { minLength: 1, maxLength: 6 }),
    fc.nat(),
    fc.array(fc.nat({ max: 2 }), { maxLength: 8 }),
  ])("a bad cell is reported at the line its record starts on", async (products, pick, blanks) => {
    const bad = pick % products.length;
    const lines = ["id,sku,title,available,featured_image,url,description"];
    let expectedRow = 0;
    products.forEach((p, i) => {
      for (let b = 0; b < (blanks[i] ?? 0); b++) lines.push("");
      const available = i === bad ? "maybe" : String(p.available);
      if (i === bad) expectedRow = lines.join("\n").split("\n").length + 1;
      lines.push(
        [p.id, p.sku, p.title, available, p.featured_image, p.url, p.description ?? ""].map(csvCell).join(","),
      );
    });
    const { records, rows } = await decodeCsv(lines.join("\n"));
    expect(v.is(ProductSchema, records[bad])).toBe(false);
    expect(rows[bad]).toBe(expectedRow);
  });

  test.prop([
    fc.oneof(fc.string(), fc.stringMatching(/^(id|sku|title|available|featured_image|url|,|"|\n|\r|a|true)*$/)),
  ])("arbitrary text never throws: every problem is located at a row", async (text) => {
    const { problems } = await decodeCsv(text);
    for (const problem of problems) expect(problem.row).toBeGreaterThanOrEqual(1);
  });
});
