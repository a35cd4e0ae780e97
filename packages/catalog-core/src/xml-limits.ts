// The bounds of what an XML feed may hold, past which decoding ends with a problem.

/** Longest text one element may hold; longer is a problem and decoding ends. */
export const MAX_ELEMENT_BYTES = 8 * 1024 * 1024;

/** Most bytes one item's elements may hold together, so that a row stays bounded. */
export const MAX_ITEM_BYTES = 4 * MAX_ELEMENT_BYTES;

/** Deepest nesting of elements read; deeper is a problem and decoding ends. */
export const MAX_DEPTH = 64;
