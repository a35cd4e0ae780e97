// The public surface of @catalog-kit/catalog-core.
export {
  type BulkImportOptions,
  type Catalog,
  type CatalogLimits,
  type CatalogOptions,
  createCatalog,
  DEFAULT_MAX_PRODUCTS,
  DEFAULT_MAX_STREAM_PRODUCTS,
  type ImportMode,
  type ImportOptions,
  type ImportSummary,
  type ListOptions,
  type LookupOptions,
  type ProductPage,
  type StreamImportOptions,
} from "./catalog.ts";
export { type CsvRecords, decodeCsv } from "./csv.ts";
export {
  CatalogError,
  type CatalogErrorDetails,
  type ErrorCode,
  isCatalogError,
  MAX_PROBLEMS,
  type Problem,
  siteNotFound,
} from "./errors.ts";
export type { ByteSource, StreamFormat } from "./import-stream.ts";
export { productJsonSchemas } from "./json-schema.ts";
export { toPointer } from "./parse.ts";
export {
  compareIds,
  decodeProduct,
  encodeProduct,
  PRODUCT_FIELDS,
  PRODUCT_LIMITS,
  type Product,
  ProductSchema,
  type ProductView,
  ProductViewSchema,
  REQUIRED_FIELDS,
  toProductView,
} from "./product.ts";
export { type Site, SiteSchema, siteKey } from "./site.ts";
export type {
  CatalogStore,
  KeyField,
  SkuConflict,
  StagedImport,
  UpsertCounts,
  UpsertResult,
  WriteOptions,
} from "./store.ts";
