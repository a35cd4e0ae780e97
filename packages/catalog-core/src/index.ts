// The public surface of @catalog-kit/catalog-core.
export { DEFAULT_SCOPES, type RateLimits, RateLimitsSchema, SCOPES, type Scope, ScopesSchema } from "./access.ts";
export {
  type Catalog,
  createCatalog,
  DEFAULT_MAX_PRODUCTS,
  DEFAULT_MAX_STREAM_PRODUCTS,
  LIST_LIMIT,
} from "./catalog.ts";
export type {
  BulkImportOptions,
  CatalogLimits,
  CatalogOptions,
  Conditional,
  CsvImportOptions,
  DeleteOptions,
  ExportFormat,
  ExportOptions,
  ImportMode,
  ImportOptions,
  ListOptions,
  LookupOptions,
  MissingPolicy,
  PatchOptions,
  ProductPage,
  SiteDirectory,
  StreamImportOptions,
} from "./catalog-options.ts";
export { csvCell, reportCell } from "./csv-write.ts";
export { CURSOR_PATTERN } from "./cursor.ts";
export { DecodedBodies } from "./decoded-bodies.ts";
export type { ImportProgress, ImportSummary } from "./engine.ts";
export {
  CatalogError,
  type CatalogErrorDetails,
  conflict,
  type ErrorCode,
  isCatalogError,
  MAX_PROBLEMS,
  type Problem,
  siteNotFound,
} from "./errors.ts";
export {
  Fingerprint,
  IDEMPOTENCY_DEFAULTS,
  KEY_IN_USE_RETRY_SECONDS,
  type KeyPolicy,
  keyProblem,
} from "./idempotency.ts";
export {
  HISTORY_DEFAULTS,
  type HistoryOptions,
  IMPORT_LIST_LIMIT,
  type ImportListOptions,
  type ImportPage,
  type ImportProblems,
  INTERRUPTED_AFTER_MS,
} from "./import-history.ts";
export { HEARTBEAT_MS, importIdOf } from "./import-journal.ts";
export {
  IMPORT_CHANNELS,
  IMPORT_FORMATS,
  IMPORT_STATES,
  type ImportRecord,
  ImportRecordCountsSchema,
  ImportRecordSchema,
  type ImportState,
  ProblemSchema,
} from "./import-record.ts";
export { importRecordJsonSchema, productJsonSchemas } from "./json-schema.ts";
export { jsonString } from "./json-string.ts";
export { KeyBook } from "./key-book.ts";
export { type Place, type RecordPart, toPointer } from "./parse.ts";
export {
  compareIds,
  copyProduct,
  decodeProduct,
  encodeProduct,
  PRODUCT_FIELDS,
  PRODUCT_LIMITS,
  type Product,
  ProductSchema,
  REQUIRED_FIELDS,
  sameProduct,
} from "./product.ts";
export { productTag, tagMatches } from "./product-tag.ts";
export { type ProductView, ProductViewSchema, productViewJson, toProductView } from "./product-view.ts";
/** The profiles every catalog knows by name (shopify, woocommerce, meta, google), in detection order. */
export { BUILTIN_PROFILES } from "./profiles/builtin.ts";
export type { DocumentImportOptions } from "./profiles/options.ts";
export {
  type ImportProfile,
  type ProfileContext,
  type ProfileFormat,
  type ProfileParameter,
  type ProfileParameters,
  type ProfileRecord,
  type ProfileRow,
  profileContext,
  type RowGroup,
} from "./profiles/profile.ts";
export {
  cell,
  cellList,
  type GroupParts,
  groupProduct,
  readAvailability,
  readMoney,
  readPrice,
  shopPage,
  type Variant,
} from "./profiles/values.ts";
export { type Site, SiteSchema, siteKey } from "./site.ts";
export {
  type DocumentOptions,
  type DocumentReport,
  documentSource,
  type RecordSource,
  type StreamFormat,
} from "./sources.ts";
export { judgeNewSite, judgeStagedRows, type RowJudgement, type StagedRow } from "./staged-rows.ts";
export { type Applicable, combineConflicts, ImportStaging, type SiteView } from "./staging.ts";
export {
  type CatalogStore,
  type ClaimedDelivery,
  type CommitResult,
  checkUsageCounts,
  type Delivery,
  type HistoryEntry,
  type ImportCounts,
  type ImportSave,
  type KeyClaim,
  type KeyField,
  type KeyRecord,
  type KeyToRecord,
  type SkuConflict,
  type StagedImport,
  type TenantEntries,
  type TenantEntry,
  type TenantWrite,
  type UsageCount,
  type WriteOptions,
} from "./store.ts";
export {
  type SiteListing,
  type SiteRecord,
  SiteRecordSchema,
  type TenantSource,
  type TokenListing,
  type TokenRecord,
  TokenRecordSchema,
  type TokenRequest,
  TokenRequestSchema,
} from "./tenant-records.ts";
export {
  type CreatedToken,
  DEFAULT_REFRESH_MS,
  type FileTenants,
  openTenantRegistry,
  type TenantRegistry,
  type TenantRegistryOptions,
} from "./tenant-registry.ts";
export type { ByteSource } from "./text.ts";
export {
  createUsageMeter,
  DEFAULT_SETTLE_MS,
  RUNNING_SLOT_MS,
  type RunningCount,
  type UsageMeter,
  type UsageMeterOptions,
  type WindowCount,
} from "./usage-meter.ts";
