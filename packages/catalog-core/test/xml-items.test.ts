// Merchant Center and Meta feeds, RSS 2.0 and Atom 1.0, shaped like Google's published examples:
// each item one row of its elements by name, whatever the chunks its bytes arrive in.
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { Problems } from "../src/parse.ts";
import { decodeXmlItems } from "../src/xml-items.ts";

const RSS = `<?xml version="1.0" encoding="UTF-8"?>
<rss xmlns:g="http://base.google.com/ns/1.0" xmlns:c="http://example.com/custom" version="2.0">
  <channel>
    <title>Example - Online Store</title>
    <link>https://www.example.com</link>
    <description>This is a sample feed containing the required and recommended attributes</description>
    <item>
      <g:id>TV_123456</g:id>
      <title>LG 22MB65 22 inch LED TV &amp; stand</title>
      <description><![CDATA[Attractively styled and boasting <b>stunning</b> picture quality — “crème brûlée” 📺]]></description>
      <link>https://www.example.com/electronics/tv/22LB4510.html?a=1&amp;b=2</link>
      <g:image_link>https://images.example.com/TV_123456.png</g:image_link>
      <g:additional_image_link>https://images.example.com/TV_123456-2.png</g:additional_image_link>
      <g:additional_image_link>https://images.example.com/TV_123456-3.png</g:additional_image_link>
      <g:condition>used</g:condition>
      <g:availability>in_stock</g:availability>
      <g:price unit="g:currency">159.00 USD</g:price>
      <g:shipping>
        <g:country>US</g:country>
        <g:service>Standard</g:service>
        <g:price>14.95 USD</g:price>
      </g:shipping>
      <g:gtin>71919219405200</g:gtin>
      <c:colour>black &#x26; &#233;</c:colour>
    </item>
    <item>
      <g:id>SHIRT_1</g:id>
      <title>  Plain T-shirt  </title>
      <g:item_group_id>SHIRT</g:item_group_id>
      <g:price>9.99 USD</g:price>
      <g:size/>
    </item>
  </channel>
</rss>
`;

const RSS_ROWS = [
  {
    position: 1,
    cells: {
      id: "TV_123456",
      title: "LG 22MB65 22 inch LED TV & stand",
      description: "Attractively styled and boasting <b>stunning</b> picture quality — “crème brûlée” 📺",
      link: "https://www.example.com/electronics/tv/22LB4510.html?a=1&b=2",
      image_link: "https://images.example.com/TV_123456.png",
      additional_image_link: [
        "https://images.example.com/TV_123456-2.png",
        "https://images.example.com/TV_123456-3.png",
      ],
      condition: "used",
      availability: "in_stock",
      price: "159.00 USD",
      shipping: "US Standard 14.95 USD",
      gtin: "71919219405200",
      "c:colour": "black & é",
    },
  },
  {
    position: 2,
    cells: { id: "SHIRT_1", title: "Plain T-shirt", item_group_id: "SHIRT", price: "9.99 USD", size: "" },
  },
];

const ATOM = `<?xml version="1.0"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:g="http://base.google.com/ns/1.0">
  <title>Example - Online Store</title>
  <link rel="self" href="https://www.example.com/feed.xml"/>
  <updated>2024-01-01T00:00:00Z</updated>
  <entry>
    <g:id>TV_123456</g:id>
    <title>LG 22MB65 22 inch LED TV</title>
    <summary>Attractively styled &lt;and&gt; bright</summary>
    <link href="https://www.example.com/tv/22LB4510.html"/>
    <link rel="enclosure" href="https://www.example.com/manual.pdf"/>
    <g:price>159.00 USD</g:price>
    <g:additional_image_link>https://images.example.com/a.png</g:additional_image_link>
    <g:additional_image_link>https://images.example.com/b.png</g:additional_image_link>
  </entry>
  <entry>
    <g:id>TV_2</g:id>
    <link rel="alternate" href=" https://www.example.com/tv/2.html "/>
  </entry>
</feed>
`;

