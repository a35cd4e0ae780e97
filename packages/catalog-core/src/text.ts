// The bytes of an import: text and bytes from any source as UTF-8 buffers, with lone surrogates
// of text kept (as WTF-8) so that the decoders can locate them like any other bad value.
import { isUtf8 } from "node:buffer";

/** A streamed body: bytes (UTF-8) or text, in chunks of any size; a Node stream is one, an array too. */
export type ByteSource = AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;

/** A surrogate without its other half: a UTF-16 unit no UTF-8 can hold. */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const REPLACEMENT = Buffer.from("\ufffd", "utf8");

// The UTF-8 of `text`, written over `into` (three bytes a UTF-16 unit at most). Text that is not
// well-formed cannot be UTF-8; its lone surrogates are written as the three bytes UTF-8 would
// give them (WTF-8), which no UTF-8 decoder accepts and `decodeText` reads back, in a new buffer.
// Buffer.write writes a lone surrogate as U+FFFD, so text is scanned for one only when its bytes
// hold that character: that second pass over two-byte text measured 60 ms for the 76 MB CSV of
// 100,000 products, a third of Buffer.from's own time. Text of one byte a character is ASCII.
function encode(text: string, into: Buffer): Buffer {
  const bytes = into.subarray(0, into.write(text, 0, "utf8"));
  if (bytes.length === text.length || bytes.indexOf(REPLACEMENT) === -1 || text.isWellFormed()) return bytes;
  const parts: Buffer[] = [];
  let from = 0;
  for (const match of text.matchAll(LONE_SURROGATE)) {
    const c = match[0].charCodeAt(0);
    parts.push(Buffer.from(text.slice(from, match.index), "utf8"));
    parts.push(Buffer.from([0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]));
    from = match.index + 1;
  }
  parts.push(Buffer.from(text.slice(from), "utf8"));
  return Buffer.concat(parts);
}

// Chunks are read this much at a time, so that a document held whole (a csvContent) is decoded
// piece by piece like a streamed one, in memory that does not grow with it.
const PIECE = 1 << 18;

// A source's chunks, none longer than PIECE.
async function* pieces(source: ByteSource): AsyncGenerator<Uint8Array | string> {
  for await (const chunk of source) {
    if (chunk.length <= PIECE) yield chunk;
    else if (typeof chunk === "string")
      for (let at = 0; at < chunk.length; at += PIECE) yield chunk.slice(at, at + PIECE);
    // Views of the caller's bytes, never copies.
    else for (let at = 0; at < chunk.length; at += PIECE) yield chunk.subarray(at, at + PIECE);
  }
}

/**
 * Bytes of a source of bytes or text; a surrogate pair split between text chunks is kept whole.
 * Text is written over one buffer, chunk after chunk: a consumer copies the bytes it keeps past
 * asking for the next chunk. A new buffer for each chunk (Buffer.from) measured twice the time of
 * writing over one, the difference being fresh memory to map, for a document held whole.
 */
export async function* toBuffers(source: ByteSource): AsyncGenerator<Buffer> {
  let high = "";
  let scratch = Buffer.alloc(0);
  const encodeText = (text: string) => {
    if (scratch.length < text.length * 3) scratch = Buffer.allocUnsafeSlow(text.length * 3);
    return encode(text, scratch);
  };
  for await (const chunk of pieces(source)) {
    if (typeof chunk !== "string") {
      yield Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      continue;
    }
    let text = high + chunk;
    high = "";
    const last = text.charCodeAt(text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      high = text.slice(-1);
      text = text.slice(0, -1);
    }
    yield encodeText(text);
  }
  if (high !== "") yield encodeText(high);
}

/**
 * The text of bytes that are UTF-8 but for lone surrogates written as WTF-8 (see `toBuffers`),
 * which come back as lone surrogates for the product schema to refuse where they are;
 * `undefined` when the bytes are not UTF-8 otherwise.
 */
export function decodeText(bytes: Buffer): string | undefined {
  if (isUtf8(bytes)) return bytes.toString("utf8");
  let text = "";
  let from = 0;
  let pairable = false;
  for (let at = bytes.indexOf(0xed); at !== -1; at = bytes.indexOf(0xed, at + 1)) {
    const b1 = bytes[at + 1] as number;
    const b2 = bytes[at + 2] as number;
    if (b1 < 0xa0 || b1 > 0xbf || b2 < 0x80 || b2 > 0xbf) continue;
    const part = bytes.subarray(from, at);
    if (!isUtf8(part)) return undefined;
    const c = 0xd000 | ((b1 & 0x3f) << 6) | (b2 & 0x3f);
    // Two halves of one code point written apart (CESU-8) are not UTF-8 either.
    if (pairable && part.length === 0 && c >= 0xdc00) return undefined;
    pairable = c < 0xdc00;
    text += part.toString("utf8") + String.fromCharCode(c);
    from = at + 3;
    at += 2;
  }
  const rest = bytes.subarray(from);
  return from > 0 && isUtf8(rest) ? text + rest.toString("utf8") : undefined;
}

/** Text as a problem quotes it: at most 40 characters, an ellipsis after a longer one. */
export function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
