// The product: its fields and their rules, written once in the schema, and what follows from them
// (types, the fast path of validation, the canonical JSON of a stored product).
import * as v from "valibot";
import { jsonString } from "./json-string.ts";

/** The field limits the schema enforces, published in the OpenAPI document. */
export const PRODUCT_LIMITS = {
  keyLength: 256,
  titleLength: 1_000,
  descriptionLength: 65_536,
  urlLength: 2_048,
  images: 100,
} as const;

// C0 controls, DEL and C1 controls: invisible in logs and URLs, never part of a real id or sku.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const text = () =>
  v.pipe(
    v.string("Must be a string"),
    v.check((s) => s.isWellFormed(), "Must be well-formed Unicode (no lone surrogates)"),
  );

const required = (max: number) =>
  v.pipe(text(), v.regex(/\S/, "Must not be empty or blank"), v.maxLength(max, `Must be at most ${max} characters`));

const key = () =>
  v.pipe(
    required(PRODUCT_LIMITS.keyLength),
    v.check((s) => !CONTROL.test(s), "Must not contain control characters"),
    // Blank values and control characters are reported by the checks above, once.
    v.check((s) => s.trim() === s || s.trim() === "" || CONTROL.test(s), "Must not start or end with white space"),
  );

const price = () =>
  v.pipe(v.number("Must be a number"), v.finite("Must be a finite number"), v.minValue(0, "Must be at least 0"));

const url = () => required(PRODUCT_LIMITS.urlLength);

/**
 * The schema of each product field, for the schemas of other shapes of a product. Key order here
 * is the canonical order of a stored product (see `encodeProduct`).
 */
export const ProductEntries = {
  id: key(),
  sku: key(),
  title: required(PRODUCT_LIMITS.titleLength),
  description: v.optional(
    v.pipe(
      text(),
      v.maxLength(PRODUCT_LIMITS.descriptionLength, `Must be at most ${PRODUCT_LIMITS.descriptionLength} characters`),
    ),
  ),
  price: v.optional(price()),
  price_min: v.optional(price()),
  price_max: v.optional(price()),
  available: v.boolean("Must be true or false"),
  // The length is checked before the entries, and a pipe stops at its next schema once there are
  // issues: a list of a million bad entries costs one issue, not a million (valibot's forward()
  // below is quadratic in the number of issues of a product).
  images: v.optional(
    v.pipe(
      v.array(v.unknown(), "Must be an array of strings"),
      v.maxLength(PRODUCT_LIMITS.images, `Must have at most ${PRODUCT_LIMITS.images} entries`),
      v.array(url(), "Must be an array of strings"),
    ),
  ),
  featured_image: url(),
  url: url(),
};

type Field = keyof typeof ProductEntries;

/** The names of a product's fields, in canonical order. */
export const PRODUCT_FIELDS = Object.keys(ProductEntries) as readonly Field[];

/** The fields every product must have. */
export const REQUIRED_FIELDS: readonly Field[] = PRODUCT_FIELDS.filter(
  (field) => ProductEntries[field].type !== "optional",
);

// The one rule across fields, for the schema and the fast path alike.
const pricesInOrder = (p: { readonly price_min?: unknown; readonly price_max?: unknown }) =>
  p.price_min === undefined || p.price_max === undefined || (p.price_min as number) <= (p.price_max as number);

const objectMessage: v.ErrorMessage<v.StrictObjectIssue> = (issue) => {
  if (issue.kind === "schema" && issue.type === "strict_object" && issue.path) {
    if (issue.expected === "never") return `Unknown field "${String(issue.path[0]?.key)}"`;
    if (issue.expected?.startsWith('"')) return "Required field is missing";
  }
  return "Must be an object";
};

/** A product as imported: strict types, unknown fields rejected, `price_min <= price_max`. */
export const ProductSchema = v.pipe(
  v.strictObject(ProductEntries, objectMessage),
  // A partial check runs even when other fields are invalid, so this problem is listed with theirs.
  v.forward(v.partialCheck([["price_min"], ["price_max"]], pricesInOrder, "Must not be greater than price_max"), [
    "price_min",
  ]),
);

/** A validated product, exactly as stored. */
export type Product = v.InferOutput<typeof ProductSchema>;

