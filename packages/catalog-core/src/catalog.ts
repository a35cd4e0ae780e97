// createCatalog: the catalog's rules (sites, validation, limits, id-or-sku lookup) over a
// CatalogStore.
import { decodeCsv } from "./csv.ts";
import { CatalogError, siteNotFound } from "./errors.ts";
import { type ByteSource, importStream, type StreamFormat } from "./import-stream.ts";
import { type Batch, type Locator, Problems, toBatch, toPointer, validateProducts } from "./parse.ts";
import type { Product } from "./product.ts";
import { type Site, siteKey } from "./site.ts";
import type { CatalogStore, KeyField, UpsertCounts } from "./store.ts";

/** Limits the catalog enforces on every import. */
export interface CatalogLimits {
  /** Most products (or CSV rows) one import may carry; more is `TOO_MANY_PRODUCTS`. Default 100,000. */
  readonly maxProductsPerRequest?: number;
  /** Most products (or CSV rows) one streamed import may carry; more is `TOO_MANY_PRODUCTS`. Default 10,000,000. */
  readonly maxProductsPerStream?: number;
}

/** How to build a catalog: its store, the sites that exist, and its limits. */
export interface CatalogOptions {
  readonly store: CatalogStore;
  readonly sites?: Iterable<Site>;
  readonly limits?: CatalogLimits;
}

/** Options of the three imports. */
export interface ImportOptions {
  /** Run every check and count, write nothing. */
  readonly dryRun?: boolean;
}

/** Options of a streamed import. */
export interface StreamImportOptions extends ImportOptions {
  /** `"csv"`: a CSV document as `importCsv` takes it; `"ndjson"`: one Product Object a line. */
  readonly format: StreamFormat;
}

/** Options of lookup and delete. */
export interface LookupOptions {
  /** Match only this field; by default the id, then the sku. */
  readonly by?: KeyField;
}

/** What an import did: `total` distinct ids, of which `created + updated + unchanged == total`. */
export interface ImportSummary extends UpsertCounts {
  readonly total: number;
  readonly dryRun: boolean;
}

/** The product catalog of a set of sites, over one store. */
export interface Catalog {
  /** The limits this catalog enforces, defaults applied, so that a server can publish them. */
  readonly limits: Readonly<Required<CatalogLimits>>;
  /** Makes a site exist (idempotent). Imports never create sites. */
  addSite(site: Site): void;
  /** Whether a site exists. */
  hasSite(site: Site): boolean;
  /** Imports or replaces a list of products; problems point into `{ products: [...] }`. */
  importProducts(site: Site, products: unknown, options?: ImportOptions): Promise<ImportSummary>;
  /** Imports or replaces one product; problems point into `{ product: {...} }`. */
  importProduct(site: Site, product: unknown, options?: ImportOptions): Promise<ImportSummary>;
  /** Imports or replaces the products of a CSV document; problems carry row and column. */
  importCsv(site: Site, csvContent: unknown, options?: ImportOptions): Promise<ImportSummary>;
  /**
   * Imports or replaces the products of a streamed body (a Node stream, a web ReadableStream, any
   * async iterable of bytes or text), decoded and staged in chunks as it arrives, in memory that
   * does not grow with it; all-or-nothing, problems carry the CSV row and column or the NDJSON
   * line and pointer.
   */
  importStream(site: Site, body: ByteSource, options: StreamImportOptions): Promise<ImportSummary>;
  /** The product with id `key`, else sku `key`; `PRODUCT_NOT_FOUND` when there is none. */
  getProduct(site: Site, key: string, options?: LookupOptions): Promise<Product>;
  /** Deletes the product `getProduct` would return, freeing its sku, and returns it. */
  deleteProduct(site: Site, key: string, options?: LookupOptions): Promise<Product>;
  /** Resolves when the store answers; rejects with `STORAGE_UNAVAILABLE` otherwise. */
  checkHealth(): Promise<void>;
  /** Closes the store. */
  close(): Promise<void>;
}

