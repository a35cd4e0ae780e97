// createCatalog: the catalog's operations (sites, imports through the engine, lists, exports,
// id-or-sku lookup) over a CatalogStore.

import type {
  BulkImportOptions,
  CatalogLimits,
  CatalogOptions,
  CsvImportOptions,
  DeleteOptions,
  ExportFormat,
  ExportOptions,
  ImportOptions,
  ListOptions,
  LookupOptions,
  PatchOptions,
  ProductPage,
  StreamImportOptions,
} from "./catalog-options.ts";
import { CSV_HEADER, csvRecord } from "./csv-write.ts";
import { decodeCursor, encodeCursor, pageLimit } from "./cursor.ts";
import { type EngineOptions, type ImportSummary, runImport, tooMany } from "./engine.ts";
import { CatalogError, invalidOption, siteNotFound } from "./errors.ts";
import { FEED_HEADER, feedLine } from "./feed-write.ts";
import { FinalSaves } from "./final-saves.ts";
import {
  type CallPrint,
  IDEMPOTENCY_DEFAULTS,
  type KeyPolicy,
  keyProblem,
  once,
  runClaimed,
  streamPrint,
  valuePrint,
} from "./idempotency.ts";
import {
  historyPolicy,
  historyReader,
  type ImportListOptions,
  type ImportPage,
  type ImportProblems,
} from "./import-history.ts";
import { importRecorder } from "./import-journal.ts";
import type { ImportRecord } from "./import-record.ts";
import { encodeProduct, type Product } from "./product.ts";
import { deleteProduct, patchProduct, storedProduct } from "./product-patch.ts";
import { checkCurrency, documentOptions, profileBook, readingPrint } from "./profiles/options.ts";
import { checkSite, type Site, siteKey } from "./site.ts";
import { type DocumentOptions, documentSource, listSource, productSource, type RecordSource } from "./sources.ts";
import type { ByteSource } from "./text.ts";

/** The product catalog of a set of sites, over one store. */
export interface Catalog {
  /** The limits this catalog enforces, defaults applied, so that a server can publish them. */
  readonly limits: Readonly<Required<CatalogLimits>>;
  /** Makes a site exist (idempotent); `VALIDATION_FAILED` for names `SiteSchema` refuses. Imports never create sites. */
  addSite(site: Site): void;
  /** Whether a site exists: added, given in `sites`, or in the `directory` now. */
  hasSite(site: Site): boolean;
  /** Imports or replaces a list of products; problems point into `{ products: [...] }`. */
  importProducts(site: Site, products: unknown, options?: BulkImportOptions): Promise<ImportSummary>;
  /** Imports or replaces one product; problems point into `{ product: {...} }`. */
  importProduct(site: Site, product: unknown, options?: ImportOptions): Promise<ImportSummary>;
  /** Imports or replaces the products of a CSV document; problems carry row and column. */
  importCsv(site: Site, csvContent: unknown, options?: CsvImportOptions): Promise<ImportSummary>;
  /**
   * Imports or replaces the products of a streamed body (a Node stream, a web ReadableStream, any
   * async iterable of bytes or text), decoded and staged in chunks as it arrives, in memory that
   * does not grow with it; all-or-nothing, problems carry the CSV row and column or the NDJSON
   * line and pointer.
   */
  importStream(site: Site, body: ByteSource, options: StreamImportOptions): Promise<ImportSummary>;
  /**
   * The record of an import of the site, as the store holds it now (one whose server stopped
   * while it ran is `failed`, `IMPORT_INTERRUPTED`); `IMPORT_NOT_FOUND` when there is none.
   */
  getImport(site: Site, importId: string): Promise<ImportRecord>;
  /**
   * A page of the site's imports, newest first, filtered by state, idempotency key or request id;
   * a bad option is `VALIDATION_FAILED` naming it as `parameter`.
   */
  listImports(site: Site, options?: ImportListOptions): Promise<ImportPage>;
  /** The problem report of an import of the site: its problems up to the history's cap, and their total. */
  importProblems(site: Site, importId: string): Promise<ImportProblems>;
  /**
   * A page of the site's products in id order. Walking the cursors returns every product that
   * exists for the whole walk exactly once, whatever is written meanwhile. A bad `limit` or
   * `cursor` is `VALIDATION_FAILED` naming the option as `parameter`.
   */
  listProducts(site: Site, options?: ListOptions): Promise<ProductPage>;
  /**
   * Every product of the site as an import file, CSV (header first) or NDJSON, or as a Merchant
   * Center (`"google"`) or Meta (`"meta"`) TSV feed with prices in `options.currency`, in pieces of
   * text read from the store a page at a time: memory stays bounded whatever the site's size.
   */
  exportProducts(site: Site, format: ExportFormat, options?: ExportOptions): AsyncGenerator<string>;
  /** The product with id `key`, else sku `key`; `PRODUCT_NOT_FOUND` when there is none. */
  getProduct(site: Site, key: string, options?: LookupOptions): Promise<Product>;
  /**
   * Changes the fields `patch` carries (a JSON Merge Patch, RFC 7396: `null` removes an optional
   * field) of the product `getProduct` would return, atomically against concurrent writes, and
   * returns the product as stored after it; `PRECONDITION_FAILED` when `ifMatch` no longer holds.
   */
  patchProduct(site: Site, key: string, patch: unknown, options?: PatchOptions): Promise<Product>;
  /** Deletes the product `getProduct` would return, freeing its sku, and returns it; `PRECONDITION_FAILED` when `ifMatch` does not hold. */
  deleteProduct(site: Site, key: string, options?: DeleteOptions): Promise<Product>;
  /** Resolves when the store answers; rejects with `STORAGE_UNAVAILABLE` otherwise. */
  checkHealth(): Promise<void>;
  /** Tries each import record still waiting for the store once more, then closes the store. */
  close(): Promise<void>;
}

