// Merchant Center and Meta XML feeds (RSS 2.0, Atom 1.0) to one row an item, while the bytes
// arrive. Parser: saxes, the one of saxes, sax and htmlparser2 (xmlMode) that reports every
// well-formedness error (undefined entities too) and never reads a DTD; on a 200 MB Google feed
// it parsed 29 MB/s, sax 8, htmlparser2 31 (accepting mismatched tags); this decoder 16 MB/s.
import { type SaxesOptions, SaxesParser, type SaxesTagNS } from "saxes";
import type { Problems } from "./parse.ts";
import type { RowPart } from "./profiles/grouping.ts";
import type { ProfileRow } from "./profiles/profile.ts";
import { Utf8Chunks } from "./utf8-chunks.ts";

/** Longest text one element may hold; longer is a problem and decoding ends. */
export const MAX_ELEMENT_BYTES = 8 * 1024 * 1024;

/** Most bytes one item's elements may hold together, so that a row stays bounded. */
export const MAX_ITEM_BYTES = 4 * MAX_ELEMENT_BYTES;

/** Deepest nesting of elements read; deeper is a problem and decoding ends. */
export const MAX_DEPTH = 64;

const GOOGLE = "http://base.google.com/ns/1.0";
const ATOM = "http://www.w3.org/2005/Atom";

// Text is given to the parser this much at a time, so that what it holds unfinished (a text, a
// tag, a comment) is measured often: at most one slice past the bound.
const SLICE = 1 << 16;

// Thrown by a handler once its problem is added: the parser is left where it stands.
const STOP = Symbol("stop");

