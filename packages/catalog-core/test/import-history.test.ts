// The import history through the catalog, on the memory store: a record for each channel and
// outcome, errors and summaries carrying its id, the end's callback and deliveries, records of
// a server that stopped, and the reads' options.
import { createMemoryStore } from "@catalog-kit/adapter-memory";
import {
  type CatalogOptions,
  type CatalogStore,
  createCatalog,
  type ImportListOptions,
  type ImportRecord,
  ImportRecordSchema,
} from "@catalog-kit/catalog-core";
import { fc, test } from "@fast-check/vitest";
import * as v from "valibot";
import { describe, expect } from "vitest";
import { failure, product } from "./support/catalog-calls.ts";
import { encodeCsv } from "./support/csv-encode.ts";
import { IMPORT_ID } from "./support/import-ids.ts";

const site = { siteId: "shop-1", siteType: "shopify" };
const who = { requestId: "req-1", tokenName: "erp" };

function open(options: Partial<CatalogOptions> = {}, store: CatalogStore = createMemoryStore()) {
  return { store, catalog: createCatalog({ store, sites: [site], ...options }) };
}

// The record of `importId`, checked against its schema.
async function recordOf(catalog: ReturnType<typeof open>["catalog"], importId: string): Promise<ImportRecord> {
  const record = await catalog.getImport(site, importId);
  expect(v.safeParse(ImportRecordSchema, record).success).toBe(true);
  return record;
}

