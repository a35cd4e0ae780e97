// Feeds made to hurt: DTDs and entities, malformed XML, huge elements, deep nesting, bytes that
// are not UTF-8. Each gives one located problem and ends the decoding, promptly and in bounded
// memory, without reading the rest of the source.
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import type { Problem } from "../src/errors.ts";
import { Problems } from "../src/parse.ts";
import { decodeXmlItems, MAX_DEPTH, MAX_ELEMENT_BYTES, MAX_ITEM_BYTES } from "../src/xml-items.ts";

const OPEN = `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0"><channel><title>Shop</title>\n`;
const CLOSE = "</channel></rss>\n";
const item = (id: number, more = "") => `<item><g:id>${id}</g:id><title>Item ${id}</title>${more}</item>\n`;

// A source that counts the chunks taken from it, so that a test can tell decoding ended.
function counted(chunks: Iterable<Buffer>) {
  const state = { taken: 0 };
  async function* source(): AsyncGenerator<Buffer> {
    for (const chunk of chunks) {
      state.taken++;
      yield chunk;
    }
  }
  return { state, source: source() };
}

async function decode(chunks: Iterable<Buffer>) {
  const structure = new Problems();
  const positions: number[] = [];
  const { state, source } = counted(chunks);
  for await (const part of decodeXmlItems(source, structure)) {
    for (const row of part.rows) positions.push(row.position);
  }
  return { positions, problems: structure.list as Problem[], taken: state.taken };
}

const text = (xml: string) => [Buffer.from(xml)];

describe("DTDs and entities", () => {
  test("billion laughs is refused at its DTD, before any entity is used", async () => {
    const lol = Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`).join("");
    const xml = `<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY lol0 "lol">${lol}]><rss><channel><item><title>&lol9;</title></item></channel></rss>`;
    const out = await decode(text(xml));
    expect(out.problems).toEqual([{ item: 0, message: "The feed declares a DTD: entity declarations are not read" }]);
  });

  test.each([
    ["an external entity", `<!DOCTYPE rss [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>`],
    ["an external DTD", `<!DOCTYPE rss SYSTEM "http://example.com/rss.dtd">`],
    ["a public DTD", `<!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN" "rss.dtd">`],
    ["a parameter entity", `<!DOCTYPE rss [<!ENTITY % p SYSTEM "http://example.com/p.dtd"> %p;]>`],
  ])("%s is refused", async (_, doctype) => {
    const out = await decode(text(`${doctype}\n<rss><channel>${item(1, "<g:x>&xxe;</g:x>")}</channel></rss>`));
    expect(out.problems).toEqual([{ item: 0, message: "The feed declares a DTD: entity declarations are not read" }]);
    expect(out.positions).toEqual([]);
  });

  test("a DOCTYPE naming only its root is read", async () => {
    const out = await decode(text(`<!DOCTYPE rss>${OPEN.slice(OPEN.indexOf("\n") + 1)}${item(1)}${CLOSE}`));
    expect(out.problems).toEqual([]);
    expect(out.positions).toEqual([1]);
  });

  test("an undefined entity is a problem at its item", async () => {
    const out = await decode(
      text(`${OPEN}${item(1)}${item(2, "<description>a&nbsp;b</description>")}${item(3)}${CLOSE}`),
    );
    expect(out.problems).toHaveLength(1);
    expect(out.problems[0]).toMatchObject({ item: 2, message: expect.stringMatching(/undefined entity/) });
    expect(out.positions).toEqual([1]);
  });
});

describe("malformed XML", () => {
  test.each([
    [
      "mismatched tags",
      `${OPEN}${item(1)}<item><g:id>2</g:price></item>${CLOSE}`,
      2,
      /not well-formed XML: \d+:\d+: .*close tag/,
    ],
    ["an element left open at the end", `${OPEN}${item(1)}<item><g:id>2</g:id>`, 2, /unclosed tag/],
    ["text after the root", `${OPEN}${item(1)}${CLOSE}trailing`, 0, /outside of root/],
    ["no root", "  \n ", 0, /root element/],
    ["an unbound prefix", `${OPEN}${item(1)}<item><h:id>2</h:id></item>${CLOSE}`, 2, /unbound namespace prefix/],
  ])("%s: a problem from the parser at its item", async (_, xml, at, message) => {
    const out = await decode(text(xml));
    expect(out.problems).toHaveLength(1);
    expect(out.problems[0]).toMatchObject({ item: at, message: expect.stringMatching(message) });
    expect(out.positions).toEqual(at === 0 && /root element/.test(String(message)) ? [] : [1]);
  });

  test("a root other than rss or feed", async () => {
    const out = await decode(text(`<?xml version="1.0"?><urlset><url/></urlset>`));
    expect(out.problems).toEqual([{ item: 0, message: "Expected an RSS 2.0 or Atom feed, not <urlset>" }]);
  });

  test("decoding ends at the problem: the rest of the source is not read", async () => {
    const rest = Array.from({ length: 1000 }, (_, i) => Buffer.from(item(i + 3)));
    const out = await decode([Buffer.from(`${OPEN}${item(1)}<item></wrong>`), ...rest]);
    expect(out.problems).toHaveLength(1);
    expect(out.taken).toBe(1);
  });
});

