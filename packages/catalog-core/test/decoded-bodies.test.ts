// A store's decoded bodies: a product answers the body it was read from until anything in it
// changes, and then its own encoding.
import { DecodedBodies, encodeProduct, type Product } from "@catalog-kit/catalog-core";
import { productArb } from "@catalog-kit/catalog-core/testing";
import { fc, test } from "@fast-check/vitest";
import { expect } from "vitest";

// A change a caller may make to a found product, in place.
const changeArb = fc.oneof(
  fc.constant((_: Product) => {}),
  fc.constant((p: Product) => {
    (p as { title: string }).title += "!";
  }),
  fc.constant((p: Product) => {
    (p as { price?: number }).price = (p.price ?? 0) + 1;
  }),
  fc.constant((p: Product) => {
    delete (p as { description?: string }).description;
  }),
  fc.constant((p: Product) => {
    (p.images as string[] | undefined)?.push("https://img.example/new.png");
  }),
  fc.constant((p: Product) => {
    if (p.images && p.images.length > 0) (p.images as string[])[0] = "https://img.example/other.png";
  }),
);

test.prop([productArb(), changeArb])(
  "answers the product's encoding, however it was changed since",
  (stored, change) => {
    const bodies = new DecodedBodies();
    const found = bodies.decode(encodeProduct(stored));
    change(found);
    expect(bodies.body(found)).toBe(encodeProduct(found));
  },
);

test("answers the body as read while the product is unchanged, in whatever spelling it was stored", () => {
  const bodies = new DecodedBodies();
  const older =
    '{"sku":"s","id":"a","title":"T","available":true,"featured_image":"https://i.example/f.png","url":"https://s.example/a"}';
  const found = bodies.decode(older);
  expect(bodies.body(found)).toBe(older);
  (found as { title: string }).title = "U";
  expect(bodies.body(found)).toBe(encodeProduct(found));
  expect(new DecodedBodies().body(bodies.decode(older))).toBe(encodeProduct(found).replace('"U"', '"T"'));
});

test("keeps the body out of sight: JSON, keys, copies and equality see the product alone", () => {
  const bodies = new DecodedBodies();
  const older =
    '{"sku":"s","id":"a","title":"T","available":true,"featured_image":"https://i.example/f.png","url":"https://s.example/a"}';
  const found = bodies.decode(older);
  const plain = JSON.parse(older) as Product;
  expect(found).toStrictEqual(plain);
  expect(Object.keys(found)).toEqual(Object.keys(plain));
  expect(JSON.stringify(found)).toBe(older);
  // A copy is another product: encoded, as is a product another store's bodies decoded.
  expect(bodies.body({ ...found })).toBe(encodeProduct(plain));
  expect(new DecodedBodies().body(found)).toBe(encodeProduct(plain));
});

test.prop([productArb(), changeArb, changeArb])(
  "copy: a copy of a kept product answers the body read until either changes, and they share nothing",
  (stored, changeKept, changeCopy) => {
    const bodies = new DecodedBodies();
    const older = JSON.stringify({ ...stored, id: stored.id }, [
      "sku",
      ...Object.keys(stored).filter((k) => k !== "sku"),
    ]);
    const kept = bodies.decode(older);
    const copy = bodies.copy(kept);
    expect(copy).toStrictEqual(kept);
    expect(bodies.body(copy), "copy as read").toBe(older);
    changeCopy(copy);
    expect(bodies.body(copy)).toBe(encodeProduct(copy) === encodeProduct(kept) ? older : encodeProduct(copy));
    expect(bodies.body(kept), "kept as read").toBe(older);
    changeKept(kept);
    expect(bodies.body(bodies.copy(kept))).toBe(bodies.body(kept));
  },
);