const ATOM_ROWS = [
  {
    position: 1,
    cells: {
      id: "TV_123456",
      title: "LG 22MB65 22 inch LED TV",
      summary: "Attractively styled <and> bright",
      link: "https://www.example.com/tv/22LB4510.html",
      price: "159.00 USD",
      additional_image_link: ["https://images.example.com/a.png", "https://images.example.com/b.png"],
    },
  },
  { position: 2, cells: { id: "TV_2", link: "https://www.example.com/tv/2.html" } },
];

async function* stream(chunks: readonly Buffer[]): AsyncGenerator<Buffer> {
  yield* chunks;
}

// The bytes cut at the given offsets (each taken modulo the length).
function cut(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % bytes.length))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const c of at) {
    chunks.push(bytes.subarray(from, c));
    from = c;
  }
  chunks.push(bytes.subarray(from));
  return chunks;
}

async function decode(chunks: readonly Buffer[]) {
  const structure = new Problems();
  const rows: unknown[] = [];
  const counts: number[] = [];
  for await (const part of decodeXmlItems(stream(chunks), structure)) {
    rows.push(...part.rows);
    counts.push(part.count);
  }
  return { rows, counts, problems: structure.list };
}

describe("decodeXmlItems", () => {
  test("an RSS 2.0 feed: one row an item, Google's elements by local name, others by prefix", async () => {
    const out = await decode([Buffer.from(RSS)]);
    expect(out.problems).toEqual([]);
    expect(out.rows).toEqual(RSS_ROWS);
  });

  test("an Atom 1.0 feed: an alternate link's href, other rels ignored", async () => {
    const out = await decode([Buffer.from(ATOM)]);
    expect(out.problems).toEqual([]);
    expect(out.rows).toEqual(ATOM_ROWS);
  });

  test("a UTF-8 byte order mark and an XML declaration naming UTF-8 in any case are read", async () => {
    for (const encoding of ["utf-8", "UTF8", "Utf-8"]) {
      const xml = RSS.replace('encoding="UTF-8"', `encoding="${encoding}"`);
      const out = await decode([Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(xml)])]);
      expect(out.problems).toEqual([]);
      expect(out.rows).toEqual(RSS_ROWS);
    }
  });

  test("an element named __proto__ is a cell like any other", async () => {
    const xml = `<rss><channel><item><__proto__>a</__proto__><__proto__>b</__proto__><id>1</id></item></channel></rss>`;
    const out = await decode([Buffer.from(xml)]);
    const cells = (out.rows[0] as { cells: Record<string, unknown> }).cells;
    expect(Object.getPrototypeOf(cells)).toBe(Object.prototype);
    expect(Object.entries(cells)).toEqual([
      ["__proto__", ["a", "b"]],
      ["id", "1"],
    ]);
  });

  test("each arrival yields the items it completed, counted", async () => {
    const bytes = Buffer.from(RSS);
    const second = RSS.indexOf("<g:id>SHIRT_1");
    const out = await decode([bytes.subarray(0, second), bytes.subarray(second)]);
    expect(out.counts).toEqual([1, 1]);
  });

  test.prop([fc.constantFrom(RSS, ATOM), fc.array(fc.nat(), { maxLength: 12 })])(
    "any chunking of the bytes, a character split between chunks included, yields the same rows",
    async (xml, cuts) => {
      const bytes = Buffer.from(xml);
      const out = await decode(cut(bytes, cuts));
      expect(out.problems).toEqual([]);
      expect(out.rows).toEqual(xml === RSS ? RSS_ROWS : ATOM_ROWS);
    },
  );

  test("every single cut of the RSS feed, one byte a chunk included, yields the same rows", async () => {
    const bytes = Buffer.from(RSS);
    for (let at = 1; at < bytes.length; at++) {
      const out = await decode([bytes.subarray(0, at), bytes.subarray(at)]);
      expect(out.rows).toEqual(RSS_ROWS);
    }
    const single = await decode([...bytes].map((b) => Buffer.from([b])));
    expect(single.rows).toEqual(RSS_ROWS);
  });
});
