// The final records of a catalog's imports that the store refused as unavailable, kept and asked
// again behind their answers until they land: a record carries its import's webhook deliveries,
// which are lost with it.
import { isCatalogError } from "./errors.ts";
import type { Site } from "./site.ts";
import type { CatalogStore, HistoryEntry, ImportSave } from "./store.ts";

// Asked again after 0.5 s, doubling to 8 s, for as long as the store is down; what waits is
// bounded: past this many bytes of records, reports and deliveries, a refused save is given up.
const RETRY_MS = 500;
const MAX_RETRY_MS = 8_000;
const MAX_BACKLOG_BYTES = 64 * 1024 * 1024;

// Tries a save once: whether it is done with, saved or refused for good (not as unavailable).
async function landed(store: CatalogStore, site: Site, entry: HistoryEntry, save: ImportSave): Promise<boolean> {
  try {
    await store.saveImport(site, entry, save);
    return true;
  } catch (error) {
    return !isCatalogError(error, "STORAGE_UNAVAILABLE");
  }
}

/** A retry's pause, which `wake` cuts short. */
interface Waiter {
  wake: () => void;
}

/**
 * The final saves of one catalog's imports, retried behind their answers while the store is
 * unavailable, until they land; `close` tries each waiting one once more, at once, and stops.
 */
export class FinalSaves {
  private bytes = 0;
  private closed = false;
  private readonly retrying = new Map<Waiter, Promise<void>>();

  /** Saves `entry` with `save`, retried while the store is unavailable and the backlog has room. */
  async save(store: CatalogStore, site: Site, entry: HistoryEntry, save: ImportSave): Promise<void> {
    if ((await landed(store, site, entry, save)) || this.closed) return;
    const size = entry.value.length + (save.problems?.length ?? 0) + JSON.stringify(save.deliveries ?? []).length;
    if (this.bytes + size > MAX_BACKLOG_BYTES) return;
    this.bytes += size;
    const waiter: Waiter = { wake: () => {} };
    const retry = this.retry(store, site, entry, save, waiter);
    this.retrying.set(waiter, retry);
    try {
      await retry;
    } finally {
      this.bytes -= size;
      this.retrying.delete(waiter);
    }
  }

  private async retry(store: CatalogStore, site: Site, entry: HistoryEntry, save: ImportSave, waiter: Waiter) {
    for (let attempt = 1; !this.closed; attempt++) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(MAX_RETRY_MS, RETRY_MS * 2 ** (attempt - 1))).unref();
        waiter.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (await landed(store, site, entry, save)) return;
    }
  }

  /** Tries every waiting save once more, at once, and none again; resolves when those tries ended. */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.retrying.keys()) waiter.wake();
    await Promise.all(this.retrying.values());
  }
}
