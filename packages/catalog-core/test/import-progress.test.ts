// A running import's record seen from another catalog over the same store (another server, for
// the memory store), the writes it costs, retention by count and age, the whole problem report
// of a refused file, and a final record saved behind the answer while the store is down.
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import {
  CatalogError,
  type CatalogOptions,
  type CatalogStore,
  createCatalog,
  HEARTBEAT_MS,
  type ImportRecord,
} from "@catalog-kit/catalog-core";
import { wrapStaged } from "@catalog-kit/test-support/staged";
import { afterEach, describe, expect, test, vi } from "vitest";
import { failure, product } from "./support/catalog-calls.ts";
import { encodeCsv } from "./support/csv-encode.ts";

const site = { siteId: "shop-1", siteType: "shopify" };
const open = (store: CatalogStore, options: Partial<CatalogOptions> = {}) =>
  createCatalog({ store, sites: [site], ...options });
const line = (i: number) => `${JSON.stringify(product(`p${i}`, `s${i}`))}\n`;

// A store that notes when each save of the history happens, and fails the first `failing` ones
// (`outage.failing`, which a test may change; `outage.asked` counts every save asked).
function watched(store: CatalogStore, failing = 0) {
  const saves: { at: number; state: string }[] = [];
  const outage = { failing, asked: 0 };
  const spy: CatalogStore = {
    ...store,
    async saveImport(s, entry, save) {
      outage.asked++;
      if (outage.failing-- > 0) throw new CatalogError("STORAGE_UNAVAILABLE", "down for now");
      saves.push({ at: Date.now(), state: (JSON.parse(entry.value) as ImportRecord).state });
      return store.saveImport(s, entry, save);
    },
  };
  return { spy, saves, outage };
}

// A body whose chunks are let through one `release()` at a time.
function gated(): { body: AsyncGenerator<string>; release: (chunk: string | null) => void } {
  const queue: (string | null)[] = [];
  let wake: (() => void) | undefined;
  return {
    release(chunk) {
      queue.push(chunk);
      wake?.();
    },
    body: (async function* () {
      for (;;) {
        while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        const chunk = queue.shift() as string | null;
        if (chunk === null) return;
        yield chunk;
      }
    })(),
  };
}

const until = async <T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 3_000): Promise<T> => {
  for (const end = Date.now() + ms; ; await new Promise((r) => setTimeout(r, 50))) {
    const value = await read();
    if (done(value) || Date.now() > end) return value;
  }
};

afterEach(() => {
  vi.useRealTimers();
});

