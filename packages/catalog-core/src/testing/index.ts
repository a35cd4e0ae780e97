// @catalog-kit/catalog-core/testing: what an adapter's tests need to prove it keeps the contract.
export { keyArb, productArb, uniqueSite } from "./arbitraries.ts";
export { type ConformanceOptions, testCatalogStore } from "./conformance.ts";
export type { BreakableStore, NotApplicable } from "./failures.ts";
export { CatalogModel } from "./model.ts";
export { type ChunkedImport, type Conflict, importInChunks, type UpsertResult, upsert } from "./write.ts";