// The fast path restates the schema's rules for the common case of a valid, plain, JSON-shaped
// product: valibot builds a dataset per field and per check, which made validation the largest
// cost of a bulk import after JSON.parse. It only ever answers "valid, and here is what the schema
// would output" or "ask the schema", so errors always come from the schema. It reads each field by
// name: a loop over the field list (keyed loads and stores) measured a third slower. The tests in
// test/product-fast-path.test.ts prove it equal to the schema, over every field of PRODUCT_FIELDS,
// and a field added to the schema and not here fails to compile (`satisfies` below).
// Regular expressions cost more per call than these checks of a few characters: a string that
// starts with visible ASCII is not blank, and a key that also ends with it is trimmed.
const isVisibleAscii = (code: number) => code > 0x20 && code < 0x7f;
const isText = (s: unknown): s is string => typeof s === "string" && s.isWellFormed();
const isRequired = (s: unknown, max: number): s is string =>
  isText(s) && s.length <= max && (isVisibleAscii(s.charCodeAt(0)) || /\S/.test(s));
function isKey(s: unknown): s is string {
  if (!isRequired(s, PRODUCT_LIMITS.keyLength)) return false;
  const last = s.length - 1;
  if (!isVisibleAscii(s.charCodeAt(0)) || !isVisibleAscii(s.charCodeAt(last))) {
    return !CONTROL.test(s) && s.trim() === s;
  }
  for (let i = 1; i < last; i++) {
    const code = s.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return false;
  }
  return true;
}
/** Whether `s` may be a product's id or sku: what is not can name no product, in any store. */
export const isProductKey = (s: string): boolean => isKey(s);
const isUrl = (s: unknown): s is string => isRequired(s, PRODUCT_LIMITS.urlLength);
const isPrice = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n) && n >= 0;
const FIELD_SET: ReadonlySet<string> = new Set(PRODUCT_FIELDS);

/**
 * What `ProductSchema` outputs for `input` when `input` is a plain object that plainly passes
 * every rule; `undefined` when it is anything else, valid or not, and the schema must decide.
 */
export function checkProductFast(input: unknown): Product | undefined {
  if (typeof input !== "object" || input === null || Object.getPrototypeOf(input) !== Object.prototype)
    return undefined;
  const record = input as Record<string, unknown>;
  for (const key in record) if (!FIELD_SET.has(key)) return undefined;
  const { id, sku, title, description, price, price_min, price_max, available, images, featured_image, url } = record;
  if (!isKey(id) || !isKey(sku) || !isRequired(title, PRODUCT_LIMITS.titleLength)) return undefined;
  if (typeof available !== "boolean" || !isUrl(url)) return undefined;
  if (description !== undefined && (!isText(description) || description.length > PRODUCT_LIMITS.descriptionLength))
    return undefined;
  if (price !== undefined && !isPrice(price)) return undefined;
  if (price_min !== undefined && !isPrice(price_min)) return undefined;
  if (price_max !== undefined && !isPrice(price_max)) return undefined;
  if (!pricesInOrder({ price_min, price_max })) return undefined;
  let copy: string[] | undefined;
  if (images !== undefined) {
    if (!Array.isArray(images) || images.length > PRODUCT_LIMITS.images) return undefined;
    copy = new Array(images.length);
    for (let i = 0; i < images.length; i++) {
      const image: unknown = images[i];
      if (!isUrl(image)) return undefined;
      copy[i] = image;
    }
  }
  // The featured image is usually the first image, checked just above.
  const isFirstImage = copy !== undefined && copy.length > 0 && featured_image === copy[0];
  if (!isFirstImage && !isUrl(featured_image)) return undefined;
  // JSON.parse and CSV cells give equal strings as separate copies: a store keeping this product keeps one.
  const featured = isFirstImage ? (copy?.[0] as string) : (featured_image as string);
  // A new object, as the schema makes: what the caller does to its objects later cannot reach the store.
  const checked = {
    id,
    sku,
    title,
    description,
    price,
    price_min,
    price_max,
    available,
    images: copy,
    featured_image: featured,
    url,
  } satisfies Record<Field, unknown>;
  if (description !== undefined && price !== undefined && price_min !== undefined && price_max !== undefined && copy)
    return checked as Product;
  // The schema leaves absent fields out, and keeps a key given as undefined: leave such input to it.
  const product: Record<string, unknown> = {};
  for (const field of PRODUCT_FIELDS) {
    const value = checked[field];
    if (value !== undefined) product[field] = value;
    else if (field in record) return undefined;
  }
  return product as Product;
}

