// Merchant Center and Meta XML feeds (RSS 2.0, Atom 1.0) to one row an item, while the bytes
// arrive: saxes reads them (xml-feed-reader.ts), and between two RSS items the item scanner
// (xml-scanner.ts) reads the next ones straight from the bytes, several times faster, until it
// meets what only saxes may judge.
import { isUtf8 } from "node:buffer";
import type { Problems } from "./parse.ts";
import type { RowPart } from "./profiles/grouping.ts";
import { Utf8Chunks } from "./utf8-chunks.ts";
import { FeedReader } from "./xml-feed-reader.ts";
import { MORE } from "./xml-scanner.ts";

export { MAX_DEPTH, MAX_ELEMENT_BYTES, MAX_ITEM_BYTES } from "./xml-limits.ts";

// The most bytes of an unfinished item held for the scanner, and how many times it is read again
// with more bytes: a longer item, or one trickled in tiny chunks, goes to saxes as it comes, so
// that the scanner never reads a byte more than a few times.
const MAX_CARRY = 1 << 20;
const MAX_TRIES = 8;
const ITEM_END = Buffer.from("</item>");

// The first bytes of a UTF-16 document: a byte order mark, or `<` as two bytes.
function utf16(head: Buffer): boolean {
  const a = head[0];
  const b = head[1];
  return (a === 0xff && b === 0xfe) || (a === 0xfe && b === 0xff) || (a === 0x3c && b === 0) || (a === 0 && b === 0x3c);
}

/**
 * Decodes an RSS 2.0 or Atom feed of items (Merchant Center, Meta) while its bytes arrive: each
 * `<item>` or `<entry>` a row of its elements by name, numbered from 1. Yields the rows each
 * arrival completed; the first problem goes to `structure`, located at its item, and ends it.
 * `scans: false` has saxes read every item, as the scanner's tests compare.
 */
export async function* decodeXmlItems(
  source: AsyncIterable<Buffer>,
  structure: Problems,
  scans = true,
): AsyncGenerator<RowPart> {
  const feed = new FeedReader(structure, scans);
  const bytes = new Utf8Chunks();
  // The first bytes, held until they tell the encoding (a UTF-8 byte order mark is three).
  let head: Buffer | undefined = Buffer.alloc(0);
  // The start of an item the scanner needs more bytes of.
  let carry: Buffer | undefined;
  let tries = 0;
  const take = (): RowPart => {
    const rows = feed.rows.splice(0);
    return { rows, count: rows.length };
  };
  const parse = (piece: Buffer): boolean => {
    const decoded = bytes.decode(piece);
    if (!feed.write(decoded.text)) return false;
    if (decoded.valid) return true;
    structure.add({ item: feed.where(), message: "The feed is not valid UTF-8" });
    return false;
  };
  const read = (chunk: Buffer, last: boolean): boolean => {
    if (head !== undefined) {
      head = Buffer.concat([head, chunk]);
      if (head.length < 4 && !last) return true;
      chunk = head;
      head = undefined;
      if (utf16(chunk)) {
        structure.add({ item: 0, message: "The feed must be UTF-8" });
        return false;
      }
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) chunk = chunk.subarray(3);
    }
    if (carry !== undefined) {
      chunk = Buffer.concat([carry, chunk]);
      carry = undefined;
    }
    // Checked whole once, so that the scanner need not check each item (a chunk that ends inside a
    // character is checked item by item).
    let valid: boolean | undefined;
    for (let at = 0; at < chunk.length; ) {
      if (feed.scannable() && !bytes.pending) {
        valid ??= isUtf8(chunk);
        const end = feed.scan(chunk, at, valid);
        if (end === false) return false;
        if (typeof end === "number") {
          at = end;
          tries = 0;
          continue;
        }
        if (end === MORE && !last && chunk.length - at <= MAX_CARRY && tries++ < MAX_TRIES) {
          // Copied: the chunk's bytes may be written over once the next one is asked for.
          carry = Buffer.from(chunk.subarray(at));
          return true;
        }
      }
      // To the end of the next item, where the scanner may take over again.
      const close = chunk.indexOf(ITEM_END, at);
      const to = close === -1 ? chunk.length : close + ITEM_END.length;
      tries = 0;
      if (!parse(chunk.subarray(at, to))) return false;
      at = to;
    }
    return true;
  };
  for await (const chunk of source) {
    const going = read(chunk, false);
    if (feed.rows.length > 0) yield take();
    if (!going) return;
  }
  const ended = (head === undefined && carry === undefined) || read(Buffer.alloc(0), true);
  if (feed.rows.length > 0) yield take();
  if (!ended) return;
  if (!bytes.end()) {
    structure.add({ item: feed.where(), message: "The feed is not valid UTF-8: it ends inside a character" });
    return;
  }
  feed.end();
  if (feed.rows.length > 0) yield take();
}