/** Default of `CatalogLimits.maxProductsPerRequest`. */
export const DEFAULT_MAX_PRODUCTS = 100_000;
/** Products a page of `listProducts` holds: `limit` is 1 to `max`, `default` when absent. */
export const LIST_LIMIT = { default: 100, max: 1_000 } as const;
// Products an export reads at once: large enough to amortize a round trip, a megabyte or so.
const EXPORT_PAGE = 1_000;

/** Default of `CatalogLimits.maxProductsPerStream`. */
export const DEFAULT_MAX_STREAM_PRODUCTS = 10_000_000;

/** Creates a catalog over a store. */
export function createCatalog(options: CatalogOptions): Catalog {
  const { store } = options;
  const maxProducts = options.limits?.maxProductsPerRequest ?? DEFAULT_MAX_PRODUCTS;
  const maxStreamProducts = options.limits?.maxProductsPerStream ?? DEFAULT_MAX_STREAM_PRODUCTS;
  const sites = new Set<string>();
  // Only sites every store can hold: a request for any other is SITE_NOT_FOUND before the store.
  for (const site of options.sites ?? []) sites.add(siteKey(checkSite(site)));
  // Sites made at run time: asked only of a site the catalog does not know, so the hot path is one Set lookup.
  const { directory } = options;
  const hasSite = (site: Site) => sites.has(siteKey(site)) || directory?.hasSite(site) === true;
  const policy: KeyPolicy = { ...IDEMPOTENCY_DEFAULTS, ...options.idempotency };
  const profiles = profileBook(options.profiles ?? []);
  const history = historyPolicy(options.history);
  const reader = historyReader(store, history);
  const finals = new FinalSaves();
  const recorded = importRecorder(store, history, finals);

  function requireSite(site: Site): void {
    if (!hasSite(site)) throw siteNotFound(site);
  }

  // The options of a bulk import, checked, for the engine.
  function bulkOptions(options: BulkImportOptions, limit: number): EngineOptions {
    const { dryRun = false, mode = "upsert", allowEmpty = false, missing } = options;
    if (mode !== "upsert" && mode !== "replace" && mode !== "merge")
      throw invalidOption("mode", 'Must be "upsert", "replace" or "merge"');
    if (missing !== undefined && mode !== "merge")
      throw invalidOption("missing", 'Only a merge (mode "merge") takes it');
    if (missing !== undefined && missing !== "error" && missing !== "skip" && missing !== "create")
      throw invalidOption("missing", 'Must be "error", "skip" or "create"');
    const engine = { dryRun, limit, allowEmpty, ...(mode === "replace" ? { replace: true } : {}) };
    return mode === "merge" ? { ...engine, merge: { missing: missing ?? "error" } } : engine;
  }

  // Runs an import through the engine, under its idempotency key when it has one.
  function run(site: Site, source: RecordSource, engine: EngineOptions, options: ImportOptions, call: CallPrint) {
    const key = options.idempotencyKey;
    if (key === undefined) return runImport(store, site, source, engine);
    const problem = keyProblem(key);
    if (problem !== undefined) throw invalidOption("idempotencyKey", problem);
    const given = options.fingerprint;
    const fingerprint = once(typeof given === "string" ? () => given : (given ?? call.fingerprint));
    const recorded = { key, fingerprint, retainMs: policy.retentionMs };
    // A body in memory, to be written, is not claimed: its commit checks both the record and the
    // claims of others (clause 6 of `commit`), one call to the store instead of three.
    if (call.drain === undefined && !engine.dryRun) return runImport(store, site, source, { ...engine, key: recorded });
    return runClaimed(store, site, recorded, policy, call.drain, (claim) =>
      runImport(store, site, source, { ...engine, key: { ...recorded, claim } }),
    );
  }

  // What names a call in its fingerprint: its kind, its site and its options, how it reads its document among them.
  const callParts = (kind: string, site: Site, engine: EngineOptions, reading?: DocumentOptions) => [
    kind,
    siteKey(site),
    engine.replace ? "replace" : engine.merge ? `merge:${engine.merge.missing}` : "upsert",
    String(engine.dryRun),
    String(engine.allowEmpty ?? false),
    ...(reading === undefined ? [] : readingPrint(reading)),
  ];

  return {
    limits: { maxProductsPerRequest: maxProducts, maxProductsPerStream: maxStreamProducts },
    addSite: (site) => void sites.add(siteKey(checkSite(site))),
    hasSite,

    async importProducts(site, products, options = {}) {
      requireSite(site);
      return recorded(site, { channel: "body", format: "products", options }, async (_, told) => {
        const engine = told(bulkOptions(options, maxProducts));
        if (!Array.isArray(products)) {
          throw new CatalogError("VALIDATION_FAILED", "products must be an array", {
            problems: [{ pointer: "/products", message: "Must be an array of products" }],
          });
        }
        // Known without reading a record: refused before any is checked.
        if (products.length > maxProducts) throw tooMany(maxProducts, products.length, true);
        return run(
          site,
          listSource(products),
          engine,
          options,
          valuePrint(callParts("products", site, engine), products),
        );
      });
    },

    async importProduct(site, product, options = {}) {
      requireSite(site);
      return recorded(site, { channel: "body", format: "product", options }, async (_, told) => {
        const engine = told({ dryRun: options.dryRun ?? false, limit: 1 });
        return run(
          site,
          productSource(product),
          engine,
          options,
          valuePrint(callParts("product", site, engine), product),
        );
      });
    },

    async importCsv(site, csvContent, options = {}) {
      requireSite(site);
      return recorded(site, { channel: "body", format: "csv", options }, async (_, told) => {
        const engine = told(bulkOptions(options, maxProducts));
        if (typeof csvContent !== "string") {
          throw new CatalogError("VALIDATION_FAILED", "csvContent must be a string", {
            problems: [{ pointer: "/csvContent", message: "Must be a string holding the CSV text" }],
          });
        }
        const reading = { ...documentOptions("csv", options, profiles), merge: engine.merge !== undefined };
        const call = valuePrint(callParts("csv", site, engine, reading), csvContent);
        return run(site, documentSource("csv", [csvContent], true, reading), engine, options, call);
      });
    },

    async importStream(site, given, options) {
      requireSite(site);
      const { format } = options;
      return recorded(site, { channel: "stream", format, options }, async (journal, told) => {
        const body = journal === undefined ? given : journal.counted(given);
        const engine = told(bulkOptions(options, maxStreamProducts));
        const merge = engine.merge !== undefined;
        const reading =
          format === "ndjson" && options.profile === undefined
            ? {}
            : { ...documentOptions(format, options, profiles), merge };
        if (options.idempotencyKey === undefined)
          return runImport(store, site, documentSource(format, body, false, reading), engine);
        // A caller's fingerprint has hashed the body already: it passes untouched then.
        const call = streamPrint(callParts(format, site, engine, reading), body, options.fingerprint !== undefined);
        return run(site, documentSource(format, call.body, false, reading), engine, options, call);
      });
    },

    async getImport(site, importId) {
      requireSite(site);
      return reader.get(site, importId);
    },
    async listImports(site, options = {}) {
      requireSite(site);
      return reader.list(site, options);
    },
    async importProblems(site, importId) {
      requireSite(site);
      return reader.problems(site, importId);
    },

    async listProducts(site, { limit = LIST_LIMIT.default, cursor } = {}) {
      requireSite(site);
      pageLimit(limit, LIST_LIMIT.max);
      const after = cursor === undefined ? undefined : decodeCursor(cursor);
      const products = await store.list(site, after, limit);
      const last = products.length === limit ? products[limit - 1] : undefined;
      return { products, nextCursor: last && encodeCursor(last.id) };
    },

    async *exportProducts(site, format, options = {}) {
      requireSite(site);
      const feed = format === "google" || format === "meta" ? format : undefined;
      // A currency given is checked whatever the format, so that a typo is never silently unused.
      const currency = options.currency === undefined ? undefined : checkCurrency(options.currency);
      if (feed !== undefined && currency === undefined) {
        throw invalidOption("currency", `A ${feed} feed needs the ISO 4217 code of the site's prices, such as USD`);
      }
      const write =
        feed !== undefined
          ? (product: Product) => feedLine(product, feed, currency as string)
          : format === "csv"
            ? csvRecord
            : encodeProduct;
      if (format === "csv") yield `${CSV_HEADER}\n`;
      if (feed !== undefined) yield `${FEED_HEADER}\n`;
      for (let after: string | undefined, more = true; more; ) {
        const page = await store.list(site, after, EXPORT_PAGE);
        let text = "";
        for (const product of page) text += `${write(product)}\n`;
        if (text !== "") yield text;
        after = page[page.length - 1]?.id;
        more = page.length === EXPORT_PAGE;
      }
    },

    async getProduct(site, key, { by } = {}) {
      requireSite(site);
      return storedProduct(store, site, key, by === undefined ? {} : { by });
    },
    async patchProduct(site, key, patch, options = {}) {
      requireSite(site);
      return patchProduct(store, site, key, patch, options);
    },
    async deleteProduct(site, key, options = {}) {
      requireSite(site);
      return deleteProduct(store, site, key, options);
    },
    checkHealth: () => store.ping(),
    async close() {
      await finals.close();
      await store.close();
    },
  };
}