describe("import progress", () => {
  test("a slow upload's progress is seen from another server, written at most once a second", async () => {
    const store = createMemoryStore();
    const { spy, saves } = watched(store);
    const running = open(spy);
    const other = open(store);
    const { body, release } = gated();
    const started = Date.now();
    const done = running.importStream(site, body, { format: "ndjson", requestId: "upload-1" });
    release(line(0) + line(1));
    const seen = await until(
      () => other.listImports(site, { requestId: "upload-1" }),
      (page) => page.imports[0]?.productsRead === 2,
    );
    const first = seen.imports[0] as ImportRecord;
    expect(first).toMatchObject({ state: "receiving", productsRead: 2, bytesReceived: line(0).length * 2 });
    release(line(2));
    const later = await until(
      () => other.getImport(site, first.importId),
      (record) => record.productsRead === 3,
    );
    expect(later).toMatchObject({ state: "receiving", bytesReceived: first.bytesReceived + line(2).length });
    release(null);
    const summary = await done;
    expect(await other.getImport(site, first.importId)).toMatchObject({
      state: "succeeded",
      productsRead: 3,
      counts: { created: 3 },
      importId: summary.importId,
    });
    const seconds = (Date.now() - started) / 1000;
    const progress = saves.filter(({ state }) => state === "receiving");
    expect(progress.length).toBeGreaterThanOrEqual(2);
    // One write a second while it runs, then the final one.
    expect(saves.length).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    for (let i = 1; i < progress.length; i++)
      expect((progress[i]?.at ?? 0) - (progress[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(900);
  });

  test("an import that ends within a second is written once", async () => {
    const { spy, saves } = watched(createMemoryStore());
    await open(spy).importProducts(site, [product("a", "sa")]);
    await failure(open(spy).importProducts(site, [{}]));
    expect(saves.map(({ state }) => state)).toEqual(["succeeded", "failed"]);
  });

  test("an import that stalls is written once, then every heartbeat; its commit is seen as committing", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout", "Date"] });
    const store = createMemoryStore();
    let commit: (() => void) | undefined;
    const slow = wrapStaged(store, (staged) => ({
      commit: async (key) => {
        await new Promise<void>((resolve) => (commit = resolve));
        return staged.commit(key);
      },
    }));
    const { spy, saves } = watched(slow);
    const { body, release } = gated();
    const done = open(spy).importStream(site, body, { format: "ndjson" });
    release(line(0));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(saves.map(({ state }) => state)).toEqual(["receiving"]);
    await vi.advanceTimersByTimeAsync(HEARTBEAT_MS - 1_000);
    expect(saves).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(saves).toHaveLength(2);
    release(null);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(saves.at(-1)?.state).toBe("committing");
    await vi.advanceTimersByTimeAsync(HEARTBEAT_MS);
    expect(saves.filter(({ state }) => state === "committing").length).toBe(2);
    commit?.();
    await vi.advanceTimersByTimeAsync(0);
    expect(await done).toMatchObject({ created: 1 });
    expect(saves.at(-1)?.state).toBe("succeeded");
  });

  test("never two saves of one import at once: a slow save holds the next, the final one included", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout", "Date"] });
    const store = createMemoryStore();
    let inFlight = 0;
    let most = 0;
    const states: string[] = [];
    const slow: CatalogStore = {
      ...store,
      async saveImport(s, entry, save) {
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 2_500));
        states.push((JSON.parse(entry.value) as ImportRecord).state);
        await store.saveImport(s, entry, save);
        inFlight--;
      },
    };
    const { body, release } = gated();
    const done = open(slow).importStream(site, body, { format: "ndjson" });
    release(line(0));
    await vi.advanceTimersByTimeAsync(1_200);
    release(line(1));
    await vi.advanceTimersByTimeAsync(1_000);
    release(null);
    await vi.advanceTimersByTimeAsync(6_000);
    await done;
    expect(most).toBe(1);
    expect(states).toEqual(["receiving", "succeeded"]);
  });

  test("a final save the store refuses is made again behind the answer, which does not wait long", async () => {
    const store = createMemoryStore();
    const { spy } = watched(store, 2);
    const started = Date.now();
    const summary = await open(spy).importProducts(site, [product("a", "sa")]);
    expect(Date.now() - started).toBeLessThan(1_500);
    const record = await until(
      () => store.readImport(site, summary.importId as string),
      (value) => value !== undefined,
    );
    expect(JSON.parse(record as string)).toMatchObject({ state: "succeeded" });
  });
});

test("an import the store failed is answered at once, its record saved once the store is back", async () => {
  const store = createMemoryStore();
  const { spy } = watched(store, 1);
  const down: CatalogStore = {
    ...spy,
    beginImport: () => Promise.reject(new CatalogError("STORAGE_UNAVAILABLE", "down")),
  };
  const started = Date.now();
  const error = await failure(open(down).importProducts(site, [product("a", "sa")]));
  expect(error.code).toBe("STORAGE_UNAVAILABLE");
  expect(Date.now() - started).toBeLessThan(400);
  const saved = await until(
    () => store.readImport(site, error.importId as string),
    (value) => value !== undefined,
  );
  expect(JSON.parse(saved as string)).toMatchObject({ state: "failed", error: { code: "STORAGE_UNAVAILABLE" } });
});