// copyProduct and sameProduct name each field: a loop over PRODUCT_FIELDS (keyed loads) measured a
// quarter slower for lookups and re-imports. test/product.test.ts checks both against
// encodeProduct over every field, and a field added to the schema fails to compile here.
const _named = {
  id: true,
  sku: true,
  title: true,
  description: true,
  price: true,
  price_min: true,
  price_max: true,
  available: true,
  images: true,
  featured_image: true,
  url: true,
} as const satisfies Record<keyof Product, true>;

/** A copy of a product that shares nothing mutable with it, fields in canonical order; for stores that hand out what they keep. */
export function copyProduct(s: Product): Product {
  const product: Product = { id: s.id, sku: s.sku, title: s.title } as Product;
  if (s.description !== undefined) product.description = s.description;
  if (s.price !== undefined) product.price = s.price;
  if (s.price_min !== undefined) product.price_min = s.price_min;
  if (s.price_max !== undefined) product.price_max = s.price_max;
  product.available = s.available;
  if (s.images !== undefined) product.images = s.images.slice();
  product.featured_image = s.featured_image;
  product.url = s.url;
  return product;
}

/**
 * Whether two products with the same id have equal `encodeProduct` strings (the contract's
 * "unchanged"), without encoding them. Numbers first: equal strings from two requests are two
 * objects compared character by character.
 */
export function sameProduct(a: Product, b: Product): boolean {
  if (
    a.price !== b.price ||
    a.price_min !== b.price_min ||
    a.price_max !== b.price_max ||
    a.available !== b.available ||
    a.sku !== b.sku ||
    a.title !== b.title ||
    a.url !== b.url ||
    a.featured_image !== b.featured_image ||
    a.description !== b.description
  )
    return false;
  if (a.images === undefined || b.images === undefined) return a.images === b.images;
  if (a.images.length !== b.images.length) return false;
  for (let i = 0; i < a.images.length; i++) if (a.images[i] !== b.images[i]) return false;
  return true;
}

/**
 * Orders ids by code point, which is the order of their UTF-8 bytes (and of Redis's ZRANGEBYLEX):
 * UTF-16 order, with surrogates (U+D800 to U+DFFF, the halves of code points past U+FFFF) moved
 * above U+E000 to U+FFFF. Negative when `a` comes first.
 */
export function compareIds(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800) x += x <= 0xdfff ? 0x2000 : -0x800;
    if (y >= 0xd800) y += y <= 0xdfff ? 0x2000 : -0x800;
    return x - y;
  }
  return a.length - b.length;
}

/**
 * The canonical JSON of a validated product: fields in schema order, absent optionals omitted.
 * Two products are equal exactly when their encodings are, which is how stores decide "unchanged".
 */
export function encodeProduct(product: Product): string {
  // Written field by field: JSON.stringify with a list of keys takes its slow path (measured about
  // 12 µs a product, against 2 here), and every store encodes each product it writes.
  const { description, price, price_min, price_max, images } = product;
  let json = `{"id":${jsonString(product.id)},"sku":${jsonString(product.sku)},"title":${jsonString(product.title)}`;
  if (description !== undefined) json += `,"description":${jsonString(description)}`;
  if (price !== undefined) json += `,"price":${price}`;
  if (price_min !== undefined) json += `,"price_min":${price_min}`;
  if (price_max !== undefined) json += `,"price_max":${price_max}`;
  json += `,"available":${product.available}`;
  if (images !== undefined) {
    json += ',"images":[';
    for (let i = 0; i < images.length; i++)
      json += i === 0 ? jsonString(images[i] as string) : `,${jsonString(images[i] as string)}`;
    json += "]";
  }
  return `${json},"featured_image":${jsonString(product.featured_image)},"url":${jsonString(product.url)}}`;
}

/** The product an `encodeProduct` string holds; for stores reading back their own writes. */
export function decodeProduct(json: string): Product {
  return JSON.parse(json) as Product;
}