// A DTD's internal subset or external identifier: entity declarations, or a file to fetch.
const DTD = /\[|\s(?:SYSTEM|PUBLIC)\b/;
const UTF8 = /^utf-?8$/i;

// A text the parser cut from the decoded chunk is a slice of it, and V8 keeps the whole chunk
// alive while the slice lives: a stored product's title kept the 64 KiB of the feed it came from
// (a 100 MB feed into the memory store held 228 MB of heap after collection, 66 MB with copies).
// Joined to a space and cut again, the text is copied into a string of its own; V8 slices only
// texts of 13 units or more.
function own(text: string): string {
  return text.length < 13 ? text : (" " + text).slice(1);
}

// An element of an item being read: its text runs (split by its own child elements) joined.
interface Child {
  readonly name: string;
  // Ignored (an Atom link of another rel), or its value set already (an Atom link's href).
  readonly fixed: string | null | undefined;
  text: string;
  run: string;
  bytes: number;
}

// The name of an item's element: Google's, Atom's and unqualified ones by their local name.
function cellName(tag: SaxesTagNS): string {
  return tag.uri === "" || tag.uri === GOOGLE || tag.uri === ATOM ? tag.local : tag.name;
}

function attribute(tag: SaxesTagNS, local: string): string | undefined {
  for (const attribute of Object.values(tag.attributes)) {
    if (attribute.local === local && attribute.uri === "") return attribute.value;
  }
  return undefined;
}

// The feed read by the parser's events into rows, every problem added where it is found.
class FeedReader {
  readonly rows: ProfileRow[] = [];
  private readonly parser = new SaxesParser<SaxesOptions & { xmlns: true }>({ xmlns: true });
  private readonly structure: Problems;
  private depth = 0;
  private kind: "rss" | "atom" | undefined;
  private inChannel = false;
  // The number of the last item begun, and the depth of the one being read (0: none).
  private item = 0;
  private itemDepth = 0;
  private cells: Record<string, string | string[]> = {};
  private itemBytes = 0;
  private child: Child | undefined;
  // The parser's position at its last event: what it holds unfinished lies after it.
  private lastEvent = 0;

  constructor(structure: Problems) {
    this.structure = structure;
    const p = this.parser;
    const seen = () => {
      this.lastEvent = p.position;
    };
    // Six handlers, no more: a seventh registered by `on` (a store by computed name) turned the
    // parser into a dictionary object (V8 of Node 20), its every field read slow: 2 MB/s, not 17.
    // The XML declaration is read from `xmlDecl` when the root opens; comments are not events.
    p.on("doctype", (doctype) => {
      seen();
      if (DTD.test(doctype)) this.fail("The feed declares a DTD: entity declarations are not read");
    });
    p.on("text", (text) => {
      seen();
      this.text(text);
    });
    p.on("cdata", (text) => {
      seen();
      this.text(text);
    });
    p.on("opentag", (tag) => {
      seen();
      this.open(tag);
    });
    p.on("closetag", (tag) => {
      seen();
      this.close(tag);
    });
    p.on("error", (error) => this.fail(`The feed is not well-formed XML: ${error.message}`));
  }

  /** Reads text; false once a problem ended the feed. */
  write(text: string): boolean {
    try {
      for (let from = 0; from < text.length; ) {
        let to = Math.min(from + SLICE, text.length);
        // A surrogate pair is given whole.
        if (to < text.length && (text.charCodeAt(to - 1) & 0xfc00) === 0xd800) to--;
        this.parser.write(text.slice(from, to));
        from = to;
        if (this.parser.position - this.lastEvent > MAX_ELEMENT_BYTES)
          this.fail(`A text, tag or comment longer than ${MAX_ELEMENT_BYTES} bytes`, this.child?.name);
      }
      return true;
    } catch (error) {
      if (error === STOP) return false;
      throw error;
    }
  }

  /** Ends the feed: an element left open, or no root, is a problem. */
  end(): boolean {
    try {
      this.parser.close();
      return true;
    } catch (error) {
      if (error === STOP) return false;
      throw error;
    }
  }

  /** Adds a problem at the item being read (0 outside any), and ends the feed. */
  fail(message: string, element?: string): never {
    const item = this.itemDepth > 0 ? this.item : 0;
    this.structure.add(element === undefined ? { item, message } : { item, element, message });
    throw STOP;
  }

  private open(tag: SaxesTagNS): void {
    const depth = ++this.depth;
    if (depth > MAX_DEPTH) this.fail(`Elements nested deeper than ${MAX_DEPTH} levels`, this.child?.name);
    if (depth === 1) {
      const encoding = this.parser.xmlDecl.encoding;
      if (encoding !== undefined && !UTF8.test(encoding))
        this.fail(`The feed must be UTF-8: its XML declaration names ${encoding}`);
      if (tag.local === "rss") this.kind = "rss";
      else if (tag.local === "feed") this.kind = "atom";
      else this.fail(`Expected an RSS 2.0 or Atom feed, not <${tag.name}>`);
      return;
    }
    if (this.itemDepth === 0) {
      if (this.kind === "rss" && depth === 2 && tag.local === "channel") this.inChannel = true;
      const rss = this.kind === "rss" && depth === 3 && this.inChannel && tag.local === "item";
      const atom = this.kind === "atom" && depth === 2 && tag.local === "entry";
      if (rss || atom) {
        this.item++;
        this.itemDepth = depth;
        this.cells = {};
        this.itemBytes = 0;
      }
      return;
    }
    if (depth > this.itemDepth + 1) {
      this.endRun();
      return;
    }
    const name = cellName(tag);
    const href = name === "link" ? attribute(tag, "href") : undefined;
    let fixed: string | null | undefined;
    if (href !== undefined) {
      const rel = attribute(tag, "rel");
      fixed = rel === undefined || rel === "alternate" ? href.trim() : null;
    }
    this.child = { name, fixed, text: "", run: "", bytes: 0 };
  }

  private text(text: string): void {
    const child = this.child;
    if (child === undefined || child.fixed !== undefined) return;
    // Counted in UTF-16 units (never more than the bytes) while three bytes a unit stay under the
    // bound, so that the bytes are measured only for the rare long text.
    child.bytes += child.bytes * 3 <= MAX_ELEMENT_BYTES ? text.length : Buffer.byteLength(text);
    if (child.bytes > MAX_ELEMENT_BYTES)
      this.fail(`An element's text is longer than ${MAX_ELEMENT_BYTES} bytes`, child.name);
    child.run += text;
  }

  // An element boundary inside an item's element: the text before it is one run.
  private endRun(): void {
    const child = this.child;
    if (child === undefined) return;
    const run = child.run.trim();
    if (run !== "") child.text = child.text === "" ? run : `${child.text} ${run}`;
    child.run = "";
  }

  private close(tag: SaxesTagNS): void {
    const depth = this.depth--;
    if (this.itemDepth === 0) {
      if (depth === 2 && tag.local === "channel") this.inChannel = false;
      return;
    }
    if (depth > this.itemDepth + 1) this.endRun();
    else if (depth === this.itemDepth + 1) this.keep();
    else {
      this.rows.push({ position: this.item, cells: this.cells });
      this.itemDepth = 0;
    }
  }

  // The element just closed into the item's cells: a repeated one makes a list.
  private keep(): void {
    const child = this.child as Child;
    this.endRun();
    this.child = undefined;
    if (child.fixed === null) return;
    const value = child.fixed ?? own(child.text);
    // What the cell holds in memory: two bytes a UTF-16 unit, and a little for the entry.
    this.itemBytes += 32 + 2 * (child.name.length + value.length);
    if (this.itemBytes > MAX_ITEM_BYTES)
      this.fail(`An item's elements hold more than ${MAX_ITEM_BYTES} bytes`, child.name);
    const cells = this.cells;
    const name = child.name;
    const earlier = Object.hasOwn(cells, name) ? cells[name] : undefined;
    if (typeof earlier === "object") earlier.push(value);
    else {
      const cell = earlier === undefined ? value : [earlier, value];
      // Defined, not assigned: an element named `__proto__` is a cell like any other.
      if (name === "__proto__") Object.defineProperty(cells, name, { value: cell, enumerable: true, writable: true });
      else cells[name] = cell;
    }
  }

  /** The item being read, or 0 outside any: where a fault of the bytes is. */
  where(): number {
    return this.itemDepth > 0 ? this.item : 0;
  }
}

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
 */
export async function* decodeXmlItems(source: AsyncIterable<Buffer>, structure: Problems): AsyncGenerator<RowPart> {
  const feed = new FeedReader(structure);
  const bytes = new Utf8Chunks();
  // The first bytes, held until they tell the encoding (a UTF-8 byte order mark is three).
  let head: Buffer | undefined = Buffer.alloc(0);
  const take = (): RowPart => {
    const rows = feed.rows.splice(0);
    return { rows, count: rows.length };
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
    const piece = bytes.decode(chunk);
    if (!feed.write(piece.text)) return false;
    if (piece.valid) return true;
    structure.add({ item: feed.where(), message: "The feed is not valid UTF-8" });
    return false;
  };
  for await (const chunk of source) {
    const going = read(chunk, false);
    if (feed.rows.length > 0) yield take();
    if (!going) return;
  }
  if (head !== undefined && !read(Buffer.alloc(0), true)) return;
  if (!bytes.end()) {
    structure.add({ item: feed.where(), message: "The feed is not valid UTF-8: it ends inside a character" });
    return;
  }
  feed.end();
  if (feed.rows.length > 0) yield take();
}