describe("a store down at an import's end", () => {
  // Timers only: import ids follow the clock, and one moved minutes ahead would outlive the test.
  const fakeTimers = () => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
  // A call answered while fake timers run: its answer waits a second for its final record.
  async function answered<T>(call: Promise<T>): Promise<T> {
    await vi.advanceTimersByTimeAsync(1_000);
    return call;
  }
  const delivering = {
    history: {
      deliveries: (record: ImportRecord) => [{ id: `d-${record.importId}`, dueAt: 0, value: record.state }],
    },
  };

  test("keeps the final record and its deliveries until the store is back, minutes later", async () => {
    fakeTimers();
    const store = createMemoryStore();
    const { spy, outage } = watched(store, Number.POSITIVE_INFINITY);
    const catalog = open(spy, delivering);
    const summary = await answered(catalog.importProducts(site, [product("a", "sa")]));
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(await store.readImport(site, summary.importId as string)).toBeUndefined();
    // Retried no more often than every 8 s.
    expect(outage.asked).toBeLessThanOrEqual(8 + (10 * 60) / 8);
    outage.failing = 0;
    await vi.advanceTimersByTimeAsync(8_000);
    expect(JSON.parse((await store.readImport(site, summary.importId as string)) as string)).toMatchObject({
      state: "succeeded",
    });
    const claimed = await store.claimDeliveries(Date.now(), 60_000, 10);
    expect(claimed.map((d) => d.id)).toEqual([`d-${summary.importId}`]);
  });

  test("close tries each waiting record once more, at once, then stops", async () => {
    fakeTimers();
    const { spy, outage } = watched(createMemoryStore(), Number.POSITIVE_INFINITY);
    const catalog = open(spy);
    await answered(catalog.importProducts(site, [product("a", "sa")]));
    await answered(failure(catalog.importProducts(site, [{}])));
    await vi.advanceTimersByTimeAsync(60_000);
    const before = outage.asked;
    await catalog.close();
    expect(outage.asked).toBe(before + 2);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(outage.asked).toBe(before + 2);
  });

  test("close lands what the store takes again", async () => {
    fakeTimers();
    const store = createMemoryStore();
    const { spy, outage } = watched(store, Number.POSITIVE_INFINITY);
    const catalog = open(spy);
    const summary = await answered(catalog.importProducts(site, [product("a", "sa")]));
    await vi.advanceTimersByTimeAsync(60_000);
    outage.failing = 0;
    await catalog.close();
    expect(await store.readImport(site, summary.importId as string)).toBeDefined();
  });

  test("waits with at most 64 MiB of records: past it, a refused final save is given up", async () => {
    fakeTimers();
    const store = createMemoryStore();
    const { spy, outage } = watched(store, Number.POSITIVE_INFINITY);
    // Each record's deliveries carry 20 MiB: the fourth no longer fits.
    const big = "x".repeat(20 * 1024 * 1024);
    const catalog = open(spy, { history: { deliveries: () => [{ id: "d", dueAt: 0, value: big }] } });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++)
      ids.push((await answered(catalog.importProducts(site, [product(`p${i}`, `s${i}`)]))).importId as string);
    await vi.advanceTimersByTimeAsync(60_000);
    outage.failing = 0;
    await vi.advanceTimersByTimeAsync(8_000);
    const saved = await Promise.all(ids.map((id) => store.readImport(site, id)));
    expect(saved.map((record) => record !== undefined)).toEqual([true, true, true, false]);
  });
});

