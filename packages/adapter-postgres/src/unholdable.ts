// Text PostgreSQL cannot hold as it is: no row holds it, so no statement needs to ask for it,
// and no write may be given it.
import { CatalogError } from "@catalog-kit/catalog-core";

/**
 * Whether `text` can be in no column of the store: a NUL, which `text` refuses (failing the whole
 * statement, and the other lookups batched in it), or a lone surrogate, which the driver writes
 * as U+FFFD, another string that a row may well hold.
 */
export function unholdable(text: string): boolean {
  return text.includes("\u0000") || !text.isWellFormed();
}

/** Whether `site` is one the store can hold no row of (see `unholdable`). */
export function unholdableSite(site: { readonly siteId: string; readonly siteType: string }): boolean {
  return unholdable(site.siteId) || unholdable(site.siteType);
}

/** Whether PostgreSQL refused a statement for the data it was given (SQLSTATE class 22), not for its state. */
export function isDataException(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && code.startsWith("22");
}

/** `VALIDATION_FAILED` for a write into a site the store cannot hold, which would land in another site's row or fail midway. */
export function unholdableSiteError(site: { readonly siteId: string; readonly siteType: string }): CatalogError {
  const pointer = unholdable(site.siteId) ? "/siteId" : "/siteType";
  const message = "PostgreSQL cannot hold a site name with NUL or a lone surrogate";
  return new CatalogError("VALIDATION_FAILED", message, { problems: [{ pointer, message }] });
}
