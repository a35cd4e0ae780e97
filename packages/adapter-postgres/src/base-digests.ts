// A merge's bases as digests: a base is staged as the SHA-256 of the body it stands for, and the
// commit compares it with the SHA-256 of the stored body, so that each staged row carries 64
// characters in place of a second body. The body a product was decoded from is kept while the
// product lives, with the values it decoded to: a base still holding them is hashed as that body,
// without being encoded again (an encoding and the hash of its unflattened text cost about three
// times the hash of a body). A base this store did not return, or one changed since (`find`'s
// product is the caller's to change), is encoded. SHA-256 rather than PostgreSQL's `md5`: no way
// is known to craft two bodies with one digest, and servers in FIPS mode refuse MD5.
import { hash } from "node:crypto";
import { decodeProduct, encodeProduct, PRODUCT_FIELDS, type Product } from "@catalog-kit/catalog-core";

/**
 * The SQL digest of the text `column`, as `BaseDigests.of` computes it. `convert_to` gives the
 * text's bytes in UTF-8, which is the database's encoding (the store refuses any other), so no
 * conversion happens: the bytes hashed are those the products table holds.
 */
export const digestSql = (column: string): string => `encode(sha256(convert_to(${column}, 'UTF8')), 'hex')`;

/**
 * The digest a `null` base is staged as: no digest is empty, so it never equals a stored body's,
 * and the commit compares it with the empty string where no product has the id.
 */
export const NO_BASE = "";

// What a product was decoded from, and what it held then: every field `encodeProduct` writes, and
// the images one by one (an array changes in place).
interface Decoded {
  readonly body: string;
  readonly values: readonly unknown[];
  readonly images: readonly string[] | undefined;
}

const FIELDS = PRODUCT_FIELDS;

// Whether `product` still holds what it was decoded to: then its encoding is the body's.
function unchanged(product: Product, decoded: Decoded): boolean {
  const { values, images } = decoded;
  for (let i = 0; i < FIELDS.length; i++) {
    if (product[FIELDS[i] as keyof Product] !== values[i]) return false;
  }
  // The same array as then (a field above): its items may have changed since.
  const now = product.images;
  if (now === undefined || images === undefined) return true;
  if (now.length !== images.length) return false;
  for (let i = 0; i < now.length; i++) if (now[i] !== images[i]) return false;
  return true;
}

/** The digests of bases, from the bodies of products `find` returned where it can. */
export class BaseDigests {
  private readonly decoded = new WeakMap<Product, Decoded>();

  /** Decodes `body`, keeping it with the product answered. */
  decode(body: string): Product {
    const product = decodeProduct(body);
    const values = FIELDS.map((field) => product[field]);
    this.decoded.set(product, { body, values, images: product.images?.slice() });
    return product;
  }

  /** Each base's digest (`NO_BASE` for `null`), as COPY's text takes it. */
  of(bases: readonly (Product | null)[]): string[] {
    return bases.map((base) => {
      if (base === null) return NO_BASE;
      const decoded = this.decoded.get(base);
      return hash("sha256", decoded !== undefined && unchanged(base, decoded) ? decoded.body : encodeProduct(base));
    });
  }
}
