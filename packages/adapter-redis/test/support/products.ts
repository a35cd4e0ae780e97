import type { Product } from "@catalog-kit/catalog-core";

/** A minimal valid product. */
export function product(id: string, sku: string, extra: Partial<Product> = {}): Product {
  return {
    id,
    sku,
    title: `Product ${id}`,
    available: true,
    featured_image: `https://img.example/${id}.png`,
    url: `https://shop.example/p/${id}`,
    ...extra,
  };
}

const WORDS = ["Linen", "Shirt", "Navy", "Jacket", "Wool", "Tote", "Olive", "Canvas", "Merino", "Scarf", "Denim"];
const ACCENTED = ["Crème", "Größe M", "Façonné", "日本製", "Señorita", "Blåbær", "Été —"];
const PHRASE =
  'Cut from a breathable weave, it keeps its shape wash after wash; the "everyday" fit sits close without clinging.';

/**
 * A realistic product of about 850 bytes of JSON (title, a few sentences of description, prices,
 * three images); 45 % of them hold non-ASCII text. `version` changes the text fields.
 */
export function realisticProduct(index: number, version = 0): Product {
  const word = (k: number) => WORDS[(index * 7 + k * 3 + version) % WORDS.length] as string;
  const accent = index % 20 < 9 ? ` ${ACCENTED[index % ACCENTED.length]}` : "";
  const handle = `item-${index}-${word(1).toLowerCase()}`;
  const images = [1, 2, 3].map(
    (k) =>
      `https://cdn.shop-assets.example.com/s/files/1/0612/3456/products/${handle}-${k}.jpg?v=${1_690_000_000 + version}`,
  );
  return {
    id: `${7_000_000_000_000 + index * 7919}`,
    sku: `SKU-${String(index).padStart(8, "0")}`,
    title: `${word(0)} ${word(1)} ${word(2)}${accent}, style ${index % 1000} v${version}`,
    description: `${PHRASE} ${word(4)} ${word(5)}${accent}, pairs with denim or chinos.\nMachine wash cold, tumble dry low. Edition ${version}.`,
    price: 19.99 + (index % 400),
    price_min: 9.99,
    price_max: 499.5,
    available: index % 5 !== 0,
    images,
    featured_image: images[0] as string,
    url: `https://shop.example.com/products/${handle}`,
  };
}
