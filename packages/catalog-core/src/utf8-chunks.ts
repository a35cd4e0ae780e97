// UTF-8 bytes to text chunk by chunk, a character split between chunks kept whole, and the text
// before the first byte that is not UTF-8 given back, so that a decoder can read up to the fault
// and locate it.

/** The text of a chunk, and whether the chunk went bad after that text (the rest is unread). */
export interface Utf8Piece {
  readonly text: string;
  readonly valid: boolean;
}

const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lenient = new TextDecoder("utf-8", { ignoreBOM: true });

// Where the last whole character of `bytes` ends: a lead byte whose sequence the chunk cuts
// short is kept for the next chunk, whatever it is (a bad one fails with the bytes that follow).
function wholeEnd(bytes: Buffer): number {
  let at = bytes.length - 1;
  while (at >= 0 && bytes.length - at <= 3 && ((bytes[at] as number) & 0xc0) === 0x80) at--;
  if (at < 0) return bytes.length;
  const lead = bytes[at] as number;
  const size = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return bytes.length - at < size ? at : bytes.length;
}

// The text before the first fault: the lenient decoder writes U+FFFD for bad bytes and passes
// good ones through, so its first U+FFFD that the bytes do not spell (EF BF BD) is the fault.
function textBeforeFault(bytes: Buffer): string {
  const text = lenient.decode(bytes);
  let offset = 0;
  let from = 0;
  for (let at = text.indexOf("\ufffd"); at !== -1; at = text.indexOf("\ufffd", at + 1)) {
    offset += Buffer.byteLength(text.slice(from, at));
    if (bytes[offset] !== 0xef || bytes[offset + 1] !== 0xbf || bytes[offset + 2] !== 0xbd) return text.slice(0, at);
    offset += 3;
    from = at + 1;
  }
  return text;
}

/** Decodes UTF-8 arriving in chunks; a byte order mark is text like any other (the caller's to skip). */
export class Utf8Chunks {
  // The start of a character the last chunk cut short (three bytes at most).
  private carry: Buffer | undefined;

  /** Whether the last chunk ended inside a character. */
  get pending(): boolean {
    return this.carry !== undefined;
  }

  /** The text of the next chunk, up to its first fault if it has one. */
  decode(chunk: Buffer): Utf8Piece {
    const bytes = this.carry === undefined ? chunk : Buffer.concat([this.carry, chunk]);
    const end = wholeEnd(bytes);
    // Copied: the chunk's bytes may be written over once the next one is asked for.
    this.carry = end < bytes.length ? Buffer.from(bytes.subarray(end)) : undefined;
    const whole = bytes.subarray(0, end);
    try {
      return { text: strict.decode(whole), valid: true };
    } catch {
      this.carry = undefined;
      return { text: textBeforeFault(whole), valid: false };
    }
  }

  /** Whether the bytes ended on a whole character. */
  end(): boolean {
    const whole = this.carry === undefined;
    this.carry = undefined;
    return whole;
  }
}
