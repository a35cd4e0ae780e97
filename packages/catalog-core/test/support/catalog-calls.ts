// What the catalog's end-to-end tests share: a product with the required fields, and the
// CatalogError a call rejects with.
import { CatalogError, type Product } from "@catalog-kit/catalog-core";

/** A valid product with every required field, and `extra` over them. */
export const product = (id: string, sku: string, extra: Partial<Product> = {}): Product => ({
  id,
  sku,
  title: `Product ${id}`,
  available: true,
  featured_image: "https://img.example/f.png",
  url: `https://shop.example/${id}`,
  ...extra,
});

/** The `CatalogError` `promise` rejects with; fails the test when it resolves or rejects otherwise. */
export async function failure(promise: Promise<unknown>): Promise<CatalogError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof CatalogError)) throw new Error(`expected a CatalogError, got ${String(error)}`);
  return error;
}
