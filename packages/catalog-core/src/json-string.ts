// A string as JSON text, for answers and log lines written on every request.

// What JSON.stringify escapes: quotes, backslashes, control characters and lone surrogates (any
// surrogate here: a string that has one is left to JSON.stringify, which tells pairs apart).
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * `JSON.stringify(text)`, character for character, without its cost for a string that needs no
 * escape: quoted as it is. A string beyond Latin-1 sends JSON.stringify down its slow path.
 */
export function jsonString(text: string): string {
  return ESCAPED.test(text) ? JSON.stringify(text) : `"${text}"`;
}
