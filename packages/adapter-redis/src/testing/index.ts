// `@catalog-kit/adapter-redis/testing`: what it takes to inspect a site's keys from outside the
// store (tests, fault runs, an operator checking a site after an incident), without its internals.

export { checkKeyPrefix, LOCK_FIELD, MERGING_FIELD, type SiteKeys, siteKeys } from "../keys.ts";
export { checkIndex, productIds } from "./check-index.ts";