describe("import history", () => {
  test("a record for each channel and outcome, telling the channels apart", async () => {
    const { catalog } = open();
    const csv = encodeCsv([product("c", "sc")]);
    const listed = await catalog.importProducts(site, [product("a", "sa")], { ...who, bytesReceived: 123 });
    expect(await recordOf(catalog, listed.importId as string)).toMatchObject({
      importId: listed.importId,
      siteId: "shop-1",
      siteType: "shopify",
      channel: "body",
      format: "products",
      mode: "upsert",
      dryRun: false,
      state: "succeeded",
      bytesReceived: 123,
      productsRead: 1,
      counts: { total: 1, created: 1, updated: 0, unchanged: 0 },
      problemCount: 0,
      problems: [],
      requestId: "req-1",
      tokenName: "erp",
    });
    const dry = await catalog.importProduct(site, product("b", "sb"), { dryRun: true });
    expect(await recordOf(catalog, dry.importId as string)).toMatchObject({
      channel: "body",
      format: "product",
      dryRun: true,
      state: "succeeded",
      counts: { created: 1 },
    });
    const invalid = encodeCsv([product("c", "sc"), product("d", "sd", { price: -1 })]);
    const bad = await failure(catalog.importCsv(site, invalid, { mode: "replace" }));
    expect(bad.importId).toEqual(IMPORT_ID);
    const refused = await recordOf(catalog, bad.importId as string);
    expect(refused).toMatchObject({ channel: "body", format: "csv", mode: "replace", state: "failed" });
    expect(refused.error).toEqual({ code: "VALIDATION_FAILED", message: bad.message });
    expect(refused.problems).toEqual(bad.problems);
    expect(refused.problemCount).toBe(bad.errorCount);
    expect(refused.endedAt).toBeDefined();
    const raw = await catalog.importStream(site, [Buffer.from(csv)], { format: "csv" });
    expect(await recordOf(catalog, raw.importId as string)).toMatchObject({
      channel: "stream",
      format: "csv",
      bytesReceived: Buffer.byteLength(csv),
      state: "succeeded",
    });
    const line = `${JSON.stringify(product("n", "sn"))}\n`;
    const key = { format: "ndjson", idempotencyKey: "key-1" } as const;
    const first = await catalog.importStream(site, [line], key);
    const replay = await catalog.importStream(site, [line], key);
    expect(replay.importId).not.toBe(first.importId);
    expect(await recordOf(catalog, replay.importId as string)).toMatchObject({
      channel: "stream",
      format: "ndjson",
      state: "succeeded",
      replayed: true,
      idempotencyKey: "key-1",
    });
    // Newest first, every one of them.
    const ids = [listed, dry, { importId: bad.importId }, raw, first, replay].map((s) => s.importId).reverse();
    expect((await catalog.listImports(site)).imports.map((r) => r.importId)).toEqual(ids);
  });

  test("refused ones are recorded, but not a call to a site that does not exist", async () => {
    const { catalog, store } = open();
    const badMode = await failure(catalog.importProducts(site, [], { mode: "sideways" as "upsert" }));
    expect(await recordOf(catalog, badMode.importId as string)).toMatchObject({ state: "failed", mode: "upsert" });
    const notList = await failure(catalog.importProducts(site, { products: 1 }));
    expect((await recordOf(catalog, notList.importId as string)).error?.code).toBe("VALIDATION_FAILED");
    const nowhere = { siteId: "nope", siteType: "shopify" };
    expect((await failure(catalog.importProducts(nowhere, []))).importId).toBeUndefined();
    expect(await store.listImports(nowhere, undefined, 10)).toEqual([]);
    await expect(catalog.listImports(nowhere)).rejects.toMatchObject({ code: "SITE_NOT_FOUND" });
  });

  test("onImportEnd and deliveries are called once per import, with its final record", async () => {
    const ended: ImportRecord[] = [];
    const asked: ImportRecord[] = [];
    const { catalog, store } = open({
      history: {
        onImportEnd: (record) => {
          ended.push(record);
          throw new Error("the callback's own error is not the import's");
        },
        deliveries: (record) => {
          asked.push(record);
          return [{ id: `d-${record.importId}`, dueAt: 0, value: JSON.stringify({ state: record.state }) }];
        },
      },
    });
    const ok = await catalog.importProducts(site, [product("a", "sa")]);
    const bad = await failure(catalog.importProduct(site, { id: "x" }));
    expect(ended.map((r) => [r.importId, r.state])).toEqual([
      [ok.importId, "succeeded"],
      [bad.importId, "failed"],
    ]);
    expect(asked).toEqual(ended);
    expect(ended[0]).toEqual(await catalog.getImport(site, ok.importId as string));
    const claimed = await store.claimDeliveries(Date.now(), 60_000, 10);
    expect(claimed.map((d) => d.id).sort()).toEqual([`d-${ok.importId}`, `d-${bad.importId}`].sort());
  });

  test("history: false records nothing, and imports carry no id", async () => {
    const { catalog, store } = open({ history: false });
    const summary = await catalog.importProducts(site, [product("a", "sa")]);
    expect(summary).not.toHaveProperty("importId");
    expect((await failure(catalog.importProduct(site, {}))).importId).toBeUndefined();
    expect(await store.listImports(site, undefined, 10)).toEqual([]);
  });

  test("a record left running by a server that stopped is failed, IMPORT_INTERRUPTED, when read", async () => {
    const { catalog, store } = open();
    const stale = new Date(Date.now() - 60_000).toISOString();
    // Ids of now, as the catalog makes them: a record older than the history's age is not listed.
    const now = Date.now().toString(16).padStart(12, "0");
    const idAt = (n: number) => `${now}${n}`;
    const running = (id: string, state: string, updatedAt: string) => ({
      id,
      value: JSON.stringify({
        importId: id,
        ...site,
        channel: "stream",
        format: "csv",
        mode: "upsert",
        dryRun: false,
        state,
        startedAt: stale,
        updatedAt,
        bytesReceived: 10,
        productsRead: 1,
        problemCount: 0,
        problems: [],
      }),
    });
    await store.saveImport(site, running(idAt(1), "committing", stale));
    await store.saveImport(site, running(idAt(2), "receiving", stale));
    await store.saveImport(site, running(idAt(3), "receiving", new Date().toISOString()));
    const committing = await catalog.getImport(site, idAt(1));
    expect(committing).toMatchObject({ state: "failed", error: { code: "IMPORT_INTERRUPTED" } });
    expect(committing.error?.message).toMatch(/stopped.*may have been written.*idempotency key/);
    expect((await catalog.getImport(site, idAt(2))).error?.message).toMatch(/stopped.*nothing was written/);
    expect((await catalog.getImport(site, idAt(3))).state).toBe("receiving");
    const failed = await catalog.listImports(site, { state: "failed" });
    expect(failed.imports.map((r) => r.importId)).toEqual([idAt(2), idAt(1)]);
    // Computed when read: the store still holds what was written.
    expect(JSON.parse((await store.readImport(site, idAt(1))) as string).state).toBe("committing");
  });

  test("an id the history does not hold, or could not, is IMPORT_NOT_FOUND", async () => {
    const { catalog } = open();
    for (const id of ["0123456789abcdef", "../x", "", "a".repeat(65), "é"])
      await expect(catalog.getImport(site, id)).rejects.toMatchObject({ code: "IMPORT_NOT_FOUND" });
    await expect(catalog.importProblems(site, "00ff")).rejects.toMatchObject({ code: "IMPORT_NOT_FOUND" });
  });

  // Imports of three keys and two request ids, some failed: every filter and page size walks
  // to exactly the records it keeps, newest first; a bad option names itself.
  test.prop(
    [
      fc.array(fc.record({ key: fc.constantFrom("k1", "k2", undefined), ok: fc.boolean() }), { maxLength: 12 }),
      fc.record(
        {
          limit: fc.oneof(fc.integer({ min: -2, max: 14 }), fc.constant(1.5), fc.constant(1_001)),
          state: fc.constantFrom("succeeded", "failed", "receiving", "done"),
          idempotencyKey: fc.constantFrom("k1", "k2", ""),
          requestId: fc.constantFrom("r0", "r1", "x".repeat(256)),
        },
        { requiredKeys: [] },
      ),
    ],
    { numRuns: 40 },
  )("listImports pages through what its filters keep, newest first, and names a bad option", async (runs, given) => {
    // A bad state is given as the caller's mistake it is.
    const options = given as ImportListOptions;
    const { catalog } = open();
    const made: ImportRecord[] = [];
    for (const [i, { key, ok }] of runs.entries()) {
      const call = catalog.importProduct(site, ok ? product(`p${i}`, `s${i}`) : {}, {
        requestId: `r${i % 2}`,
        ...(key === undefined ? {} : { idempotencyKey: key }),
      });
      const id = await call.then(
        (s) => s.importId,
        (e: { importId: string }) => e.importId,
      );
      made.unshift(await catalog.getImport(site, id as string));
    }
    const bad =
      options.limit !== undefined && !(Number.isInteger(options.limit) && options.limit >= 1 && options.limit <= 1_000)
        ? "limit"
        : (options.state as string) === "done"
          ? "state"
          : options.idempotencyKey === ""
            ? "idempotencyKey"
            : options.requestId !== undefined && options.requestId.length > 255
              ? "requestId"
              : undefined;
    if (bad !== undefined) {
      const error = await failure(catalog.listImports(site, options));
      expect(error.code).toBe("VALIDATION_FAILED");
      expect(error.problems[0]?.parameter).toBe(bad);
      return;
    }
    const kept = made.filter(
      (r) =>
        (options.state === undefined || r.state === options.state) &&
        (options.idempotencyKey === undefined || r.idempotencyKey === options.idempotencyKey) &&
        (options.requestId === undefined || r.requestId === options.requestId),
    );
    const walked: ImportRecord[] = [];
    let cursor: string | undefined;
    do {
      const page = await catalog.listImports(site, { ...options, ...(cursor === undefined ? {} : { cursor }) });
      expect(page.imports.length).toBeLessThanOrEqual(options.limit ?? 100);
      walked.push(...page.imports);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(walked).toEqual(kept);
  });

  test("a cursor that is no id is VALIDATION_FAILED naming it", async () => {
    const { catalog } = open();
    const error = await failure(catalog.listImports(site, { cursor: "a/b" }));
    expect(error.problems[0]?.parameter).toBe("cursor");
  });
});
