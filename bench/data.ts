// Seeded, realistic bench data: products like a real shop's (45 % with non-ASCII text), and their
// JSON and CSV bodies.
import { PRODUCT_FIELDS, type Product } from "@catalog-kit/catalog-core";

/** A dataset for one size: the products, the bulk JSON body and the CSV text holding them. */
export interface Dataset {
  readonly products: readonly Product[];
  /** `{"products":[...]}` as a client would send it to the bulk endpoint. */
  readonly body: string;
  /** The same products as csvContent, header first. */
  readonly csvContent: string;
  /** Average UTF-8 size of one product's JSON. */
  readonly jsonBytesPerProduct: number;
}

/** A seeded generator of numbers in [0, 1) (mulberry32): the same catalog on every machine, and a failing run repeats. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const ADJECTIVES = [
  "Classic",
  "Slim",
  "Relaxed",
  "Organic",
  "Vintage",
  "Everyday",
  "Premium",
  "Soft",
  "Rugged",
  "Light",
];
const MATERIALS = ["Linen", "Cotton", "Wool", "Denim", "Leather", "Canvas", "Merino", "Bamboo", "Cashmere", "Suede"];
const NOUNS = ["Shirt", "Jacket", "Tote Bag", "Sneaker", "Scarf", "Hoodie", "Backpack", "Chino", "Beanie", "Overshirt"];
const FITS = ["Women's", "Men's", "Unisex", "Kids'"];
const COLORS = ["Navy", "Sand", "Olive", "Charcoal", "Rust", "Ivory", "Black", "Sky Blue", "Forest", "Burgundy"];
// Real catalogs mix scripts: Latin accents, typographic marks, CJK and the odd emoji.
const ACCENTED = ["Crème", "Façonné", "Größe M", "Señorita", "Naïve", "Blåbær", "Été", "Łódź", "Ça va", "Smørrebrød"];
const SYMBOLS = ["—", "™", "·", "½", "€", "日本製", "✓", "“Signature”", "🌿", "°"];
const PHRASES = [
  "Cut from a breathable weave, it keeps its shape wash after wash",
  'The "everyday" fit sits close without clinging',
  "Finished by hand, with reinforced seams at every stress point",
  "Pairs with denim, chinos, or tailored trousers",
  "Pre-washed for softness, so it's ready from the first wear",
  'Our customers call it "the one they reach for first"',
  "Made in small batches, in a family-run workshop",
  "Machine wash cold, tumble dry low, iron if needed",
];

function pick<T>(next: () => number, list: readonly T[]): T {
  return list[Math.floor(next() * list.length)] as T;
}

function cents(value: number): number {
  return Math.round(value * 100) / 100;
}

/** One realistic product: ~40-char title, ~200-char description with commas, quotes and newlines. */
function makeProduct(next: () => number, index: number, nonAscii: boolean): Product {
  const id = String(7_000_000_000_000 + index * 7919);
  const color = pick(next, COLORS);
  const noun = pick(next, NOUNS);
  const material = pick(next, MATERIALS);
  const handle = `${material}-${noun}-${color}-${index}`.toLowerCase().replaceAll(" ", "-");
  const title = `${pick(next, FITS)} ${pick(next, ADJECTIVES)} ${material} ${noun}, ${color}${nonAscii ? ` ${pick(next, ACCENTED)}` : ""}`;
  let description = `${pick(next, PHRASES)}, in ${color.toLowerCase()}. ${pick(next, PHRASES)}.\n${pick(next, PHRASES)}. Style ${index % 1000}, ${material.toLowerCase()}.`;
  if (nonAscii) description += ` ${pick(next, SYMBOLS)} ${pick(next, ACCENTED)}.`;
  const version = 1_690_000_000 + Math.floor(next() * 10_000_000);
  const imageCount = 1 + Math.floor(next() * 4);
  const images: string[] = [];
  for (let k = 1; k <= imageCount; k++) {
    images.push(`https://cdn.shop-assets.example.com/s/files/1/0612/3456/products/${handle}-${k}.jpg?v=${version}`);
  }
  const price = cents(5 + next() * 495);
  const product: Product = {
    id,
    sku: `SKU-${material.slice(0, 3).toUpperCase()}-${String(index).padStart(7, "0")}`,
    title,
    description,
    price,
    price_min: cents(price * (0.6 + next() * 0.4)),
    price_max: cents(price * (1 + next() * 0.5)),
    available: next() < 0.8,
    images,
    featured_image: images[0] as string,
    url: `https://shop.example.com/products/${handle}`,
  };
  return product;
}

/** `count` products, the same for the same seed; about 45 % hold a non-ASCII character. */
export function generateProducts(count: number, seed = 42, firstIndex = 0): Product[] {
  const next = seeded(seed + firstIndex);
  const products: Product[] = new Array(count);
  for (let i = 0; i < count; i++) products[i] = makeProduct(next, firstIndex + i, next() < 0.45);
  return products;
}

/** The bulk endpoint's JSON body for these products. */
export function toBulkBody(products: readonly Product[]): string {
  return JSON.stringify({ products });
}

function cell(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function cellsOf(product: Product): string[] {
  const images = product.images ?? [];
  return [
    product.id,
    product.sku,
    product.title,
    product.description ?? "",
    product.price === undefined ? "" : String(product.price),
    product.price_min === undefined ? "" : String(product.price_min),
    product.price_max === undefined ? "" : String(product.price_max),
    String(product.available),
    images.length === 1 ? (images[0] as string) : images.length === 0 ? "" : JSON.stringify(images),
    product.featured_image,
    product.url,
  ];
}

/** The CSV header line: the product fields in canonical order, which is the order of the spec's CSV header. */
export const CSV_HEADER = `${PRODUCT_FIELDS.join(",")}\n`;

/** One product's CSV record, LF-terminated, its cells in the order of `CSV_HEADER`. */
export function toCsvRecord(product: Product): string {
  return `${cellsOf(product).map(cell).join(",")}\n`;
}

/** csvContent for these products: the spec's header, one record per product, LF line ends. */
export function toCsvContent(products: readonly Product[]): string {
  let text = CSV_HEADER;
  for (const product of products) text += toCsvRecord(product);
  return text;
}

/** Products, bulk body and CSV for one size. */
export function makeDataset(count: number, seed = 42): Dataset {
  const products = generateProducts(count, seed);
  const body = toBulkBody(products);
  const envelope = Buffer.byteLength('{"products":[]}');
  // Commas between products count towards the body, not towards a product.
  const jsonBytesPerProduct = (Buffer.byteLength(body) - envelope - (count - 1)) / count;
  return { products, body, csvContent: toCsvContent(products), jsonBytesPerProduct };
}
