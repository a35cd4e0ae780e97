// Products shaped like a real catalog's (and the bench's): every field present, the featured image
// being the first image, descriptions with commas, quotes and line breaks, text in several scripts.
// The fast paths must take these themselves, or an import measures the slow path.
import type { Product } from "../../src/product.ts";

const TITLES = [
  "Classic Linen Shirt, Navy",
  "Slim Wool Scarf, Sand Crème",
  "Organic Tote Bag 日本製",
  "Soft Hoodie 🌿",
];
const PHRASES = [
  'The "everyday" fit sits close without clinging',
  "Finished by hand, with reinforced seams at every stress point",
  "Pre-washed for softness, so it's ready from the first wear",
  "Größe M · Naïve ½ — Blåbær™",
];

/** `count` valid products, the same on every call. */
export function realisticProducts(count: number): Product[] {
  const products: Product[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const handle = `product-${i}`;
    const images: string[] = [];
    for (let k = 1; k <= 1 + (i % 4); k++) images.push(`https://cdn.example.com/products/${handle}-${k}.jpg?v=${i}`);
    const price = 5 + ((i * 37) % 49_500) / 100;
    products[i] = {
      id: String(7_000_000_000_000 + i * 7919),
      sku: `SKU-${String(i).padStart(7, "0")}`,
      title: `${TITLES[i % TITLES.length]} ${i}`,
      description: `${PHRASES[i % PHRASES.length]}.\n${PHRASES[(i + 1) % PHRASES.length]}, style ${i}.`,
      price,
      price_min: Math.round(price * 70) / 100,
      price_max: Math.round(price * 130) / 100,
      available: i % 5 !== 0,
      images,
      featured_image: images[0] as string,
      url: `https://shop.example.com/products/${handle}`,
    };
  }
  return products;
}
