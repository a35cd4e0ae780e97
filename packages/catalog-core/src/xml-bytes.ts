// Bytes as the item scanner (xml-scanner.ts) reads them: which ones a name or a plain text may
// hold, and the texts of entities and of runs of text, as saxes gives them.

const LF = 0x0a;
const LINE_ENDS = /\r\n?/g;
const ENTITIES: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** ASCII bytes the scanner takes first in a name (saxes takes many more, and reads those names itself). */
export const NAME_START = new Uint8Array(256);
/** ASCII bytes the scanner takes after the first in a name. */
export const NAME = new Uint8Array(256);
/**
 * Bytes of text that need no second look (1, and 2 for LF, which ends a line): not markup, an
 * entity, a CR, a character XML refuses, the `>` of a `]]>`, nor the first byte of U+FFFE or U+FFFF.
 */
export const PLAIN = new Uint8Array(256).fill(1);
for (let c = 0; c < 0x20; c++) PLAIN[c] = c === 0x09 ? 1 : 0;
for (const c of [0x3c, 0x26, 0x3e, 0xef]) PLAIN[c] = 0;
PLAIN[LF] = 2;
for (let c = 0; c < 128; c++) {
  const letter = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
  NAME_START[c] = letter ? 1 : 0;
  NAME[c] = letter || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e ? 1 : 0;
}

/** Buffer's own decoder, without toString's checks of its arguments (a tenth of the scan). */
export const utf8: (bytes: Buffer, from: number, to: number) => string =
  typeof (Buffer.prototype as { utf8Slice?: unknown }).utf8Slice === "function"
    ? (bytes, from, to) => (bytes as Buffer & { utf8Slice(from: number, to: number): string }).utf8Slice(from, to)
    : (bytes, from, to) => bytes.toString("utf8", from, to);

// XML 1.0's Char production, which a character reference must name.
function isChar(code: number): boolean {
  return (
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}

/** Whether `bytes` hold `literal` at `at`: 1 yes, 0 no, -1 they end before telling. */
export function matches(bytes: Buffer, at: number, literal: Buffer): number {
  for (let k = 0; k < literal.length; k++) {
    if (at + k >= bytes.length) return -1;
    if (bytes[at + k] !== literal[k]) return 0;
  }
  return 1;
}

/** Characters (code points) of valid UTF-8 `bytes` from `from` to `to`: saxes counts columns so. */
export function codePoints(bytes: Buffer, from: number, to: number): number {
  let count = 0;
  for (let at = from; at < to; at++) if (((bytes[at] as number) & 0xc0) !== 0x80) count++;
  return count;
}

/** The text of `bytes` from `from` to `to` as saxes gives it: every CR LF or lone CR (`crs`: there are some) read as LF. */
export function textOf(bytes: Buffer, from: number, to: number, crs: boolean): string {
  if (from === to) return "";
  const text = utf8(bytes, from, to);
  return crs ? text.replace(LINE_ENDS, "\n") : text;
}

/** The text of the entity `&name;`: the five predefined ones and character references, `undefined` for any other. */
export function entityText(name: string): string | undefined {
  if (name.charCodeAt(0) !== 0x23) return Object.hasOwn(ENTITIES, name) ? ENTITIES[name] : undefined;
  const hex = name.charCodeAt(1) === 0x78;
  const digits = name.slice(hex ? 2 : 1);
  if (!(hex ? /^[0-9a-fA-F]{1,8}$/ : /^[0-9]{1,8}$/).test(digits)) return undefined;
  const code = Number.parseInt(digits, hex ? 16 : 10);
  return isChar(code) ? String.fromCodePoint(code) : undefined;
}
