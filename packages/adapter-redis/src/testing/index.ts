// `@catalog-kit/adapter-redis/testing`: what it takes to inspect a site's keys from outside the
// store (tests, fault runs, an operator checking a site after an incident), without its internals.

export {
  checkKeyPrefix,
  INDEXED_FIELD,
  isStateField,
  LOCK_FIELD,
  MERGING_FIELD,
  type SiteKeys,
  siteKeys,
} from "../keys.ts";
export { checkIndex, productIds, storedProducts } from "./check-index.ts";
