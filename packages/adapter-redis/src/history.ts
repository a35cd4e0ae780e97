// A site's import history in Redis, under the site's hash tag (`historyKeys`), so that a Cluster
// keeps it in the slot of the site's products: a sorted set of the ids, all scored 0 (ZRANGEBYLEX
// and ZREVRANGEBYLEX walk them in byte order, the contract's), and two hashes, id → value and
// id → problem report. Three keys rather than one per record: a script declares every key it
// touches (a Cluster routes it by them), and a trim removes records it learns of only as it runs.
//
// `saveImport` is one script (the record, its report, the trim) after, when it carries
// deliveries, the script that enqueues them: the queue has a slot of its own in a Cluster, so the
// deliveries are written first, on a single node as on a Cluster (one way for both, and the
// extra round trip is paid only by the save that ends an import with webhooks). A process that
// dies between the two leaves deliveries and no record of the end, as the contract asks. A save
// whose reply was lost rejects with STORAGE_UNAVAILABLE and is never sent again; the caller's
// retry writes the same record and enqueues nothing twice.
import type { CatalogStore, ImportSave, Site } from "@catalog-kit/catalog-core";
import type { AfterWrite, Operation, StoreContext } from "./context.ts";
import { checkDeliveries, enqueue } from "./deliveries.ts";
import { deliveryKeys, historyKeys, type SiteKeys } from "./keys.ts";
import { HISTORY_LIST } from "./scripts/history-list.ts";
import { HISTORY_PROBLEMS } from "./scripts/history-problems.ts";
import { HISTORY_READ } from "./scripts/history-read.ts";
import { HISTORY_SAVE } from "./scripts/history-save.ts";

// A caller's mistake, found before anything is sent.
function checkSave(save: ImportSave): void {
  const keep = save.trim?.keep;
  if (keep !== undefined && (!Number.isSafeInteger(keep) || keep < 0)) {
    throw new TypeError(`saveImport: trim.keep must be a whole number, got ${keep}`);
  }
  checkDeliveries(save.deliveries ?? []);
}

/**
 * `saveImport`, `readImport`, `listImports` and `readImportProblems` of the store whose keys
 * start with `prefix`, each run in `operation`.
 */
export function historyCalls(
  ctx: StoreContext,
  prefix: string,
  siteKeys: (site: Site) => SiteKeys,
  operation: Operation,
  afterWrite: AfterWrite,
): Pick<CatalogStore, "saveImport" | "readImport" | "listImports" | "readImportProblems"> {
  const queue = deliveryKeys(prefix);
  const keysOf = (site: Site) => historyKeys(siteKeys(site));
  return {
    saveImport(site, { id, value }, save = {}) {
      try {
        checkSave(save);
      } catch (error) {
        return Promise.reject(error);
      }
      return operation(
        "import history save",
        async () => {
          if (save.deliveries?.length) await enqueue(ctx, queue, save.deliveries, afterWrite);
          const keys = keysOf(site);
          await ctx.call(HISTORY_SAVE, keys, { id, value, problems: save.problems, trim: save.trim });
          await afterWrite(keys.historyIds);
        },
        "unknown",
      );
    },

    readImport: (site, id) =>
      operation("import history read", async () => (await ctx.call(HISTORY_READ, keysOf(site), { id })).value),

    listImports(site, before, limit) {
      if (!Number.isSafeInteger(limit) || limit < 0) {
        return Promise.reject(new TypeError(`listImports: limit must be a whole number, got ${limit}`));
      }
      return operation("import history list", async () => {
        if (limit === 0) return [];
        const { entries } = await ctx.call(HISTORY_LIST, keysOf(site), { before, limit });
        return entries.map(([id, value]) => ({ id: id as string, value: value as string }));
      });
    },

    readImportProblems: (site, id) =>
      operation("import problems read", async () => (await ctx.call(HISTORY_PROBLEMS, keysOf(site), { id })).problems),
  };
}
