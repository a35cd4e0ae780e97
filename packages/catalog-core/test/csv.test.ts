// CSV decoding: header, typed cells, row and column of every problem, and csv-parse's errors.
import { CatalogError, decodeCsv, type Product, ProductSchema } from "@catalog-kit/catalog-core";
import { productArb } from "@catalog-kit/catalog-core/testing";
import { fc, test } from "@fast-check/vitest";
import * as v from "valibot";
import { describe, expect } from "vitest";
import { csvCell, encodeCsv } from "./support/csv-encode.ts";

const HEADER = "id,sku,title,available,featured_image,url";

function problemsOf(run: () => unknown): { code: string; problems: unknown[] } {
  try {
    run();
  } catch (error) {
    if (error instanceof CatalogError) return { code: error.code, problems: [...error.problems] };
    throw error;
  }
  throw new Error("expected a CatalogError");
}

// CSV cannot tell an empty description from an absent one, so the round trip leaves it out.
const csvProductArb = productArb().map((p) => {
  if (p.description !== "") return p;
  const { description: _, ...rest } = p;
  return rest as Product;
});

describe("decodeCsv", () => {
  test("decodes typed cells: booleans, numbers, single image, JSON-array images", () => {
    const text = `id,sku,title,price,available,images,featured_image,url
1,a,"Mug, ""blue""",19.99,TRUE,https://i/1.png,f,u
2,b,Plate,0,false,"[""https://i/1.png"",""https://i/2.png""]",f,u
`;
    expect(decodeCsv(text).records).toEqual([
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

  test("ignores a BOM, accepts CRLF and LF in one document, skips blank lines, allows no final newline", () => {
    const text = `\uFEFF${HEADER}\r\n1,a,T,true,f,u\r\n\r\n\n2,b,T,false,f,u\n   \n3,c,T,true,f,u`;
    const { records, rows } = decodeCsv(text);
    expect(records.map((r) => r.id)).toEqual(["1", "2", "3"]);
    expect(rows).toEqual([2, 5, 7]);
  });

  test("columns may come in any order; absent optional columns and empty optional cells are absent fields", () => {
    const { records } = decodeCsv("url,featured_image,available,title,sku,id,price\nu,f,true,T,a,1,\n");
    expect(records).toEqual([{ url: "u", featured_image: "f", available: true, title: "T", sku: "a", id: "1" }]);
  });

  test("counts newlines inside quoted cells, LF or CRLF, in row numbers; a lone CR is not a line break", () => {
    const text = `${HEADER}\r\n1,a,"two\r\nlines",true,f,u\r\n2,b,"cr\ronly",true,f,u\n3,c,"x\n\ny",true,f,u\n4,d,T,true,f,u\n`;
    expect(decodeCsv(text).rows).toEqual([2, 4, 5, 8]);
  });

  test.each([
    ["an empty document", "", 1, undefined],
    ["an unknown column", "id,sku,title,available,featured_image,url,colour\n", 1, "colour"],
    ["a repeated column", "id,sku,sku,title,available,featured_image,url\n", 1, "sku"],
    ["a missing required column", "id,title,available,featured_image,url\n", 1, "sku"],
  ])("rejects %s as INVALID_CSV naming row and column", (_, text, row, column) => {
    const { code, problems } = problemsOf(() => decodeCsv(text));
    expect(code).toBe("INVALID_CSV");
    expect(problems[0]).toMatchObject(column === undefined ? { row } : { row, column });
  });

  test("reports every row with the wrong number of cells", () => {
    const { code, problems } = problemsOf(() =>
      decodeCsv(`${HEADER}\n1,a,T,true,f\n2,b,T,true,f,u\n3,c,T,true,f,u,extra\n`),
    );
    expect(code).toBe("INVALID_CSV");
    expect(problems).toEqual([
      { row: 2, message: "Expected 6 cells, found 5" },
      { row: 4, message: "Expected 6 cells, found 7" },
    ]);
  });

  test.each([
    ["an unclosed quote", `${HEADER}\n1,a,"T,true,f,u\n`, 2],
    ["text after a closing quote", `${HEADER}\n1,a,T,true,f,u\n2,b,"T"x,true,f,u\n`, 3],
  ])("rejects %s as INVALID_CSV at its row", (_, text, row) => {
    const { code, problems } = problemsOf(() => decodeCsv(text));
    expect(code).toBe("INVALID_CSV");
    expect(problems[0]).toMatchObject({ row });
  });

  test.prop([fc.array(csvProductArb, { maxLength: 8 }), fc.constantFrom("\n", "\r\n")])(
    "random products encoded to CSV decode back equal",
    (products, eol) => {
      const records = decodeCsv(encodeCsv(products, { eol })).records;
      expect(records.map((record) => v.parse(ProductSchema, record))).toEqual(products);
    },
  );

  test.prop([
    fc.array(csvProductArb, { minLength: 1, maxLength: 6 }),
    fc.nat(),
    fc.array(fc.nat({ max: 2 }), { maxLength: 8 }),
  ])("a bad cell is reported at the line its record starts on, and its column", (products, pick, blanks) => {
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
    const { records, locate } = decodeCsv(lines.join("\n"));
    expect(v.is(ProductSchema, records[bad])).toBe(false);
    expect(locate(bad, ["available"])).toEqual({ row: expectedRow, column: "available" });
  });

  test.prop([
    fc.oneof(fc.string(), fc.stringMatching(/^(id|sku|title|available|featured_image|url|,|"|\n|\r|a|true)*$/)),
  ])("arbitrary text never throws anything but a CatalogError", (text) => {
    try {
      decodeCsv(text);
    } catch (error) {
      expect(error).toBeInstanceOf(CatalogError);
    }
  });
});
