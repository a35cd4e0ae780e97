// The options and answers of the catalog's operations, and its limits.
import type { KeyPolicy } from "./idempotency.ts";
import type { HistoryOptions } from "./import-history.ts";
import type { Product } from "./product.ts";
import type { DocumentImportOptions } from "./profiles/options.ts";
import type { ImportProfile } from "./profiles/profile.ts";
import type { Site } from "./site.ts";
import type { StreamFormat } from "./sources.ts";
import type { CatalogStore, KeyField } from "./store.ts";

/** Limits the catalog enforces on every import. */
export interface CatalogLimits {
  /** Most products (or CSV rows) one import may carry; more is `TOO_MANY_PRODUCTS`. Default 100,000. */
  readonly maxProductsPerRequest?: number;
  /** Most products (or CSV rows) one streamed import may carry; more is `TOO_MANY_PRODUCTS`. Default 10,000,000. */
  readonly maxProductsPerStream?: number;
}

/** Where a catalog learns of sites made (and deleted) while it runs: a `TenantRegistry` is one. */
export interface SiteDirectory {
  hasSite(site: Site): boolean;
}

/** How to build a catalog: its store, the sites that exist, and its limits. */
export interface CatalogOptions {
  readonly store: CatalogStore;
  readonly sites?: Iterable<Site>;
  /** Asked of a site not among `sites` (nor added): whether it exists now. */
  readonly directory?: SiteDirectory;
  readonly limits?: CatalogLimits;
  /** How long idempotency keys are kept and claimed (`IDEMPOTENCY_DEFAULTS`). */
  readonly idempotency?: Partial<KeyPolicy>;
  /** Profiles of other platforms' files, besides the built-in ones, for the `profile` option by name. */
  readonly profiles?: readonly ImportProfile[];
  /**
   * How each site's imports are recorded (`HistoryOptions`: retention, report size, the end's
   * deliveries and callback); `false` records none, and imports then carry no `importId`.
   */
  readonly history?: HistoryOptions | false;
}

/** Options of the three imports. */
export interface ImportOptions {
  /** Run every check and count, write nothing. */
  readonly dryRun?: boolean;
  /**
   * Makes the import exactly-once: once an import with this key committed in the site, the same
   * call again is answered with its summary (`replayed: true`) and applies nothing; another call
   * under the key is `IDEMPOTENCY_KEY_REUSED`, and one while it runs `IDEMPOTENCY_KEY_IN_USE`.
   */
  readonly idempotencyKey?: string;
  /**
   * What tells the call under its key from another one; by default a SHA-256 of its kind, site,
   * options and body. A function is called once the body has been read whole.
   */
  readonly fingerprint?: string | (() => string);
  /** The id of the request that carried the import (an HTTP `X-Request-Id`), kept in its record. */
  readonly requestId?: string;
  /** The name of the token that sent it (never the token itself), kept in its record. */
  readonly tokenName?: string;
  /** The size of the body that held it, when the caller knows it, for its record (a streamed import counts its own). */
  readonly bytesReceived?: number;
}

/** Options of the bulk imports (a list, CSV, a stream). */
export interface BulkImportOptions extends ImportOptions {
  /**
   * `"upsert"` (the default) creates and replaces the products given; `"replace"` makes them the
   * site's whole catalog: the site's other products are deleted in the same atomic step, their
   * skus freed, and the summary counts them in `deleted`; `"merge"` changes only the fields each
   * record carries, of the product it names by `id` (else by `sku`), `null` removing an optional one.
   */
  readonly mode?: ImportMode;
  /**
   * With `"merge"`: a record that names no product is a located problem (`"error"`, the default),
   * is counted in `skipped` (`"skip"`), or is created, being then a whole product (`"create"`).
   * Given without `"merge"`, it is `VALIDATION_FAILED` naming `missing`.
   */
  readonly missing?: MissingPolicy;
  /** A replace with no products would empty the site: it is refused unless this is true. */
  readonly allowEmpty?: boolean;
}

/** How a bulk import writes: whole products, the site's whole catalog, or the fields given. */
export type ImportMode = "upsert" | "replace" | "merge";

/** What a merge does with a record that names no product of the site. */
export type MissingPolicy = "error" | "skip" | "create";

/** Options of an import of CSV text: the bulk import's, and how the document is read. */
export interface CsvImportOptions extends BulkImportOptions, DocumentImportOptions {}

/** Options of a streamed import. */
export interface StreamImportOptions extends CsvImportOptions {
  /**
   * `"csv"`: a CSV document as `importCsv` takes it; `"tsv"`: tab-separated, unquoted;
   * `"ndjson"`: one Product Object a line; `"xml"`: an RSS 2.0 or Atom feed (through a profile).
   */
  readonly format: StreamFormat;
}

/** What `exportProducts` writes: an import file of the catalog, or a platform's feed. */
export type ExportFormat = "csv" | "ndjson" | "google" | "meta";

/** Options of `exportProducts`. */
export interface ExportOptions {
  /** The ISO 4217 code of the site's prices: a feed needs it. */
  readonly currency?: string;
}

/** Options of `listProducts`. */
export interface ListOptions {
  /** Products per page, 1 to 1,000; default 100. */
  readonly limit?: number;
  /** The `nextCursor` of the page before; absent for the first page. */
  readonly cursor?: string;
}

/** A page of products in id order, and the cursor of the next page (`undefined` after the last). */
export interface ProductPage {
  readonly products: Product[];
  readonly nextCursor: string | undefined;
}

/** Options of lookup and delete. */
export interface LookupOptions {
  /** Match only this field; by default the id, then the sku. */
  readonly by?: KeyField;
}

/** A precondition on the product a call changes: the caller's copy is still the stored one. */
export interface Conditional {
  /**
   * The entity tags (`productTag`) of the copies the caller holds, or `"*"` (any product): when
   * the stored product has none of them, the call is `PRECONDITION_FAILED` and writes nothing.
   */
  readonly ifMatch?: readonly string[] | "*";
}

/** Options of `deleteProduct`. */
export interface DeleteOptions extends LookupOptions, Conditional {}

/** Options of `patchProduct`. */
export interface PatchOptions extends LookupOptions, Conditional {
  /** Check and answer the patched product, write nothing. */
  readonly dryRun?: boolean;
}
