// The item scanner reads exactly what saxes reads, or leaves the item to saxes: on generated feeds,
// well-formed and not, cut into chunks anywhere, decoding with the scanner gives the rows and the
// problem (its message with saxes's line and column, its item, its element) that saxes alone gives.
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { Problems } from "../src/parse.ts";
import { decodeXmlItems } from "../src/xml-items.ts";

async function decode(chunks: readonly Buffer[], scans: boolean) {
  const structure = new Problems();
  const parts: unknown[] = [];
  async function* source(): AsyncGenerator<Buffer> {
    yield* chunks;
  }
  for await (const part of decodeXmlItems(source(), structure, scans)) parts.push(part);
  return { parts, problems: structure.list };
}

// Texts of an element: mostly what feeds hold, now and then what only saxes may judge, so that
// most items are the scanner's and a fault comes after some of them.
const unit = fc.oneof(
  {
    weight: 160,
    arbitrary: fc.constantFrom("Merino beanie", "441.62 USD", "https://e.com/a?b=1", " ", "é", "🌿", "—"),
  },
  { weight: 48, arbitrary: fc.constantFrom("\n", "\r\n", "\r", "\t", "\n  ", "\u00a0", "\u2028", "\u0085") },
  {
    weight: 48,
    arbitrary: fc.constantFrom("&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#233;", "&#x1F33F;", "&#0065;"),
  },
  { weight: 32, arbitrary: fc.constantFrom("<![CDATA[<b>bold</b> & more]]>", "<![CDATA[\r\n]]>", "<![CDATA[]]>", "]") },
  {
    weight: 16,
    arbitrary: fc.constantFrom(
      "<b>bold</b>",
      "<g:country> US </g:country>",
      "<c:x/>",
      "<p>a<i>b &amp; </i> c</p>",
      "<b></b>",
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "&nbsp;",
      "&;",
      "& ",
      "&#X41;",
      "&#0;",
      "&#xD800;",
      "&#x110000;",
      "&#12345678901;",
      "&constructor;",
      "]]>",
      "]>",
      "]] >",
      "\u0001",
      "\u000b",
      "\ufffe",
      "\uffff",
      "<",
      ">",
      "<!-- note -->",
      "<?pi x?>",
      "<u:b>bold</u:b>",
      "<b>x</i>",
      "<b x='1'>y</b>",
      `${"<b>".repeat(9)}deep${"</b>".repeat(9)}`,
      "<![CDATA[x",
      "<!",
    ),
  },
);
const content = fc.array(unit, { maxLength: 6 }).map((units) => units.join(""));

const name = fc.oneof(
  {
    weight: 200,
    arbitrary: fc.constantFrom("g:id", "title", "description", "g:price", "link", "g:additional_image_link"),
  },
  {
    weight: 16,
    arbitrary: fc.constantFrom("c:colour", "a:link", "x:colour", "__proto__", "constructor", "a.b-c", "_x"),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "u:unbound",
      "xml:lang",
      "xmlns:g",
      "xmlns",
      "prix_été",
      "g:1d",
      "g::id",
      "g:a:b",
      "1bad",
      "g:",
      ":g",
      "item",
    ),
  },
);

const element = fc.oneof(
  { weight: 240, arbitrary: fc.tuple(name, content).map(([n, text]) => `<${n}>${text}</${n}>`) },
  { weight: 16, arbitrary: name.map((n) => `<${n}/>`) },
  { weight: 1, arbitrary: fc.tuple(name, content).map(([n, text]) => `<${n} unit="g">${text}</${n}>`) },
  { weight: 1, arbitrary: fc.tuple(name, name, content).map(([n, m, text]) => `<${n}>${text}</${m}>`) },
  { weight: 1, arbitrary: fc.tuple(name, content).map(([n, text]) => `<${n} >${text}</${n} >`) },
  { weight: 1, arbitrary: fc.tuple(name, content).map(([n, text]) => `<${n}>${text}`) },
);

const space = fc.constantFrom("", "\n", "\n      ", "\r\n  ", "\r", " \t");
const item = fc
  .tuple(
    fc.array(fc.tuple(space, element), { maxLength: 8 }),
    space,
    fc.constantFrom(...Array(12).fill("<item>"), "<item id='1'>", "<g:item>"),
  )
  .map(
    ([elements, last, open]) =>
      `${open}${elements.map(([s, e]) => s + e).join("")}${last}${open === "<g:item>" ? "</g:item>" : "</item>"}`,
  );
