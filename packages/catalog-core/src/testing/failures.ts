// The failure clauses of the storage contract: a store whose backend is gone rejects every call
// with STORAGE_UNAVAILABLE (its ping included), and a closed store has let go of its backend.
// The suite cannot reach a backend by itself, so the adapter's test harness lends it a store it
// can break, or says why no backend can be lost; the checks are plain functions, so that the
// suite's own tests can prove that each one fails on a store that breaks its clause.
import { isCatalogError } from "../errors.ts";
import type { CatalogStore } from "../store.ts";
import { sampleProduct, uniqueSite } from "./arbitraries.ts";
import { upsert } from "./write.ts";

/** Why a clause does not apply to a store, said in the suite's output (the clause is not run). */
export interface NotApplicable {
  readonly notApplicable: string;
}

/** A fresh store of the harness's, and the means to make its backend unreachable for good. */
export interface BreakableStore {
  readonly store: CatalogStore;
  /** Makes the backend unreachable (a server of the store's own, killed); the store is not told. */
  breakBackend(): Promise<void>;
}

/** Each call of the store once, on a site of its own. */
function everyCall(store: CatalogStore): Record<string, () => Promise<unknown>> {
  const site = uniqueSite();
  return {
    ping: () => store.ping(),
    find: () => store.find(site, "a"),
    remove: () => store.remove(site, "a"),
    list: () => store.list(site, undefined, 10),
    claimKey: () => store.claimKey(site, "key", 60_000),
    readTenants: () => store.readTenants(),
    writeTenant: () => store.writeTenant({ key: `test:${crypto.randomUUID()}`, value: "{}", when: "absent" }),
    countUsage: () => store.countUsage([{ key: `usage:${crypto.randomUUID()}`, amount: 1 }], 60_000),
    saveImport: () => store.saveImport(site, { id: "000000000001a", value: "{}" }),
    readImport: () => store.readImport(site, "000000000001a"),
    listImports: () => store.listImports(site, undefined, 10),
    readImportProblems: () => store.readImportProblems(site, "000000000001a"),
    // At the epoch's start, when no delivery of any test is due: a store that wrongly answers leases nothing.
    claimDeliveries: () => store.claimDeliveries(0, 60_000, 10),
    settleDelivery: () => store.settleDelivery(`d${crypto.randomUUID()}`, "lease"),
    import: async () => {
      const staged = await store.beginImport(site, { dryRun: false });
      await staged.add([sampleProduct("b", "s2")], [1]);
      return staged.commit();
    },
  };
}

// Every call must reject with STORAGE_UNAVAILABLE. Its cause is not required: a store that sees
// its connection is down before it sends anything has no error of the backend's to pass on.
async function expectEveryCallUnavailable(store: CatalogStore, when: string): Promise<void> {
  for (const [name, call] of Object.entries(everyCall(store))) {
    const outcome = await call().then(
      (value) => ({ resolved: value }),
      (error: unknown) => ({ rejected: error }),
    );
    if (!("rejected" in outcome)) throw new Error(`${name} ${when} resolved; it must reject with STORAGE_UNAVAILABLE`);
    const error = outcome.rejected;
    if (!isCatalogError(error, "STORAGE_UNAVAILABLE"))
      throw new Error(`${name} ${when} rejected with ${String(error)}, not a CatalogError STORAGE_UNAVAILABLE`, {
        cause: error,
      });
  }
}

/**
 * The clause on a lost backend: the store works, then, its backend gone, `ping` and every other
 * call reject with `STORAGE_UNAVAILABLE`, never with the backend's own error unwrapped.
 */
export async function checkLostBackend(open: () => Promise<BreakableStore>): Promise<void> {
  const { store, breakBackend } = await open();
  try {
    const site = uniqueSite();
    const written = await upsert(store, site, [sampleProduct("a", "s1")], { dryRun: false });
    if (!written.applied) throw new Error("an import into an empty site was refused before the backend was broken");
    await store.ping();
    await breakBackend();
    await expectEveryCallUnavailable(store, "with the backend unreachable");
  } finally {
    await store.close();
  }
}

/**
 * The clause on `close`: a store that opened its backend lets go of it, so that every call
 * after `close` rejects with `STORAGE_UNAVAILABLE`, `ping` included; a second `close` resolves.
 */
export async function checkClosed(createStore: () => CatalogStore | Promise<CatalogStore>): Promise<void> {
  const store = await createStore();
  const written = await upsert(store, uniqueSite(), [sampleProduct("a", "s1")], { dryRun: false });
  if (!written.applied) throw new Error("an import into an empty site was refused before the store was closed");
  await store.close();
  await expectEveryCallUnavailable(store, "after close");
  await store.close();
}
