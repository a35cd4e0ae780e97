// A byte scanner for the common shape of an RSS item: `<item>`, then elements without attributes
// holding text, CDATA, the five predefined or numeric entities and elements of their own, then
// `</item>`. saxes read a Google feed at about 30 MB/s, a third of an import; this reads such
// items several times faster, straight from the bytes, and gives up (`undefined`) at anything
// else, which saxes then reads, so that every error, and where it is reported, stays saxes's.
// test/xml-scanner.test.ts proves the two agree.
import { isUtf8 } from "node:buffer";
import { entityText, matches, NAME, NAME_START, PLAIN, textOf, utf8 } from "./xml-bytes.ts";

export { codePoints } from "./xml-bytes.ts";

/** An item read whole: its element names and trimmed texts, alternating, and where it ends. */
export interface ScannedItem {
  readonly end: number;
  readonly cells: string[];
  /** Line ends (LF, CR LF or a lone CR) from where the scan began to `end`. */
  readonly lines: number;
  /** Where the last line of the scanned bytes begins; meaningless without `lines`. */
  readonly lastLine: number;
}

/** The bytes end inside the item: read it again with more of them. */
export const MORE = "more";

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const AMP = 0x26;
const SEMICOLON = 0x3b;
const COLON = 0x3a;
const BRACKET = 0x5d;
const LF = 0x0a;
const CR = 0x0d;

const ITEM_OPEN = Buffer.from("<item>");
const ITEM_CLOSE = Buffer.from("</item>");
const CDATA_OPEN = Buffer.from("<![CDATA[");
const CDATA_CLOSE = Buffer.from("]]>");

// Elements read inside an item's element (Google's shipping, tax, installment); deeper is saxes's.
const MAX_NESTED = 8;

// A run of an element's text added to those before it as saxes's reader joins them.
function joined(text: string, run: string): string {
  const trimmed = run.trim();
  if (trimmed === "") return text;
  return text === "" ? trimmed : `${text} ${trimmed}`;
}

/** The scanner with its names: `cellName` gives an element's cell name by prefix and local name, `undefined` to leave it to saxes. */
export class ItemScanner {
  private readonly cellName: (prefix: string, local: string) => string | undefined;
  // Names met so far as written, and their cell names: names repeat item after item.
  private readonly raw: string[] = [];
  private readonly named: string[] = [];
  // The index in `raw` of the name after the last one met: the next element's, most likely.
  private hint = 0;
  private lines = 0;
  private lastLine = 0;

  constructor(cellName: (prefix: string, local: string) => string | undefined) {
    this.cellName = cellName;
  }

  /** The item at `from` (after white space), or `MORE`, or `undefined` for saxes to read; `valid`: the bytes are known to be UTF-8. */
  scan(bytes: Buffer, from: number, valid = false): ScannedItem | typeof MORE | undefined {
    this.lines = 0;
    let at = this.space(bytes, from);
    if (at < 0) return MORE;
    const open = matches(bytes, at, ITEM_OPEN);
    if (open !== 1) return open === 0 ? undefined : MORE;
    at += ITEM_OPEN.length;
    const cells: string[] = [];
    for (;;) {
      at = this.space(bytes, at);
      if (at < 0 || at + 1 >= bytes.length) return MORE;
      if (bytes[at] !== LT) return undefined;
      if (bytes[at + 1] === SLASH) {
        const close = matches(bytes, at, ITEM_CLOSE);
        if (close !== 1) return close === 0 ? undefined : MORE;
        at += ITEM_CLOSE.length;
        break;
      }
      const start = at + 1;
      const end = this.nameEnd(bytes, start);
      if (end < 0) return end === -1 ? MORE : undefined;
      const name = this.nameOf(bytes, start, end);
      if (name === undefined) return undefined;
      if (bytes[end] === SLASH) {
        if (end + 1 >= bytes.length) return MORE;
        if (bytes[end + 1] !== GT) return undefined;
        cells.push(name, "");
        at = end + 2;
        continue;
      }
      if (bytes[end] !== GT) return undefined;
      cells.push(name);
      at = this.content(bytes, end + 1, start, end, cells);
      if (at < 0) return at === -1 ? MORE : undefined;
    }
    if (!valid && !isUtf8(bytes.subarray(from, at))) return undefined;
    return { end: at, cells, lines: this.lines, lastLine: this.lastLine };
  }