const between = fc.oneof(
  { weight: 30, arbitrary: space },
  {
    weight: 1,
    arbitrary: fc.constantFrom("<!-- c -->", "<title>x</title>", "text", "<?pi?>", "&amp;", "</channel><channel>"),
  },
);

const head = fc.constantFrom(
  ...Array(4).fill('<?xml version="1.0" encoding="UTF-8"?>\n'),
  ...Array(4).fill(""),
  '<?xml version="1.1"?>\n',
  "<!DOCTYPE rss>\n",
  '<?xml version="1.0" encoding="ISO-8859-1"?>',
);
const root = fc.constantFrom(
  '<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0" xmlns:c="http://example.com/c" xmlns:a="http://www.w3.org/2005/Atom">',
  '<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0" xmlns:c="http://example.com/c" xmlns:a="http://www.w3.org/2005/Atom">',
  '<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0" xmlns:c="http://example.com/c" xmlns:a="http://www.w3.org/2005/Atom">',
  "<rss>",
  '<rss xmlns="http://example.com/d" xmlns:g="http://base.google.com/ns/1.0">',
);
const channel = fc.constantFrom(
  "<channel>",
  '<channel xmlns:x="http://example.com/x">',
  '<channel xmlns:g="http://example.com/g">',
);

const feed = fc
  .tuple(
    head,
    root,
    channel,
    fc.array(fc.tuple(between, item), { maxLength: 12 }),
    fc.constantFrom("\n</channel></rss>\n", "</channel>", ""),
  )
  .map(([h, r, c, items, tail]) => `${h}${r}${c}\n${items.map(([b, i]) => b + i).join("")}${tail}`);

// The feed's bytes, sometimes with a byte that is not UTF-8, cut into chunks anywhere.
const chunked = fc
  .tuple(
    feed,
    fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.nat() }),
    fc.array(fc.nat(), { maxLength: 8 }),
  )
  .map(([xml, bad, cuts]) => {
    let bytes = Buffer.from(xml);
    if (bad !== null && bytes.length > 0) {
      const at = bad % bytes.length;
      bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from([0xff]), bytes.subarray(at)]);
    }
    const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
    const chunks: Buffer[] = [];
    let from = 0;
    for (const point of [...points, bytes.length]) {
      chunks.push(bytes.subarray(from, point));
      from = point;
    }
    return chunks;
  });

describe("the item scanner", () => {
  test.prop([chunked], { numRuns: 3_000 })("gives the rows and the problem saxes alone gives", async (chunks) => {
    expect(await decode(chunks, true)).toEqual(await decode(chunks, false));
  });

  test("a feed of plain items is read by the scanner, and saxes still places a later error", async () => {
    const items = Array.from(
      { length: 50 },
      (_, i) => `  <item>\n    <g:id>${i}</g:id>\n    <title>Ünïcode 🌿 ${i}</title>\n  </item>\n`,
    );
    const xml = `<rss xmlns:g="http://base.google.com/ns/1.0"><channel>\n${items.join("")}  <item><g:id>x</g:id><title>a &bad; b</title></item></channel></rss>`;
    const scanned = await decode([Buffer.from(xml)], true);
    expect(scanned).toEqual(await decode([Buffer.from(xml)], false));
    expect(scanned.problems).toEqual([
      { item: 51, message: "The feed is not well-formed XML: 202:36: undefined entity." },
    ]);
  });
});

describe("a feed the scanner cannot read", () => {
  test("items it gives up on (attributes), then plain ones, then a fault: what saxes alone gives", async () => {
    const nested = Array.from(
      { length: 300 },
      (_, i) => `<item><g:id>${i}</g:id><g:price unit="g">1 USD</g:price></item>\n`,
    );
    const plain = Array.from({ length: 300 }, (_, i) => `<item><g:id>p${i}</g:id><title>T ${i}</title></item>\n`);
    const xml = `<rss xmlns:g="http://base.google.com/ns/1.0"><channel>\n${[...nested, ...plain, ...nested].join("")}<item><g:id>&x;</g:id></item>`;
    const chunks = [Buffer.from(xml)];
    const scanned = await decode(chunks, true);
    expect(scanned).toEqual(await decode(chunks, false));
    expect(scanned.problems).toEqual([
      { item: 901, message: "The feed is not well-formed XML: 902:15: undefined entity." },
    ]);
  });
});
