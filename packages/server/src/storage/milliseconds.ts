// A duration option of a bundled storage adapter, worded alike in each: a whole number of
// milliseconds up to the largest delay a Node.js timer takes.
import * as v from "valibot";

/** A whole number of milliseconds from `min` to 2147483647. */
export const milliseconds = (min: number) =>
  v.pipe(
    v.number("Must be a number"),
    v.integer("Must be an integer"),
    v.minValue(min, `Must be at least ${min}`),
    v.maxValue(2 ** 31 - 1, "Must be at most 2147483647"),
  );
