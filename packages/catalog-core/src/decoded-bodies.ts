// The bodies a store decoded its products from, kept beside the products while they live. A store
// that checks a merge's bases compares each base with what it holds: with the body it read, it
// sends a digest of exactly that, without encoding the product again (an encoding and the hash of
// its text cost about three times the hash of a body read), and never calls a product stale for
// being stored in an older spelling of the same JSON.
import { copyProduct, decodeProduct, encodeProduct, PRODUCT_FIELDS, type Product } from "./product.ts";

// What a product was decoded from, and what it held then: every field, and the images one by one
// (an array changes in place).
interface Decoded {
  readonly body: string;
  readonly values: readonly unknown[];
  readonly images: readonly string[] | undefined;
}

// Whether `product` still holds what it was decoded to: then the body is its encoding.
function unchanged(product: Product, { values, images }: Decoded): boolean {
  for (let i = 0; i < PRODUCT_FIELDS.length; i++) {
    if (product[PRODUCT_FIELDS[i] as keyof Product] !== values[i]) return false;
  }
  const now = product.images;
  if (now === undefined || images === undefined) return true;
  if (now.length !== images.length) return false;
  for (let i = 0; i < now.length; i++) if (now[i] !== images[i]) return false;
  return true;
}

/**
 * Products a store decoded, each with the body it was decoded from: `body` answers
 * that body while the product still holds what it decoded to (a found product is its caller's
 * to change), else the product's `encodeProduct`.
 */
export class DecodedBodies {
  // Kept on the product itself, under a symbol of this instance, not enumerable: out of
  // JSON.stringify, spreads, copies and equality checks, and gone with the product. In a WeakMap,
  // each entry outlived the young generation's collections (their values are kept until the
  // next full one), and a merge of 300,000 products peaked 110 MB higher.
  private readonly key = Symbol("decoded body");

  /** The product `body` holds (an `encodeProduct` string), remembered with it. */
  decode(body: string): Product {
    const product = decodeProduct(body);
    const values = PRODUCT_FIELDS.map((field) => product[field]);
    const decoded: Decoded = { body, values, images: product.images?.slice() };
    Object.defineProperty(product, this.key, { value: decoded });
    return product;
  }

  /**
   * A copy of `product` (`copyProduct`), remembered with the body `product` was decoded from while
   * `product` still holds what it decoded to: for a store that keeps products it decoded and
   * answers copies of them.
   */
  copy(product: Product): Product {
    const copy = copyProduct(product);
    const decoded = (product as { [key: symbol]: Decoded | undefined })[this.key];
    if (decoded !== undefined && unchanged(product, decoded)) {
      // Its own snapshot: the copy's images are an array of its own, which the fields compare by identity.
      const values = PRODUCT_FIELDS.map((field) => copy[field]);
      Object.defineProperty(copy, this.key, { value: { body: decoded.body, values, images: decoded.images } });
    }
    return copy;
  }

  /** The body `product` was decoded from, while it still holds what it decoded to; else its encoding. */
  body(product: Product): string {
    const decoded = (product as { [key: symbol]: Decoded | undefined })[this.key];
    return decoded !== undefined && unchanged(product, decoded) ? decoded.body : encodeProduct(product);
  }
}
