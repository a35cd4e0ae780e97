// The in-memory store: the default `CatalogStore`, and the reference the benchmarks compare with.
import {
  type CatalogStore,
  checkUsageCounts,
  compareIds,
  copyProduct,
  type Delivery,
  ImportStaging,
  KeyBook,
  type KeyField,
  type Product,
  type SiteView,
  sameProduct,
  siteKey,
} from "@catalog-kit/catalog-core";

// A record of a site's import history, and its problem report.
interface HistoryRecord {
  value: string;
  problems?: string | undefined;
}

interface HeldDelivery extends Delivery {
  lease?: string | undefined;
  leasedUntil: number;
}

interface SiteProducts {
  readonly byId: Map<string, Product>;
  readonly idBySku: Map<string, string>;
  /** The ids in `compareIds` order, built by `list` and dropped by every write. */
  sorted?: string[] | undefined;
}

function viewOf({ byId, idBySku }: SiteProducts): SiteView {
  return { get: (id) => byId.get(id), holderOf: (sku) => idBySku.get(sku), size: byId.size };
}

// Writes products over a site's own. An old sku is freed only while it still points at its old
// product, so a sku that an earlier product has just taken over stays with it: skus may swap.
function write(site: SiteProducts, products: Iterable<Product>): void {
  site.sorted = undefined;
  for (const product of products) {
    const old = site.byId.get(product.id);
    site.byId.set(product.id, product);
    if (old?.sku === product.sku) continue;
    if (old !== undefined && site.idBySku.get(old.sku) === old.id) site.idBySku.delete(old.sku);
    site.idBySku.set(product.sku, product.id);
  }
}

/**
 * A `CatalogStore` in this process's memory: the default store, and the reference the
 * benchmarks compare with. A commit runs without an `await` between its judgement and its
 * writes, which makes it atomic on Node's single thread.
 */
