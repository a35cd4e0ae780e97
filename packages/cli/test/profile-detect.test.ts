// How import tells a platform's file without --profile: the header record of a CSV or TSV (a byte
// order mark, quoted names, gzip) asked of each built-in profile's own detect, and an XML feed's
// root element; only the file's start is read.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { headerNames, rootElement } from "../src/file-head.ts";
import { detectProfile, sniffFeed } from "../src/import-profile.ts";
import { HEADERS } from "./support/platform-headers.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "catalog-detect-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function detected(name: string, content: string | Buffer, delimiter?: string): Promise<string | undefined> {
  const file = join(dir, name);
  await writeFile(file, content);
  const format = name.replace(/\.gz$/, "").endsWith(".tsv") ? "tsv" : "csv";
  return (await detectProfile(file, { format, gzip: name.endsWith(".gz") }, delimiter))?.name;
}

describe("detecting a platform's CSV or TSV by its header", () => {
  it.each([
    ["shopify-legacy.csv", "shopify", HEADERS.shopifyLegacy],
    ["shopify-current.csv", "shopify", HEADERS.shopifyCurrent],
    ["woocommerce.csv", "woocommerce", HEADERS.woocommerce],
    ["google.tsv", "google", HEADERS.google],
    ["meta.tsv", "meta", HEADERS.meta],
    ["meta.csv", "meta", HEADERS.meta.replaceAll("\t", ",")],
    ["native.csv", undefined, HEADERS.native],
  ])("%s is %s's", async (name, profile, header) => {
    expect(await detected(name, `${header}\nsome,row,of,cells\n`)).toBe(profile);
  });

  it("reads past a byte order mark, quoted names (a delimiter and a quote inside), CRLF and gzip", async () => {
    const quoted = HEADERS.shopifyLegacy
      .split(",")
      .map((name) => `"${name}"`)
      .join(",");
    expect(await detected("bom.csv", `\uFEFF${quoted}\r\nx,y\r\n`)).toBe("shopify");
    expect(await detected("quotes.csv", `\uFEFF"Handle","Title, ""short""","Variant SKU"\r\n`)).toBe("shopify");
    expect(await detected("gzipped.csv.gz", gzipSync(`\uFEFF${HEADERS.woocommerce}\n1,simple\n`))).toBe("woocommerce");
    expect(await detected("semicolons.csv", `${HEADERS.woocommerce.replaceAll(",", ";")}\n`, ";")).toBe("woocommerce");
    // Without its delimiter the header is one name, no platform's.
    expect(await detected("semicolons.csv", `${HEADERS.woocommerce.replaceAll(",", ";")}\n`)).toBeUndefined();
  });

  it("splits the header record as a CSV reads it, and waits for its end", () => {
    expect(headerNames('\uFEFF"a,b","c""d",e\r\nrest', ",", true)).toEqual(["a,b", 'c"d', "e"]);
    expect(headerNames('"a\nb",c\n', ",", true)).toEqual(["a\nb", "c"]);
    expect(headerNames("a,b", ",", true)).toBeUndefined();
    expect(headerNames("a,b", ",", true, true)).toEqual(["a", "b"]);
    expect(headerNames('"a', ",", true)).toBeUndefined();
    expect(headerNames('a\t"b"\n', "\t", false)).toEqual(["a", '"b"']);
  });

  it("reads only the file's start: a gzip file broken after its header is detected", async () => {
    // Random rows (which do not compress) after the header, and the compressed file's second half
    // overwritten: reading the whole file fails, its first kilobytes do not.
    const rows = randomBytes(4_000_000).toString("hex");
    const zipped = gzipSync(`${HEADERS.shopifyLegacy}\n${rows}\n`);
    zipped.fill(0xff, Math.floor(zipped.length / 2));
    expect(await detected("broken.csv.gz", zipped)).toBe("shopify");
  });
});

describe("sniffing an XML feed", () => {
  it("names RSS and Atom feeds by their root element, past the prolog", async () => {
    expect(rootElement('\uFEFF<?xml version="1.0"?>\n<!-- made by a shop -->\n<rss version="2.0" xmlns:g="x">')).toBe(
      "rss",
    );
    expect(rootElement('<?xml version="1.0"?><atom:feed xmlns:atom="http://www.w3.org/2005/Atom">')).toBe("feed");
    expect(rootElement('<?xml version="1.0"?>')).toBeUndefined();
    const file = join(dir, "feed.xml");
    await writeFile(file, '<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n');
    expect(await sniffFeed(file, { format: "xml", gzip: false })).toBe("an Atom feed");
    await writeFile(file, "<catalog><product/></catalog>");
    expect(await sniffFeed(file, { format: "xml", gzip: false })).toBeUndefined();
  });
});