describe("retention", () => {
  test("a site's history never holds more than `keep` records: the newest", async () => {
    const store = createMemoryStore();
    const catalog = open(store, { history: { keep: 3 } });
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const call =
        i % 3 === 0 ? catalog.importProduct(site, {}) : catalog.importProduct(site, product(`p${i}`, `s${i}`));
      ids.unshift(
        await call.then(
          (s) => s.importId as string,
          (e: CatalogError) => e.importId as string,
        ),
      );
      const held = await store.listImports(site, undefined, 1_000);
      expect(held.length).toBeLessThanOrEqual(3);
      expect(held.map(({ id }) => id)).toEqual(ids.slice(0, 3));
    }
    // A record's report goes with it.
    expect(await store.readImportProblems(site, ids[9] as string)).toBeUndefined();
  });

  test("an import that ran long keeps its record when `keep` later ones ended before it", async () => {
    const store = createMemoryStore();
    const catalog = open(store, { history: { keep: 3 } });
    const { body, release } = gated();
    const long = catalog.importStream(site, body, { format: "ndjson" });
    release(line(0));
    for (let i = 1; i <= 4; i++) await catalog.importProduct(site, product(`q${i}`, `t${i}`));
    release(null);
    const { importId } = await long;
    // Its answer's id is there to read, beside the newest three of those that began later.
    await expect(catalog.getImport(site, importId as string)).resolves.toMatchObject({ state: "succeeded" });
    expect(await store.listImports(site, undefined, 10)).toHaveLength(4);
  });

  test("records older than maxAgeMs are trimmed by the next save, and never listed", async () => {
    const store = createMemoryStore();
    const catalog = open(store, { history: { maxAgeMs: 50 } });
    const old = await catalog.importProduct(site, product("a", "sa"));
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect((await catalog.listImports(site)).imports).toEqual([]);
    await expect(catalog.getImport(site, old.importId as string)).resolves.toMatchObject({ state: "succeeded" });
    const young = await catalog.importProduct(site, product("b", "sb"));
    expect((await store.listImports(site, undefined, 10)).map(({ id }) => id)).toEqual([young.importId]);
  });

  test("bad history options are a RangeError naming them", () => {
    for (const history of [{ keep: 0 }, { maxAgeMs: -1 }, { maxReportProblems: 1.5 }])
      expect(() => open(createMemoryStore(), { history })).toThrow(RangeError);
  });
});

describe("problem report", () => {
  test("a refused 100,000-row CSV: the error lists 100, the report 10,000, the total beside", async () => {
    const catalog = open(createMemoryStore());
    const [header, row] = encodeCsv([product("p", "s", { price: -1 })]).split("\n") as [string, string];
    const rows: string[] = [header];
    for (let i = 0; i < 100_000; i++) rows.push(row.replace("p,s,", `p${i},s${i},`));
    const error = await failure(catalog.importCsv(site, `${rows.join("\n")}\n`));
    expect(error.problems).toHaveLength(100);
    expect(error.errorCount).toBe(100_000);
    const report = await catalog.importProblems(site, error.importId as string);
    expect(report.total).toBe(100_000);
    expect(report.problems).toHaveLength(10_000);
    expect(report.problems.slice(0, 100)).toEqual(error.problems);
    expect(report.problems.map(({ row: at }) => at)).toEqual(Array.from({ length: 10_000 }, (_, i) => i + 2));
    expect(report.problems[9_999]).toMatchObject({ row: 10_001, column: "price" });
    const record = await catalog.getImport(site, error.importId as string);
    expect(record).toMatchObject({ problemCount: 100_000, state: "failed" });
    expect(record.problems).toEqual(error.problems);
  }, 30_000);

  test("sku conflicts and structure problems are in the report, up to maxReportProblems", async () => {
    const catalog = open(createMemoryStore(), { history: { maxReportProblems: 150 } });
    const clashing = Array.from({ length: 200 }, (_, i) => product(`p${i}`, "same"));
    const conflict = await failure(catalog.importProducts(site, clashing));
    expect(conflict.code).toBe("SKU_CONFLICT");
    const report = await catalog.importProblems(site, conflict.importId as string);
    expect(report).toMatchObject({ total: 199 });
    expect(report.problems).toHaveLength(150);
    expect(report.problems[149]).toMatchObject({ sku: "same", heldBy: "p0" });
    const lines = Array.from({ length: 120 }, () => "{not json\n").join("");
    const malformed = await failure(catalog.importStream(site, [lines], { format: "ndjson" }));
    expect(malformed.code).toBe("INVALID_JSON");
    const structure = await catalog.importProblems(site, malformed.importId as string);
    expect(structure.total).toBe(120);
    expect(structure.problems.map(({ line: at }) => at)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    // A success has no problems.
    const ok = await catalog.importProduct(site, product("z", "sz"));
    expect(await catalog.importProblems(site, ok.importId as string)).toEqual({ problems: [], total: 0 });
  });
});
