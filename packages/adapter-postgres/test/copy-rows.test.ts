// COPY's text format carries every product's fields as they are: read back the way the server
// reads them (tabs split columns, backslash escapes), each row is the id, the sku and the
// canonical JSON of its product (then its base's digest, when bases are given).
import { encodeProduct } from "@catalog-kit/catalog-core";
import { productArb } from "@catalog-kit/catalog-core/testing";
import { fc, test } from "@fast-check/vitest";
import { expect } from "vitest";
import { copyRows } from "../src/copy-rows.ts";

const UNESCAPE: Record<string, string> = { "\\\\": "\\", "\\t": "\t", "\\n": "\n", "\\r": "\r" };

function readRows(text: string): string[][] {
  return text
    .split("\n")
    .slice(0, -1)
    .map((line) => line.split("\t").map((field) => field.replace(/\\[\\tnr]/g, (e) => UNESCAPE[e] as string)));
}

test.prop([fc.array(productArb(), { maxLength: 80 }), fc.nat(1000)])(
  "every row reads back as its product",
  (items, first) => {
    const rows = readRows(
      copyRows(
        items,
        items.map((_, i) => i * 3),
        first,
      ).toString("utf8"),
    );
    expect(rows).toEqual(items.map((p, i) => [String(first + i), String(i * 3), p.id, p.sku, encodeProduct(p)]));
  },
);

// A base is staged as its digest: hex, or empty for none.
const digestArb = fc.stringMatching(/^(?:[0-9a-f]{64})?$/);

test.prop([fc.array(fc.tuple(productArb(), digestArb), { maxLength: 80 })])(
  "with bases, every row ends with its base's digest",
  (items) => {
    const rows = readRows(
      copyRows(
        items.map(([p]) => p),
        items.map((_, i) => i),
        0,
        items.map(([, base]) => base),
      ).toString("utf8"),
    );
    expect(rows.map((row) => row[5])).toEqual(items.map(([, base]) => base));
  },
);
