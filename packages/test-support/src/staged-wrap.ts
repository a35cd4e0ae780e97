// A store whose staged imports a test watches or breaks: what a test of the layers above the
// store needs to see or fail a chunk, a commit or an abort, written once.
import type { CatalogStore, Site, StagedImport, WriteOptions } from "@catalog-kit/catalog-core";

/**
 * `store`, each of whose staged imports answers with the methods `override` gives for it in place
 * of its own (each given the staged import to call on to); the others, and the store's, as they are.
 * The staged import's own methods are called on it, so that one of a class keeps its `this`.
 */
export function wrapStaged(
  store: CatalogStore,
  override: (staged: StagedImport, site: Site, options: WriteOptions) => Partial<StagedImport>,
): CatalogStore {
  return {
    ...store,
    async beginImport(site, options) {
      const staged = await store.beginImport(site, options);
      return {
        add: (...args) => staged.add(...args),
        commit: (key) => staged.commit(key),
        abort: () => staged.abort(),
        ...override(staged, site, options),
      };
    },
  };
}