/** Default of `CatalogLimits.maxProductsPerRequest`. */
export const DEFAULT_MAX_PRODUCTS = 100_000;
/** Default of `CatalogLimits.maxProductsPerStream`. */
export const DEFAULT_MAX_STREAM_PRODUCTS = 10_000_000;

/** Creates a catalog over a store. */
export function createCatalog(options: CatalogOptions): Catalog {
  const { store } = options;
  const maxProducts = options.limits?.maxProductsPerRequest ?? DEFAULT_MAX_PRODUCTS;
  const maxStreamProducts = options.limits?.maxProductsPerStream ?? DEFAULT_MAX_STREAM_PRODUCTS;
  const sites = new Set<string>();
  for (const site of options.sites ?? []) sites.add(siteKey(site));

  function requireSite(site: Site): void {
    if (!sites.has(siteKey(site))) throw siteNotFound(site);
  }

  function checkCount(count: number): void {
    if (count > maxProducts) {
      throw new CatalogError(
        "TOO_MANY_PRODUCTS",
        `A request may carry at most ${maxProducts} products; this one has ${count}`,
        { limit: maxProducts, received: count },
      );
    }
  }

  async function apply(site: Site, records: readonly unknown[], locate: Locator, dryRun: boolean) {
    const batch: Batch = toBatch(validateProducts(records, locate), locate);
    const result = await store.upsert(site, batch.products, { dryRun });
    if (!result.applied) {
      const indexOf = new Map(batch.products.map((product, n) => [product.id, batch.indexes[n] as number]));
      const problems = new Problems();
      for (const { sku, id, heldBy } of result.conflicts) {
        problems.add({
          ...locate(indexOf.get(id) ?? 0, ["sku"]),
          message: `sku "${sku}" is held by product "${heldBy}"`,
          sku,
          heldBy,
        });
      }
      throw problems.toError("SKU_CONFLICT", "Conflicting skus");
    }
    return { total: batch.products.length, ...result.counts, dryRun };
  }

  async function lookup(site: Site, key: string, by: KeyField | undefined, remove: boolean): Promise<Product> {
    requireSite(site);
    const product = await (remove ? store.remove(site, key, by) : store.find(site, key, by));
    if (product === undefined) {
      const field = by ?? "id or sku";
      throw new CatalogError("PRODUCT_NOT_FOUND", `No product with ${field} "${key}" in this site`);
    }
    return product;
  }

  return {
    limits: { maxProductsPerRequest: maxProducts, maxProductsPerStream: maxStreamProducts },
    addSite: (site) => void sites.add(siteKey(site)),
    hasSite: (site) => sites.has(siteKey(site)),

    async importProducts(site, products, { dryRun = false } = {}) {
      requireSite(site);
      if (!Array.isArray(products)) {
        throw new CatalogError("VALIDATION_FAILED", "products must be an array", {
          problems: [{ pointer: "/products", message: "Must be an array of products" }],
        });
      }
      checkCount(products.length);
      return apply(site, products, (i, path) => ({ pointer: toPointer(["products", i, ...path]) }), dryRun);
    },

    async importProduct(site, product, { dryRun = false } = {}) {
      requireSite(site);
      return apply(site, [product], (_, path) => ({ pointer: toPointer(["product", ...path]) }), dryRun);
    },

    async importCsv(site, csvContent, { dryRun = false } = {}) {
      requireSite(site);
      if (typeof csvContent !== "string") {
        throw new CatalogError("VALIDATION_FAILED", "csvContent must be a string", {
          problems: [{ pointer: "/csvContent", message: "Must be a string holding the CSV text" }],
        });
      }
      const { records, total, locate } = decodeCsv(csvContent, maxProducts);
      checkCount(total);
      return apply(site, records, locate, dryRun);
    },

    async importStream(site, body, { format, dryRun = false }) {
      requireSite(site);
      return importStream(store, site, body, format, maxStreamProducts, dryRun);
    },

    getProduct: (site, key, { by } = {}) => lookup(site, key, by, false),
    deleteProduct: (site, key, { by } = {}) => lookup(site, key, by, true),
    checkHealth: () => store.ping(),
    close: () => store.close(),
  };
}