describe("encodings", () => {
  test.each([
    ["a UTF-16 LE byte order mark", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`<rss/>`, "utf16le")])],
    ["a UTF-16 BE byte order mark", Buffer.from([0xfe, 0xff, 0, 0x3c, 0, 0x72])],
    ["UTF-16 LE without a mark", Buffer.from(`<?xml version="1.0"?><rss/>`, "utf16le")],
  ])("%s: the feed must be UTF-8", async (_, bytes) => {
    const out = await decode([bytes]);
    expect(out.problems).toEqual([{ item: 0, message: "The feed must be UTF-8" }]);
  });

  test.each(["UTF-16", "ISO-8859-1", "windows-1252", "utf-16le"])("an XML declaration naming %s", async (name) => {
    const out = await decode(text(`<?xml version="1.0" encoding="${name}"?><rss><channel>${item(1)}</channel></rss>`));
    expect(out.problems).toEqual([{ item: 0, message: `The feed must be UTF-8: its XML declaration names ${name}` }]);
    expect(out.positions).toEqual([]);
  });

  test.prop([fc.array(fc.nat(), { maxLength: 6 })])(
    "bytes that are not UTF-8 in the middle of an item: a problem at that item, whatever the chunks",
    async (cuts) => {
      const bytes = Buffer.concat([
        Buffer.from(`${OPEN}${item(1)}${item(2)}<item><g:id>3</g:id><title>caf`),
        Buffer.from([0xc3, 0x28]),
        Buffer.from(`</title></item>${item(4)}${CLOSE}`),
      ]);
      const at = [...new Set(cuts.map((c) => c % bytes.length))].sort((a, b) => a - b);
      const chunks = [0, ...at].map((from, i) => bytes.subarray(from, [...at, bytes.length][i]));
      const out = await decode(chunks);
      expect(out.problems).toEqual([{ item: 3, message: "The feed is not valid UTF-8" }]);
      expect(out.positions).toEqual([1, 2]);
    },
  );

  test("a feed ending inside a character", async () => {
    const out = await decode([Buffer.from(`${OPEN}${item(1)}<item><title>`), Buffer.from([0xe2, 0x82])]);
    expect(out.problems).toEqual([{ item: 2, message: "The feed is not valid UTF-8: it ends inside a character" }]);
  });
});

// The heap's growth while a source is read, sampled at each chunk.
async function heapGrowth(chunks: Iterable<Buffer>) {
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  function* sampled() {
    for (const chunk of chunks) {
      peak = Math.max(peak, process.memoryUsage().heapUsed);
      yield chunk;
    }
  }
  const started = performance.now();
  const out = await decode(sampled());
  return { ...out, growth: peak - before, ms: performance.now() - started };
}

describe("bounded memory", () => {
  test("a 100 MB element: a problem at its item, its text not held past the bound", async () => {
    const mega = Buffer.alloc(1024 * 1024, "a");
    function* chunks() {
      yield Buffer.from(`${OPEN}${item(1)}<item><g:id>2</g:id><description>`);
      for (let i = 0; i < 100; i++) yield mega;
      yield Buffer.from(`</description></item>${CLOSE}`);
    }
    const out = await heapGrowth(chunks());
    expect(out.problems).toEqual([
      { item: 2, element: "description", message: expect.stringMatching(/longer than 8388608 bytes/) },
    ]);
    expect(out.taken).toBeLessThanOrEqual(MAX_ELEMENT_BYTES / mega.length + 2);
    expect(out.growth).toBeLessThan(64 * 1024 * 1024);
    expect(out.ms).toBeLessThan(20_000);
  });

  test("an element's text in many CDATA sections past the bound is a problem too", async () => {
    const section = `<![CDATA[${"b".repeat(1024 * 1024 - 12)}]]>`;
    function* chunks() {
      yield Buffer.from(`${OPEN}<item><description>`);
      for (let i = 0; i < 20; i++) yield Buffer.from(section);
      yield Buffer.from(`</description></item>${CLOSE}`);
    }
    const out = await decode(chunks());
    expect(out.problems).toEqual([{ item: 1, element: "description", message: expect.stringMatching(/longer than/) }]);
  });

  test("an item of many large elements: a problem once the item holds more than its bound", async () => {
    const element = Buffer.from(`<g:custom_label>${"c".repeat(1024 * 1024)}</g:custom_label>`);
    const rest = Array.from({ length: 40 }, () => element);
    const out = await decode([Buffer.from(`${OPEN}${item(1)}<item>`), ...rest, Buffer.from(`</item>${CLOSE}`)]);
    expect(out.problems).toEqual([
      { item: 2, element: "custom_label", message: `An item's elements hold more than ${MAX_ITEM_BYTES} bytes` },
    ]);
    expect(out.taken).toBeLessThan(20);
  });

  test("10,000 levels of nesting: a problem past the deepest level read, no stack grown", async () => {
    function* chunks() {
      yield Buffer.from(`${OPEN}<item><g:shipping>`);
      for (let i = 0; i < 10_000; i++) yield Buffer.from("<a>");
      for (let i = 0; i < 10_000; i++) yield Buffer.from("</a>");
      yield Buffer.from(`</g:shipping></item>${CLOSE}`);
    }
    const out = await heapGrowth(chunks());
    expect(out.problems).toEqual([
      { item: 1, element: "shipping", message: `Elements nested deeper than ${MAX_DEPTH} levels` },
    ]);
    expect(out.taken).toBeLessThan(100);
  });
});
