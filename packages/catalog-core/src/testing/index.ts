export { keyArb, productArb, uniqueSite } from "./arbitraries.ts";
export { type ConformanceOptions, testCatalogStore } from "./conformance.ts";
export { CatalogModel } from "./model.ts";
