// Which requests reach the store: a store that counts, site by site, the calls a request can
// make of it. One-answer cases refused before the store answer alike on every store, so they run
// on one; this is how the test checks that those it runs on one store only never reach it.
import type { CatalogStore, Site } from "@catalog-kit/catalog-core";

// Reads and writes of a request. `list` is left out: the test itself lists a site afterwards.
const REACHING = ["beginImport", "claimKey", "find", "remove"] as const;

/** A store and the calls made of it by site id, since the last `reset`. */
export interface ReachRecording {
  readonly store: CatalogStore;
  /** Calls of `beginImport`, `claimKey`, `find` and `remove` by site id. */
  calls(): ReadonlyMap<string, number>;
  reset(): void;
}

/** Wraps `store`, counting the calls that reach it, by site. */
export function recordReach(store: CatalogStore): ReachRecording {
  const calls = new Map<string, number>();
  const reaching = new Set<PropertyKey>(REACHING);
  const wrapped = new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (!reaching.has(property)) return value.bind(target);
      return (site: Site, ...rest: unknown[]) => {
        calls.set(site.siteId, (calls.get(site.siteId) ?? 0) + 1);
        return value.call(target, site, ...rest);
      };
    },
  });
  return { store: wrapped, calls: () => calls, reset: () => calls.clear() };
}
