// The products a store's `find` returned, each with the JSON Redis held for it, so that a merge's
// bases reach Redis as a digest of exactly what was read: no product encoded again, and 40
// bytes staged per base instead of its JSON. A merge of a million products spent about 5 KB of
// allocation per product encoding its bases and handing them to the client, and Redis about
// 4 µs of CPU per product storing them.
import { hash } from "node:crypto";
import { decodeProduct, encodeProduct, type Product } from "@catalog-kit/catalog-core";

/**
 * Products one store's `find` decoded, with their JSON. A product is a value: the catalog merges
 * onto a copy of what it found, never into it, so the JSON still describes the product when it
 * comes back as a base.
 */
export class FoundProducts {
  // Weak: a found product lives as long as its caller keeps it, never longer for being found.
  private readonly jsons = new WeakMap<Product, string>();

  /** The product `json` holds, remembered with it. */
  decode(json: string): Product {
    const product = decodeProduct(json);
    this.jsons.set(product, json);
    return product;
  }

  /**
   * A base as the scripts take it (see `stale` in `prelude.ts`): the SHA-1, in hex, of its
   * canonical JSON (as found, or encoded when this store did not return it); `""` for a `null`
   * base, which no digest equals.
   */
  digest(base: Product | null): string {
    if (base === null) return "";
    return hash("sha1", this.jsons.get(base) ?? encodeProduct(base));
  }
}