export function createMemoryStore(): CatalogStore {
  const sites = new Map<string, SiteProducts>();
  const keys = new KeyBook();
  const tenants = new Map<string, string>();
  let tenantsVersion = 0;
  const usage = new Map<string, { total: number; readonly endsAt: number }>();
  // Expired counters go when the map has doubled since the last sweep: memory stays within twice
  // the live counters, at a cost spread over the adds.
  let sweepAt = 1_024;
  const histories = new Map<string, Map<string, HistoryRecord>>();
  const deliveries = new Map<string, HeldDelivery>();

  // The product `find` and `remove` address: by id first, then by sku (one lookup for an id).
  function entryOf(products: SiteProducts | undefined, key: string, by: KeyField | undefined): Product | undefined {
    if (products === undefined) return undefined;
    const byId = by === "sku" ? undefined : products.byId.get(key);
    if (byId !== undefined || by === "id") return byId;
    const id = products.idBySku.get(key);
    return id === undefined ? undefined : products.byId.get(id);
  }

  return {
    async beginImport(site, { dryRun, replace = false }) {
      const staging = new ImportStaging();
      // Once adopted, the staging's maps are the site's own: nothing may clear them then.
      let adopted = false;
      return {
        async add(products, positions, bases) {
          // Kept as given: the catalog hands over objects of its own (see `StagedImport`).
          staging.add(products, positions, bases);
        },
        async commit(key) {
          const refused = keys.refusal(site, key);
          if (refused) return refused;
          const current = sites.get(siteKey(site));
          const judged = staging.judge(current && viewOf(current), replace);
          if (!judged.applied) return judged;
          if (!dryRun) {
            if (key) keys.record(site, key, judged.counts);
            // Into an empty site, or in place of the site, the staging's maps become the site's
            // at once, however large the import.
            adopted = current === undefined || current.byId.size === 0 || replace;
            if (adopted) sites.set(siteKey(site), { byId: staging.byId, idBySku: staging.idBySku });
            else write(current as SiteProducts, judged.changed);
          }
          return { applied: true, counts: judged.counts };
        },
        async abort() {
          if (!adopted) staging.clear();
        },
      };
    },

    async find(site, key, by) {
      const entry = entryOf(sites.get(siteKey(site)), key, by);
      return entry && copyProduct(entry);
    },

    async remove(site, key, by, expected) {
      const products = sites.get(siteKey(site));
      const entry = entryOf(products, key, by);
      if (products === undefined || entry === undefined) return undefined;
      if (expected !== undefined && !sameProduct(entry, expected)) return copyProduct(entry);
      products.byId.delete(entry.id);
      products.idBySku.delete(entry.sku);
      products.sorted = undefined;
      return copyProduct(entry);
    },

    async list(site, after, limit) {
      const products = sites.get(siteKey(site));
      if (products === undefined) return [];
      products.sorted ??= [...products.byId.keys()].sort(compareIds);
      const ids = products.sorted;
      // The first id after `after`, by binary search.
      let low = 0;
      let high = after === undefined ? 0 : ids.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (compareIds(ids[middle] as string, after as string) <= 0) low = middle + 1;
        else high = middle;
      }
      return ids.slice(low, low + limit).map((id) => copyProduct(products.byId.get(id) as Product));
    },

    async claimKey(site, key, leaseMs) {
      return keys.claim(site, key, leaseMs);
    },

    async readTenants(since) {
      if (since === tenantsVersion) return undefined;
      return { version: tenantsVersion, entries: [...tenants].map(([key, value]) => ({ key, value })) };
    },

    async writeTenant({ key, value, when }) {
      if (tenants.has(key) !== (when === "present")) return false;
      if (value === null) tenants.delete(key);
      else tenants.set(key, value);
      tenantsVersion++;
      return true;
    },

    async countUsage(counts, ttlMs) {
      const now = Date.now();
      if (usage.size >= sweepAt) {
        for (const [key, counter] of usage) if (counter.endsAt <= now) usage.delete(key);
        sweepAt = Math.max(1_024, usage.size * 2);
      }
      checkUsageCounts(counts, ttlMs);
      return counts.map(({ key, amount }) => {
        let counter = usage.get(key);
        if (counter === undefined || counter.endsAt <= now) {
          counter = { total: 0, endsAt: now + ttlMs };
          usage.set(key, counter);
        }
        counter.total += amount;
        return counter.total;
      });
    },

    async saveImport(site, { id, value }, save = {}) {
      for (const delivery of save.deliveries ?? []) {
        if (!deliveries.has(delivery.id)) deliveries.set(delivery.id, { ...delivery, leasedUntil: 0 });
      }
      const key = siteKey(site);
      let history = histories.get(key);
      if (history === undefined) histories.set(key, (history = new Map()));
      const problems = save.problems ?? history.get(id)?.problems;
      history.set(id, { value, problems });
      if (save.trim === undefined) return;
      const { keep, before } = save.trim;
      const ids = [...history.keys()].sort().reverse();
      for (const [rank, old] of ids.entries()) if (old !== id && (rank >= keep || old < before)) history.delete(old);
    },

    async readImport(site, id) {
      return histories.get(siteKey(site))?.get(id)?.value;
    },

    async listImports(site, before, limit) {
      const history = histories.get(siteKey(site));
      if (history === undefined) return [];
      const ids = [...history.keys()].filter((id) => before === undefined || id < before);
      return ids
        .sort()
        .reverse()
        .slice(0, limit)
        .map((id) => ({ id, value: (history.get(id) as HistoryRecord).value }));
    },

    async readImportProblems(site, id) {
      return histories.get(siteKey(site))?.get(id)?.problems;
    },

    async claimDeliveries(now, leaseMs, limit) {
      const due = [...deliveries.values()].filter((d) => d.dueAt <= now && d.leasedUntil <= now);
      return due
        .sort((a, b) => a.dueAt - b.dueAt)
        .slice(0, limit)
        .map((held) => {
          held.lease = crypto.randomUUID();
          held.leasedUntil = now + leaseMs;
          return { id: held.id, dueAt: held.dueAt, value: held.value, lease: held.lease };
        });
    },

    async settleDelivery(id, lease, next) {
      const held = deliveries.get(id);
      if (held?.lease !== lease) return false;
      if (next === undefined) deliveries.delete(id);
      else deliveries.set(id, { id, dueAt: next.dueAt, value: next.value, leasedUntil: 0 });
      return true;
    },

    async ping() {},
    async close() {},
  };
}
