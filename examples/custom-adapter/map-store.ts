// A storage adapter in one file, to copy when writing your own: every CatalogStore method over two
// Maps per site. ADAPTERS.md in @catalog-kit/catalog-core walks through it clause by clause.
import {
  CatalogError,
  type CatalogStore,
  compareIds,
  decodeProduct,
  encodeProduct,
  ImportStaging,
  KeyBook,
  type KeyField,
  type Product,
  type Site,
  siteKey,
} from "@catalog-kit/catalog-core";

interface SiteMaps {
  products: Map<string, string>; // id -> canonical JSON (encodeProduct)
  skus: Map<string, string>; // sku -> id
}

/**
 * The skeleton of a storage adapter: a `CatalogStore` over two Maps per site, by id and by sku.
 * Replace the Maps with your storage's calls; keep each method's contract as documented on
 * `CatalogStore` and prove it with `testCatalogStore` (see the test beside it).
 */
export function createMapStore(): CatalogStore {
  const sites = new Map<string, SiteMaps>();
  // Idempotency records and claims, with their expiry. A networked store keeps them beside the
  // products (keys with a TTL, a table swept now and then) and checks the record in its commit.
  const keys = new KeyBook();
  // The tenants registry and its version, which grows with each applied write; a networked store
  // keeps both in one transaction (a row beside the table, a counter key in the same slot).
  const tenants = new Map<string, string>();
  let version = 0;
  // Usage counters with the time they end. A sketch: an expired one is replaced when next added
  // to, never dropped; a real store gives them a TTL, or sweeps them now and then.
  const usage = new Map<string, { total: number; endsAt: number }>();
  // Each site's import history (id -> record, report), and the delivery queue with its leases. A
  // networked store keeps a site's history beside its products (a sorted set, a table keyed by
  // site and id) and the queue in one place every process claims from atomically.
  const histories = new Map<string, Map<string, { value: string; problems?: string | undefined }>>();
  const queue = new Map<string, { id: string; dueAt: number; value: string; lease?: string; leasedUntil: number }>();
  let closed = false;

  function mapsOf(site: Site): SiteMaps {
    let maps = sites.get(siteKey(site));
    if (maps === undefined) {
      maps = { products: new Map(), skus: new Map() };
      sites.set(siteKey(site), maps);
    }
    return maps;
  }

  function idOf({ products, skus }: SiteMaps, key: string, by: KeyField | undefined): string | undefined {
    if (by !== "sku" && products.has(key)) return key;
    return by === "id" ? undefined : skus.get(key);
  }

  function assertOpen(): void {
    // Wrap your backend's failures this way: the server answers 503 with Retry-After.
    if (closed) throw new CatalogError("STORAGE_UNAVAILABLE", "The store is closed");
  }

  return {
    // Products are staged in this process (ImportStaging keeps the last of each id, its position
    // and the claims among the import's ids); a networked store stages in its backend instead
    // (a temporary table, keys with a TTL) and judges there.
    async beginImport(site, { dryRun, replace = false }) {
      assertOpen();
      const staging = new ImportStaging();
      return {
        async add(products, positions, bases) {
          staging.add(products, positions, bases);
        },
        // No await between the judgement and the writes: on Node's single thread that makes the
        // commit atomic. A networked store needs a transaction or a server-side script instead.
        async commit(key) {
          assertOpen();
          // Under an idempotency key: its record, or another import's claim, is the answer.
          const refused = keys.refusal(site, key);
          if (refused) return refused;
          const maps = mapsOf(site);
          const judged = staging.judge(
            {
              get: (id) => {
                const json = maps.products.get(id);
                return json === undefined ? undefined : decodeProduct(json);
              },
              holderOf: (sku) => maps.skus.get(sku),
              size: maps.products.size,
            },
            replace,
          );
          if (!judged.applied || dryRun) {
            staging.clear();
            return judged.applied ? { applied: true, counts: judged.counts } : judged;
          }
          if (replace) {
            maps.products.clear();
            maps.skus.clear();
          }
          // A replace writes every product: the unchanged ones went with the old maps.
          for (const product of replace ? staging.byId.values() : judged.changed) {
            const old = maps.products.get(product.id);
            const oldSku = old === undefined ? undefined : decodeProduct(old).sku;
            // A sku another product of this import has just taken stays with it.
            if (oldSku !== undefined && maps.skus.get(oldSku) === product.id) maps.skus.delete(oldSku);
            maps.products.set(product.id, encodeProduct(product));
            maps.skus.set(product.sku, product.id);
          }
          if (key) keys.record(site, key, judged.counts);
          staging.clear();
          return { applied: true, counts: judged.counts };
        },
        async abort() {
          staging.clear();
        },
      };
    },

    async find(site, key, by) {
      assertOpen();
      const maps = mapsOf(site);
      const id = idOf(maps, key, by);
      const json = id === undefined ? undefined : maps.products.get(id);
      return json === undefined ? undefined : decodeProduct(json);
    },

    async remove(site, key, by, expected) {
      assertOpen();
      const maps = mapsOf(site);
      const id = idOf(maps, key, by);
      const json = id === undefined ? undefined : maps.products.get(id);
      if (id === undefined || json === undefined) return undefined;
      const product = decodeProduct(json);
      // A conditional delete: only while the product is the one the caller read.
      if (expected !== undefined && encodeProduct(expected) !== json) return product;
      maps.products.delete(id);
      maps.skus.delete(product.sku);
      return product;
    },

    // A real store reads an ordered index here (`WHERE id > $after ORDER BY id LIMIT $limit`, a
    // sorted set); sorting every id on every page is what only a sketch may do.
    async list(site, after, limit) {
      assertOpen();
      const { products } = mapsOf(site);
      const ids = [...products.keys()].filter((id) => after === undefined || compareIds(id, after) > 0);
      return ids
        .sort(compareIds)
        .slice(0, limit)
        .map((id) => decodeProduct(products.get(id) as string) as Product);
    },

    async claimKey(site, key, leaseMs) {
      assertOpen();
      return keys.claim(site, key, leaseMs);
    },

    // Unchanged since `since`: nothing to send (a networked store reads the version alone first).
    async readTenants(since) {
      assertOpen();
      if (since === version) return undefined;
      return { version, entries: [...tenants].map(([key, value]) => ({ key, value })) };
    },

    // The condition, the change and the version move in one step (a transaction, a script).
    async writeTenant({ key, value, when }) {
      assertOpen();
      if (tenants.has(key) !== (when === "present")) return false;
      if (value === null) tenants.delete(key);
      else tenants.set(key, value);
      version++;
      return true;
    },

    async countUsage(counts, ttlMs) {
      assertOpen();
      const now = Date.now();
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
      assertOpen();
      // The deliveries first: a record is never seen ended without them.
      for (const d of save.deliveries ?? []) if (!queue.has(d.id)) queue.set(d.id, { ...d, leasedUntil: 0 });
      let history = histories.get(siteKey(site));
      if (history === undefined) histories.set(siteKey(site), (history = new Map()));
      history.set(id, { value, problems: save.problems ?? history.get(id)?.problems });
      if (save.trim === undefined) return;
      const newestFirst = [...history.keys()].sort().reverse();
      for (const [rank, old] of newestFirst.entries()) {
        // The record just saved stays: a long import ends after later ones began.
        if (old !== id && (rank >= save.trim.keep || old < save.trim.before)) history.delete(old);
      }
    },

    async readImport(site, id) {
      assertOpen();
      return histories.get(siteKey(site))?.get(id)?.value;
    },

    async listImports(site, before, limit) {
      assertOpen();
      const history = histories.get(siteKey(site)) ?? new Map();
      const ids = [...history.keys()].filter((id) => before === undefined || id < before);
      return ids
        .sort()
        .reverse()
        .slice(0, limit)
        .map((id) => ({ id, value: history.get(id).value }));
    },

    async readImportProblems(site, id) {
      assertOpen();
      return histories.get(siteKey(site))?.get(id)?.problems;
    },

    async claimDeliveries(now, leaseMs, limit) {
      assertOpen();
      const due = [...queue.values()].filter((d) => d.dueAt <= now && d.leasedUntil <= now);
      return due
        .sort((a, b) => a.dueAt - b.dueAt)
        .slice(0, limit)
        .map((d) => {
          d.lease = crypto.randomUUID();
          d.leasedUntil = now + leaseMs;
          return { id: d.id, dueAt: d.dueAt, value: d.value, lease: d.lease };
        });
    },

    async settleDelivery(id, lease, next) {
      assertOpen();
      if (queue.get(id)?.lease !== lease) return false;
      if (next === undefined) queue.delete(id);
      else queue.set(id, { id, dueAt: next.dueAt, value: next.value, leasedUntil: 0 });
      return true;
    },

    async ping() {
      assertOpen();
    },

    async close() {
      closed = true;
    },
  };
}