  // Past white space, counting line ends; -1 when the bytes end first (a CR may begin a CR LF).
  private space(bytes: Buffer, at: number): number {
    for (;;) {
      const c = bytes[at];
      if (c === 0x20 || c === 0x09) at++;
      else if (c === LF) this.line(++at);
      else if (c === CR) {
        if (at + 1 >= bytes.length) return -1;
        at += bytes[at + 1] === LF ? 2 : 1;
        this.line(at);
      } else return c === undefined ? -1 : at;
    }
  }

  private line(next: number): void {
    this.lines++;
    this.lastLine = next;
  }

  // The end of the name at `start`: -1 the bytes end first, -2 not a name the scanner takes.
  private nameEnd(bytes: Buffer, start: number): number {
    if (start >= bytes.length) return -1;
    if (NAME_START[bytes[start] as number] !== 1) return -2;
    let at = start + 1;
    let colon = false;
    for (;;) {
      if (at >= bytes.length) return -1;
      const c = bytes[at] as number;
      if (NAME[c] === 1) at++;
      else if (c === COLON && !colon && at + 1 < bytes.length && NAME_START[bytes[at + 1] as number] === 1) {
        colon = true;
        at += 2;
      } else return c === COLON ? -2 : at;
    }
  }

  private nameOf(bytes: Buffer, start: number, end: number): string | undefined {
    const raw = this.raw;
    const hinted = raw[this.hint];
    if (hinted !== undefined && hinted.length === end - start) {
      let same = true;
      for (let i = 0; same && i < hinted.length; i++) same = hinted.charCodeAt(i) === bytes[start + i];
      if (same) return this.named[this.hint++];
    }
    search: for (let k = 0; k < raw.length; k++) {
      const known = raw[k] as string;
      if (known.length !== end - start) continue;
      for (let i = 0; i < known.length; i++) if (known.charCodeAt(i) !== bytes[start + i]) continue search;
      this.hint = k + 1;
      return this.named[k];
    }
    const written = bytes.toString("latin1", start, end);
    const colon = written.indexOf(":");
    const named = colon === -1 ? written : this.cellName(written.slice(0, colon), written.slice(colon + 1));
    if (named !== undefined && raw.length < 256) {
      raw.push(written);
      this.named.push(named);
      this.hint = raw.length;
    }
    return named;
  }

  // The text of the element whose name is bytes[nameStart, nameEnd), from `at` to its end tag,
  // pushed to `cells`; the index past the end tag, or -1 (more bytes) or -2 (for saxes).
  private content(bytes: Buffer, at: number, nameStart: number, nameEnd: number, cells: string[]): number {
    const length = bytes.length;
    const size = nameEnd - nameStart;
    const table = PLAIN;
    let lines = 0;
    let lastLine = 0;
    let plain = at;
    for (; plain < length; plain++) {
      const kind = table[bytes[plain] as number];
      if (kind === 0) break;
      if (kind === 2) {
        lines++;
        lastLine = plain + 1;
      }
    }
    if (bytes[plain] === LT && bytes[plain + 1] === SLASH && plain + 2 + size < length) {
      let same = bytes[plain + 2 + size] === GT;
      for (let i = 0; same && i < size; i++) same = bytes[plain + 2 + i] === bytes[nameStart + i];
      if (same) {
        if (lines > 0) {
          this.lines += lines;
          this.lastLine = lastLine;
        }
        cells.push(plain === at ? "" : utf8(bytes, at, plain).trim());
        return plain + 3 + size;
      }
    }
    return this.mixed(bytes, at, nameStart, nameEnd, cells);
  }

