// The conformance suite's failure clauses catch the stores that break them: a close that does
// nothing, a ping that never fails, a backend error passed on unwrapped.
// Each store here is the memory store behind a pretend backend that a flag takes down.
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import { describe, expect, it } from "vitest";
import { CatalogError } from "../src/errors.ts";
import type { CatalogStore, StagedImport } from "../src/store.ts";
import { checkClosed, checkLostBackend } from "../src/testing/failures.ts";
import { checkReadModifyWrites } from "../src/testing/preconditions.ts";

interface Faults {
  readonly closeDoesNothing?: boolean;
  readonly pingNeverFails?: boolean;
  readonly unwrapped?: boolean;
}

// A store whose pretend backend is down once `down` is set or the store is closed; `faults`
// make it break one clause each.
function flaggedStore(faults: Faults = {}) {
  const inner = createMemoryStore();
  const state = { down: false, closed: false };
  const guard = () => {
    if (!state.down && !state.closed) return;
    const cause = new Error("connect ECONNREFUSED 127.0.0.1:1");
    if (faults.unwrapped) throw cause;
    throw new CatalogError("STORAGE_UNAVAILABLE", "The backend is unreachable", { cause });
  };
  const guarded =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      guard();
      return call(...args);
    };
  const store: CatalogStore = {
    beginImport: guarded(async (site, options) => {
      const staged = await inner.beginImport(site, options);
      const wrapped: StagedImport = {
        add: guarded((products, positions) => staged.add(products, positions)),
        commit: guarded((key) => staged.commit(key)),
        abort: () => staged.abort(),
      };
      return wrapped;
    }),
    find: guarded((site, key, by) => inner.find(site, key, by)),
    remove: guarded((site, key, by) => inner.remove(site, key, by)),
    list: guarded((site, after, limit) => inner.list(site, after, limit)),
    claimKey: guarded((site, key, leaseMs) => inner.claimKey(site, key, leaseMs)),
    readTenants: guarded((since) => inner.readTenants(since)),
    writeTenant: guarded((change) => inner.writeTenant(change)),
    countUsage: guarded((counts, ttlMs) => inner.countUsage(counts, ttlMs)),
    saveImport: guarded((site, entry, save) => inner.saveImport(site, entry, save)),
    readImport: guarded((site, id) => inner.readImport(site, id)),
    listImports: guarded((site, before, limit) => inner.listImports(site, before, limit)),
    readImportProblems: guarded((site, id) => inner.readImportProblems(site, id)),
    claimDeliveries: guarded((now, leaseMs, limit) => inner.claimDeliveries(now, leaseMs, limit)),
    settleDelivery: guarded((id, lease, next) => inner.settleDelivery(id, lease, next)),
    ping: faults.pingNeverFails ? async () => {} : guarded(async () => {}),
    close: async () => {
      if (!faults.closeDoesNothing) state.closed = true;
    },
  };
  return { store, breakBackend: async () => void (state.down = true) };
}

describe("the clause on a lost backend", () => {
  it("passes a store that rejects every call with STORAGE_UNAVAILABLE", async () => {
    await expect(checkLostBackend(async () => flaggedStore())).resolves.toBeUndefined();
  });

  it.each([
    ["a ping that never fails", { pingNeverFails: true }, /ping .*resolved/],
    ["a backend error passed on unwrapped", { unwrapped: true }, /not a CatalogError STORAGE_UNAVAILABLE/],
  ] as const)("fails %s", async (_, faults, message) => {
    await expect(checkLostBackend(async () => flaggedStore(faults))).rejects.toThrow(message);
  });
});

describe("the clause on close", () => {
  it("passes a store that lets go of its backend on close", async () => {
    await expect(checkClosed(() => flaggedStore().store)).resolves.toBeUndefined();
  });

  it("fails a close that does nothing", async () => {
    await expect(checkClosed(() => flaggedStore({ closeDoesNothing: true }).store)).rejects.toThrow(
      /after close resolved/,
    );
  });
});

describe("the clause on concurrent read-modify-writes", () => {
  // The memory store, deaf to bases: every commit writes what it was given.
  function baseless(): CatalogStore {
    const inner = createMemoryStore();
    return {
      ...inner,
      async beginImport(site, options) {
        const staged = await inner.beginImport(site, options);
        return {
          add: (products, positions) => staged.add(products, positions),
          commit: staged.commit,
          abort: staged.abort,
        };
      },
    };
  }

  it("passes a store that checks bases", async () => {
    await expect(checkReadModifyWrites(createMemoryStore(), ["title", "price", "url"], 1)).resolves.toBeUndefined();
  });

  it("fails a store that ignores bases: a concurrent update is lost", async () => {
    await expect(checkReadModifyWrites(baseless(), ["title", "price", "url"], 1)).rejects.toThrow();
  });
});
