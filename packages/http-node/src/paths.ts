// The paths of the HTTP API, for clients (the catalog-kit command) that must not spell them again:
// read from the route table, as routing and /openapi.json read them.
import { ROUTES } from "./routes.ts";

/** `POST` a list of products here: a JSON envelope, or a raw NDJSON body. */
export const BULK_PATH = ROUTES.bulk.path;

/** `POST` CSV here: a JSON envelope with `csvContent`, or a raw CSV body. */
export const CSV_PATH = ROUTES.csv.path;

/** `GET` a page of a site's products here; with `Accept: text/csv` or `application/x-ndjson`, the whole site (an export). */
export const LIST_PATH = ROUTES.single.path;

/** `GET` the whole site here as a CSV file, or NDJSON with `Accept: application/x-ndjson`: the export's own path. */
export const EXPORT_PATH = ROUTES.export.path;

const PRODUCT_PREFIX = ROUTES.product.path.slice(0, ROUTES.product.path.indexOf("{"));

/** The path of one product, by id or sku, percent-encoded as one path segment. */
export function productPath(idOrSku: string): string {
  return `${PRODUCT_PREFIX}${encodeURIComponent(idOrSku)}`;
}

/** `GET` the sites here, `POST` one to make it (the admin API). */
export const ADMIN_SITES_PATH = ROUTES.adminSites.path;

/** `GET` the tokens here, `POST` one to make it (the admin API). */
export const ADMIN_TOKENS_PATH = ROUTES.adminTokens.path;

/** The path of a site in the admin API (`DELETE` it there), each name percent-encoded as a segment. */
export function adminSitePath(site: { readonly siteId: string; readonly siteType: string }): string {
  return `${ADMIN_SITES_PATH}/${encodeURIComponent(site.siteType)}/${encodeURIComponent(site.siteId)}`;
}

/** The path of a token in the admin API (`DELETE` it there to revoke it). */
export function adminTokenPath(id: string): string {
  return `${ADMIN_TOKENS_PATH}/${encodeURIComponent(id)}`;
}
