// Cases of the README's CSV rules (csvContent and raw CSV bodies), for the one-answer test:
// layouts every text channel must read alike (BOM, CRLF, blank lines, no final newline), cells
// that must read as the JSON value they stand for, and the document's structure (CSV channels
// only: csvContent, raw, gzip).
import type { Case, Expectation } from "./one-answer-run.ts";
import { imported, invalid, without } from "./one-answer-validation.ts";
import { product } from "./test-server.ts";

const p = (id: string, extra: Record<string, unknown> = {}) => product(id, `SKU-${id}`, extra);
const malformed = (errorCount: number): Expectation => ({ status: 400, code: "INVALID_CSV", errorCount });
const HEADER = "id,sku,title,available,featured_image,url";
const row = (id: string, rest = "true,https://i/1,https://u/1") => `${id},SKU-${id},Product ${id},${rest}`;
const csv = (...lines: string[]) => ({ text: `${lines.join("\n")}\n` });

// The products `row()` stands for, as JSON.
const q = (id: string, extra: Record<string, unknown> = {}) =>
  product(id, `SKU-${id}`, { featured_image: "https://i/1", url: "https://u/1", ...extra });

export const CSV_CASES: readonly Case[] = [
  {
    name: "a UTF-8 byte order mark",
    products: [p("a"), p("b", { price: -1 })],
    layout: { bom: true },
    expect: invalid(1),
  },
  { name: "CRLF line ends", products: [p("a"), p("b", { price: -1 })], layout: { crlf: true }, expect: invalid(1) },
  {
    name: "blank lines: skipped, and counted in rows and lines",
    products: [p("a", { price: -1 }), p("b"), p("c", { title: " " })],
    layout: { blankLines: true },
    expect: invalid(2),
  },
  {
    name: "no final newline",
    products: [p("a"), p("b", { price: -1 })],
    layout: { finalNewline: false },
    expect: invalid(1),
  },
  {
    name: "BOM, CRLF and blank lines together, valid",
    products: [p("a", { description: "x\r\ny" }), p("b")],
    layout: { bom: true, crlf: true, blankLines: true },
    expect: imported({ total: 2, created: 2 }),
  },
  {
    name: "quoted commas, quotes and newlines, and the rows after them",
    products: [
      p("a", { title: 'Socks, "striped"', description: 'one\ntwo, "three"\nfour' }),
      p("b", { price: -1, description: "\n\n" }),
      p("c", { title: "  " }),
    ],
    expect: invalid(2),
  },
  {
    name: "an empty optional cell is the field absent",
    products: [p("a", { description: "d", price: 1, images: ["https://i/a"] }), p("b")],
    expect: {
      ...imported({ total: 2, created: 2 }),
      stored: { a: { description: "d" }, b: { id: "b" } },
    },
  },
  {
    name: "an empty required cell is that field missing",
    products: [p("a"), without(p("b"), "title"), without(p("c"), "url", "id")],
    expect: invalid(3),
  },
  {
    name: "available is true or false in any case",
    products: [q("a", { available: true }), q("b", { available: false }), q("c", { available: true })],
    csv: {
      text: `${HEADER}\n${row("a", "TRUE,https://i/1,https://u/1")}\n${row("b", "False,https://i/1,https://u/1")}\n${row("c", "tRuE,https://i/1,https://u/1")}\n`,
    },
    expect: {
      ...imported({ total: 3, created: 3 }),
      stored: { a: { available: true }, b: { available: false }, c: { available: true } },
    },
  },
  {
    name: "available other than true or false",
    csv: csv(HEADER, row("a", "yes,i,u"), row("b", "1,i,u"), row("c", " true,i,u"), row("d", "truee,i,u")),
    expect: invalid(4),
  },
  {
    name: "plain decimal numbers",
    products: [q("a", { price: 19.99 }), q("b", { price: 0 }), q("c", { price: 7 }), q("d", { price: 10.5 })],
    csv: csv(`${HEADER},price`, ...["19.99", "0", "007", "10.50"].map((n, i) => `${row("abcd"[i] as string)},${n}`)),
    expect: { ...imported({ total: 4, created: 4 }), stored: { a: { price: 19.99 }, b: {}, c: { price: 7 }, d: {} } },
  },
  {
    name: "numbers that are not plain decimals",
    csv: csv(
      `${HEADER},price`,
      ...["1e3", "+5", ".5", "5.", '"1,5"', "0x1F", "abc", "Infinity", "NaN", '" 5"', '"5 "', "1_000"].map(
        (n, i) => `${row(`n${i}`)},${n}`,
      ),
    ),
    expect: invalid(12),
  },
  {
    name: "a negative number cell",
    csv: csv(`${HEADER},price,price_min`, `${row("a")},-1,`, `${row("b")},,-0.5`),
    expect: invalid(2),
  },
  {
    name: "images cells: one URL, a JSON array, an empty array",
    products: [
      q("a", { images: ["https://i/a"] }),
      q("b", { images: ["https://i/b1", "https://i/b,2"] }),
      q("c", { images: [] }),
    ],
    csv: csv(
      `${HEADER},images`,
      `${row("a")},https://i/a`,
      `${row("b")},"[""https://i/b1"",""https://i/b,2""]"`,
      `${row("c")},[]`,
    ),
    expect: {
      ...imported({ total: 3, created: 3 }),
      stored: { a: { images: ["https://i/a"] }, b: {}, c: { images: [] } },
    },
  },
  {
    name: "images cells that are no list of URLs",
    csv: csv(`${HEADER},images`, `${row("a")},[not json`, `${row("b")},"[""ok"",5]"`, `${row("c")},"["""", "" ""]"`),
    expect: invalid(4),
  },
  { name: "an unknown column", csv: csv(`${HEADER},colour`, `${row("a")},red`), expect: malformed(1) },
  {
    name: "several unknown columns",
    csv: csv(`colour,${HEADER},size,Price`, `red,${row("a")},M,1`),
    expect: malformed(3),
  },
  { name: "a repeated column", csv: csv(`${HEADER},title`, `${row("a")},Again`), expect: malformed(1) },
  {
    name: "a required column missing",
    csv: csv("id,sku,title,available,featured_image", "a,SKU-a,A,true,https://i/1"),
    expect: malformed(1),
  },
  { name: "a row with too few cells", csv: csv(HEADER, row("a"), "b,SKU-b,B,true,https://i/1"), expect: malformed(1) },
  { name: "a row with too many cells", csv: csv(HEADER, `${row("a")},extra`, row("b")), expect: malformed(1) },
  {
    name: "two rows with the wrong number of cells",
    csv: csv(HEADER, "a,SKU-a", row("b"), `${row("c")},,`),
    expect: malformed(2),
  },
  {
    name: "a row with the wrong number of cells and a bad value in another row",
    csv: csv(`${HEADER},price`, `${row("a")}`, `${row("b")},-1`),
    expect: { status: 400 },
  },
  {
    name: "a quote never closed",
    csv: csv(HEADER, row("a"), 'b,SKU-b,"Open,true,i,u', row("c")),
    expect: malformed(1),
  },
  { name: "a stray quote inside a cell", csv: csv(HEADER, row("a"), 'b,SKU-b,Sto"ck,true,i,u'), expect: malformed(1) },
  {
    name: "lines of white space between rows are blank lines",
    csv: { text: `${HEADER}\n   \n${row("a")}\n\t\n${row("b", "maybe,i,u")}\n` },
    expect: { ...invalid(1) },
  },
  { name: "an empty document", csv: { text: "" }, expect: malformed(1) },
  { name: "a document of blank lines only", csv: { text: "\n\r\n\n" }, expect: malformed(1) },
  { name: "a header and no rows", csv: csv(HEADER), expect: imported({}) },
  { name: "a header and blank lines only", csv: { text: `${HEADER}\n\n\r\n\n` }, expect: imported({}) },
];