  // `content` when the text holds more than plain characters: entities, CDATA, line ends, and
  // elements of its own, whose tags end runs of text that are joined trimmed, one space apart.
  private mixed(bytes: Buffer, at: number, nameStart: number, nameEnd: number, cells: string[]): number {
    // The open elements' names, [start, end) pairs, the element's own first.
    const open = [nameStart, nameEnd];
    let text = "";
    let run = "";
    let from = at;
    let crs = false;
    const length = bytes.length;
    for (;;) {
      if (at >= length) return -1;
      const c = bytes[at] as number;
      if (c === LT) {
        run += textOf(bytes, from, at, crs);
        crs = false;
        const next = bytes[at + 1];
        if (next === SLASH) {
          const start = open[open.length - 2] as number;
          const size = (open[open.length - 1] as number) - start;
          if (at + 2 + size >= length) return -1;
          for (let i = 0; i < size; i++) if (bytes[at + 2 + i] !== bytes[start + i]) return -2;
          if (bytes[at + 2 + size] !== GT) return -2;
          text = joined(text, run);
          run = "";
          at = from = at + 3 + size;
          open.length -= 2;
          if (open.length > 0) continue;
          cells.push(text);
          return at;
        }
        if (next !== undefined && NAME_START[next] === 1) {
          const end = this.nameEnd(bytes, at + 1);
          if (end < 0) return end;
          if (this.nameOf(bytes, at + 1, end) === undefined || open.length >= 2 * MAX_NESTED) return -2;
          text = joined(text, run);
          run = "";
          if (bytes[end] === SLASH) {
            if (end + 1 >= length) return -1;
            if (bytes[end + 1] !== GT) return -2;
            at = from = end + 2;
            continue;
          }
          if (bytes[end] !== GT) return -2;
          open.push(at + 1, end);
          at = from = end + 1;
          continue;
        }
        const cdata = matches(bytes, at, CDATA_OPEN);
        if (cdata !== 1) return cdata === 0 && next !== undefined ? -2 : -1;
        const inner = at + CDATA_OPEN.length;
        const close = bytes.indexOf(CDATA_CLOSE, inner);
        if (close === -1) return -1;
        const inside = this.chars(bytes, inner, close);
        if (inside < 0) return -2;
        run += textOf(bytes, inner, close, inside === 1);
        at = from = close + CDATA_CLOSE.length;
      } else if (c === AMP) {
        run += textOf(bytes, from, at, crs);
        crs = false;
        const semicolon = bytes.indexOf(SEMICOLON, at + 1);
        if (semicolon === -1) return at + 12 < length ? -2 : -1;
        const entity = semicolon - at > 11 ? undefined : entityText(bytes.toString("latin1", at + 1, semicolon));
        if (entity === undefined) return -2;
        run += entity;
        at = from = semicolon + 1;
      } else if (c < 0x20) {
        if (c === LF) this.line(at + 1);
        else if (c === CR) {
          if (at + 1 >= length) return -1;
          crs = true;
          if (bytes[at + 1] === LF) at++;
          this.line(at + 1);
        } else if (c !== 0x09) return -2;
        at++;
      } else if (c === GT) {
        // "]]>" may not appear in text: any "]>" is left to saxes.
        if (bytes[at - 1] === BRACKET) return -2;
        at++;
      } else if (c === 0xef) {
        // U+FFFE and U+FFFF are not XML characters.
        if (at + 2 >= length) return -1;
        if (bytes[at + 1] === 0xbf && (bytes[at + 2] === 0xbe || bytes[at + 2] === 0xbf)) return -2;
        at++;
      } else at++;
    }
  }

  // Checks a CDATA section's bytes, counting its line ends: 1 it holds a CR, 0 not, -1 a
  // character XML refuses.
  private chars(bytes: Buffer, from: number, to: number): number {
    let crs = 0;
    for (let at = from; at < to; at++) {
      const c = bytes[at] as number;
      if (c >= 0x20) {
        if (c === 0xef && bytes[at + 1] === 0xbf && ((bytes[at + 2] as number) & 0xfe) === 0xbe) return -1;
      } else if (c === LF) this.line(at + 1);
      else if (c === CR) {
        crs = 1;
        if (bytes[at + 1] === LF && at + 1 < to) at++;
        this.line(at + 1);
      } else if (c !== 0x09) return -1;
    }
    return crs;
  }
}
