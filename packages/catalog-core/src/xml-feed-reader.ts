// A feed's text read by saxes into rows, one an item, every problem added where it is found. saxes
// is the one of saxes, sax and htmlparser2 (xmlMode) that reports every well-formedness error
// (undefined entities too) and never reads a DTD; on a 200 MB Google feed it parsed 29 MB/s, sax
// 8, htmlparser2 31 (accepting mismatched tags). Between two items of an RSS channel the reader
// lets the item scanner (xml-scanner.ts) read the next ones from the bytes in saxes's place.
import { type SaxesOptions, SaxesParser, type SaxesTagNS } from "saxes";
import type { Problems } from "./parse.ts";
import type { ProfileRow } from "./profiles/profile.ts";
import { MAX_DEPTH, MAX_ELEMENT_BYTES, MAX_ITEM_BYTES } from "./xml-limits.ts";
import { codePoints, ItemScanner, MORE, type ScannedItem } from "./xml-scanner.ts";

const GOOGLE = "http://base.google.com/ns/1.0";
const ATOM = "http://www.w3.org/2005/Atom";

// Text is given to the parser this much at a time, so that what it holds unfinished (a text, a
// tag, a comment) is measured often: at most one slice past the bound.
const SLICE = 1 << 16;

// Items given up on in a row after which the scanner rests, and for how many items.
const MAX_MISSES = 16;
const RESTING_ITEMS = 256;

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

/** The feed read by saxes's events into rows, every problem added where it is found. */
export class FeedReader {
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
  // Text given to the parser, and its position when it closed the last item: where the two meet,
  // the parser holds nothing unfinished and the scanner may read the next items in its place.
  private written = 0;
  private closedAt = -1;
  // Namespace prefixes declared by the root, and by it and the RSS channel, which the scanner resolves.
  private rootScope: Record<string, string> = {};
  private scope: Record<string, string> = {};
  private scanner: ItemScanner | undefined;
  // Items the scanner gave up on in a row, and items left to saxes alone after too many: in a feed
  // whose every item holds what the scanner leaves (nested elements, attributes), a scan that
  // ends in saxes reading the item again only costs.
  private misses = 0;
  private resting = 0;

  private readonly scans: boolean;

  constructor(structure: Problems, scans: boolean) {
    this.structure = structure;
    this.scans = scans;
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
    this.written += text.length;
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
      this.rootScope = tag.ns;
      return;
    }
    if (this.itemDepth === 0) {
      if (this.kind === "rss" && depth === 2 && tag.local === "channel") this.openChannel(tag);
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
      this.closedAt = this.parser.position;
      if (this.resting > 0) this.resting--;
    }
  }

  // The scanner reads XML 1.0 only: saxes reads later versions by other rules (line ends, characters).
  private openChannel(tag: SaxesTagNS): void {
    this.inChannel = true;
    this.scope = { ...this.rootScope, ...tag.ns };
    const version = this.parser.xmlDecl.version;
    const scans = this.scans && (version === undefined || version === "1.0");
    this.scanner = scans ? new ItemScanner((prefix, local) => this.nameIn(prefix, local)) : undefined;
  }

  // The cell name of a prefixed element in the channel, as `cellName` gives it; `undefined` for
  // saxes to read (an unbound prefix is its error, `xml` and `xmlns` are its own).
  private nameIn(prefix: string, local: string): string | undefined {
    if (prefix === "xml" || prefix === "xmlns" || !Object.hasOwn(this.scope, prefix)) return undefined;
    const uri = this.scope[prefix];
    if (uri === "") return undefined;
    return uri === GOOGLE || uri === ATOM ? local : `${prefix}:${local}`;
  }

  /** Whether the parser stands between two items of an RSS channel, holding nothing: the scanner's turn. */
  scannable(): boolean {
    const between = this.closedAt === this.written && this.depth === 2 && this.inChannel;
    return this.scanner !== undefined && between && this.resting === 0;
  }

  /** The item at `from` read by the scanner into a row (false once a problem ended the feed), or `MORE` or `undefined` (saxes's turn); `valid` as the scanner takes it. */
  scan(bytes: Buffer, from: number, valid: boolean): number | typeof MORE | undefined | false {
    const item = (this.scanner as ItemScanner).scan(bytes, from, valid);
    if (item === undefined && ++this.misses === MAX_MISSES) {
      this.misses = 0;
      this.resting = RESTING_ITEMS;
    }
    if (item === MORE || item === undefined) return item;
    this.misses = 0;
    try {
      this.take(item);
    } catch (error) {
      if (error === STOP) return false;
      throw error;
    }
    // The parser counts lines and columns on as if it had read the item, for its later errors.
    const parser = this.parser;
    if (item.lines > 0) {
      parser.line += item.lines;
      parser.column = codePoints(bytes, item.lastLine, item.end);
    } else parser.column += codePoints(bytes, from, item.end);
    return item.end;
  }

  private take(item: ScannedItem): void {
    this.item++;
    this.itemDepth = this.depth + 1;
    this.cells = {};
    this.itemBytes = 0;
    const cells = item.cells;
    for (let k = 0; k < cells.length; k += 2) this.add(cells[k] as string, cells[k + 1] as string);
    this.rows.push({ position: this.item, cells: this.cells });
    this.itemDepth = 0;
  }

  // The element just closed into the item's cells: a repeated one makes a list.
  private keep(): void {
    const child = this.child as Child;
    this.endRun();
    this.child = undefined;
    if (child.fixed === null) return;
    this.add(child.name, child.fixed ?? own(child.text));
  }

  private add(name: string, value: string): void {
    // What the cell holds in memory: two bytes a UTF-16 unit, and a little for the entry.
    this.itemBytes += 32 + 2 * (name.length + value.length);
    if (this.itemBytes > MAX_ITEM_BYTES) this.fail(`An item's elements hold more than ${MAX_ITEM_BYTES} bytes`, name);
    const cells = this.cells;
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
