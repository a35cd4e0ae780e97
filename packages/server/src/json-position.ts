// Where a JSON text stops being valid, as a line and a column: what a person fixing a
// configuration file needs. JSON.parse's message cannot be relied on for it: Node 20 gives an
// offset for some errors, nothing for an unexpected token or a premature end, and Node 22 and 24
// word them again; so the text is scanned here, by JSON's grammar, up to its first error.

/** A place in a text: 1-based line and column (in UTF-16 code units, as editors count). */
export interface TextPlace {
  readonly line: number;
  readonly column: number;
}

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING_CHUNK = /[^"\\\u0000-\u001f]*/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

// Thrown at the first offset where the text cannot go on as JSON.
class Stop {
  readonly at: number;
  constructor(at: number) {
    this.at = at;
  }
}

/** The offset of the first character at which `text` is not valid JSON (its length when it ends too soon), or undefined when it is valid. */
export function jsonErrorOffset(text: string): number | undefined {
  let i = 0;
  const space = () => {
    while (i < text.length && WHITESPACE.has(text[i] as string)) i++;
  };
  const expect = (char: string) => {
    if (text[i] !== char) throw new Stop(i);
    i++;
  };
  const sticky = (pattern: RegExp) => {
    pattern.lastIndex = i;
    const match = pattern.exec(text);
    if (match === null || match[0] === "") return false;
    i += match[0].length;
    return true;
  };
  const string = () => {
    expect('"');
    for (;;) {
      sticky(STRING_CHUNK);
      if (text[i] === '"') break;
      if (text[i] !== "\\") throw new Stop(i);
      // As JSON.parse counts it: a bad escape is wrong at its letter, not at its backslash.
      if (!sticky(ESCAPE)) throw new Stop(i + 1);
    }
    i++;
  };
  const member = () => {
    string();
    space();
    expect(":");
    value();
  };
  // An object's members or an array's values, `i` at its opening bracket.
  const items = (close: string, item: () => void) => {
    i++;
    space();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      space();
      item();
      space();
      if (text[i] === close) break;
      expect(",");
    }
    i++;
  };
  const value = (): void => {
    space();
    const c = text[i];
    if (c === "{") items("}", member);
    else if (c === "[") items("]", value);
    else if (c === '"') string();
    else {
      const word = ["true", "false", "null"].find((literal) => text.startsWith(literal, i));
      if (word !== undefined) i += word.length;
      else if (!sticky(NUMBER)) throw new Stop(i);
    }
  };
  try {
    value();
    space();
    return i === text.length ? undefined : i;
  } catch (error) {
    if (error instanceof Stop) return Math.min(error.at, text.length);
    throw error;
  }
}

/** The line and column of `offset` in `text`; a line ends at `\n` (a `\r` before it is the line's). */
export function placeOf(text: string, offset: number): TextPlace {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, column: offset - lineStart + 1 };
}
