// Merge imports over HTTP (`mode=merge`, `missing`): every way a bulk import arrives (a JSON list,
// csvContent, raw CSV, TSV and NDJSON, gzip-compressed, a platform's feed), each changing only the
// fields it carries; the records that name no product by `missing`; dryRun and Idempotency-Key.
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, expect, it } from "vitest";
import { problemOf } from "./support/problem.ts";
import { describeEachStore } from "./support/stores.ts";
import { product, productPath, SITE_A, startTestServer, type TestServer, TOKENS } from "./support/test-server.ts";

const BULK = "/external/product/v1/bulk";
const CSV = "/external/product/v1/bulk/csv";
const QUERY = `?siteId=${SITE_A.siteId}&siteType=${SITE_A.siteType}`;
const admin = { token: TOKENS.admin };

describeEachStore("merge imports", (store) => {
  let server: TestServer;
  let run = 0;
  // Products of their own for each test: m-<n>-1 to m-<n>-3, skus M-<n>-1 to M-<n>-3, priced 10.
  let ids: string[];
  beforeAll(async () => {
    server = await startTestServer({ store: store.fresh() });
  });
  afterAll(() => server?.close());

  async function seed(): Promise<string[]> {
    run++;
    ids = [1, 2, 3].map((n) => `m-${run}-${n}`);
    const products = ids.map((id) => product(id, id.toUpperCase(), { price: 10, description: "kept" }));
    const seeded = await server.request("POST", BULK + QUERY, { ...admin, json: { products } });
    expect(seeded.status).toBe(200);
    return ids;
  }
  const full = async (id: string) =>
    (await server.request("GET", productPath(id, SITE_A, "&view=full"), admin)).json() as Promise<
      Record<string, unknown>
    >;
  const post = (path: string, query: string, type: string, body: string | Uint8Array, headers = {}) =>
    server.request("POST", `${path}${QUERY}${query}`, {
      ...admin,
      headers: { "content-type": type, ...headers },
      body,
    });

  it("changes only the fields each record carries, by id or by sku, over every channel", async () => {
    const [a, b, c] = await seed();
    const upper = (id: string | undefined) => (id as string).toUpperCase();
    const channels: [string, string, string | Uint8Array, Record<string, string>?][] = [
      [
        BULK,
        "application/json",
        JSON.stringify({
          products: [
            { id: a, price: 11 },
            { sku: upper(b), price: 12 },
          ],
        }),
      ],
      [CSV, "application/json", JSON.stringify({ csvContent: `sku,price,available\n${upper(a)},13,false\n` })],
      [CSV, "text/csv", `id,price\n${b},14\n`],
      [BULK, "text/csv", `sku,available\n${upper(c)},false\n`],
      [CSV, "text/tab-separated-values", `id\tprice\n${c}\t15\n`],
      [BULK, "application/x-ndjson", `${JSON.stringify({ id: a, description: null })}\n`],
      [BULK, "text/csv", gzipSync(`sku,price\n${upper(c)},16\n`), { "content-encoding": "gzip" }],
    ];
    for (const [path, type, body, headers] of channels) {
      const answer = await post(path, "&mode=merge", type, body, headers);
      expect(answer.status, `${path} ${type}`).toBe(200);
      expect(await answer.json()).toMatchObject({ created: 0, skipped: 0, skippedKeys: [] });
    }
    const [first, second, third] = [await full(a as string), await full(b as string), await full(c as string)];
    expect(first).toEqual({ ...product(a as string, upper(a), { price: 13 }), available: false });
    expect(second).toEqual(product(b as string, upper(b), { price: 14, description: "kept" }));
    expect(third).toEqual({ ...product(c as string, upper(c), { price: 16, description: "kept" }), available: false });
  });

  it("answers updated, unchanged, created and skipped, and the keys skipped in request order", async () => {
    const [a, b] = await seed();
    const products = [{ id: a, price: 20 }, { id: b, price: 10 }, { id: "nobody-2" }, { sku: "NOBODY-1" }];
    const skip = await server.request("POST", `${BULK}${QUERY}&mode=merge&missing=skip`, {
      ...admin,
      json: { products },
    });
    expect(await skip.json()).toEqual({
      message: "Imported 2 products: 0 created, 1 updated, 1 unchanged, 2 skipped",
      total: 2,
      created: 0,
      updated: 1,
      unchanged: 1,
      skipped: 2,
      skippedKeys: ["nobody-2", "NOBODY-1"],
      importId: expect.stringMatching(/^[0-9a-f]{28}$/),
    });
    const created = product(`new-${run}`, `NEW-${run}`);
    const create = await server.request("POST", `${BULK}${QUERY}&mode=merge&missing=create`, {
      ...admin,
      json: { products: [{ id: a, price: 21 }, created] },
    });
    expect(await create.json()).toMatchObject({ total: 2, created: 1, updated: 1, skipped: 0 });
    expect(await full(created.id as string)).toEqual(created);
  });

  it("refuses records that name no product with located PRODUCT_NOT_FOUND problems, writing nothing", async () => {
    const [a] = await seed();
    const json = { products: [{ id: a, price: 30 }, { id: "nobody" }, { sku: "NOBODY" }] };
    const refused = await server.request("POST", `${BULK}${QUERY}&mode=merge`, { ...admin, json });
    const body = await problemOf(refused, 400, "PRODUCT_NOT_FOUND");
    expect(body.errors).toEqual([
      { pointer: "/products/1/id", message: expect.any(String), code: "PRODUCT_NOT_FOUND" },
      { pointer: "/products/2/sku", message: expect.any(String), code: "PRODUCT_NOT_FOUND" },
    ]);
    const csv = await post(CSV, "&mode=merge&missing=error", "text/csv", `id,price\n${a},31\nnobody,1\n`);
    expect((await problemOf(csv, 400, "PRODUCT_NOT_FOUND")).errors).toEqual([
      { row: 3, column: "id", message: expect.any(String), code: "PRODUCT_NOT_FOUND" },
    ]);
    expect(await full(a as string)).toMatchObject({ price: 10 });
  });

  it("answers records that name no product 400 under notFoundStatus 404 too: the resource exists", async () => {
    const strict = await startTestServer({ store: store.fresh(), notFoundStatus: 404 });
    try {
      const json = { products: [{ id: "nobody", price: 1 }] };
      const merge = await strict.request("POST", `${BULK}${QUERY}&mode=merge`, { ...admin, json });
      expect((await problemOf(merge, 400, "PRODUCT_NOT_FOUND")).errors).toMatchObject([{ code: "PRODUCT_NOT_FOUND" }]);
      await problemOf(await strict.request("GET", productPath("nobody", SITE_A), admin), 404, "PRODUCT_NOT_FOUND");
    } finally {
      await strict.close();
    }
  });

  it("refuses missing without mode=merge, and bad values of either, naming the parameter", async () => {
    for (const query of ["&missing=skip", "&mode=upsert&missing=create", "&mode=replace&missing=error"]) {
      const answer = await server.request("POST", BULK + QUERY + query, { ...admin, json: { products: [] } });
      expect((await problemOf(answer, 400, "VALIDATION_FAILED")).errors, query).toEqual([
        { parameter: "missing", message: expect.any(String) },
      ]);
    }
    const bad = await post(BULK, "&mode=merge&missing=maybe", "application/x-ndjson", "");
    expect((await problemOf(bad, 400, "VALIDATION_FAILED")).errors).toEqual([
      { parameter: "missing", message: expect.any(String) },
    ]);
    const mode = await post(CSV, "&mode=patch", "text/csv", "id\n");
    expect((await problemOf(mode, 400, "VALIDATION_FAILED")).errors).toMatchObject([{ parameter: "mode" }]);
  });

  it("locates a merge's invalid values, and null for a required field, writing nothing", async () => {
    const [a, b] = await seed();
    const answer = await post(
      BULK,
      "&mode=merge",
      "application/x-ndjson",
      `${JSON.stringify({ id: a, price: -1 })}\n${JSON.stringify({ id: b, title: null })}\n`,
    );
    expect((await problemOf(answer, 400, "VALIDATION_FAILED")).errors).toEqual([
      { line: 1, pointer: "/price", message: expect.any(String) },
      { line: 2, pointer: "/title", message: expect.any(String) },
    ]);
  });

  it("dryRun counts and writes nothing; Idempotency-Key replays the merge and tells missing apart", async () => {
    const [a] = await seed();
    const dry = await post(BULK, "&mode=merge&dryRun=true", "text/csv", `id,price\n${a},40\n`);
    expect(await dry.json()).toMatchObject({ updated: 1, dryRun: true, skipped: 0 });
    expect(await full(a as string)).toMatchObject({ price: 10 });
    const key = { "idempotency-key": `merge-key-${run}` };
    const body = `id,price\n${a},41\nnobody,1\n`;
    const first = await post(BULK, "&mode=merge&missing=skip", "text/csv", body, key);
    expect(await first.json()).toMatchObject({ updated: 1, skipped: 1, skippedKeys: ["nobody"] });
    const again = await post(BULK, "&mode=merge&missing=skip", "text/csv", body, key);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    // The key's record holds the counts the store committed: a replay answers those.
    expect(await again.json()).toMatchObject({ total: 1, updated: 1 });
    const other = await post(BULK, "&mode=merge&missing=create", "text/csv", body, key);
    await problemOf(other, 422, "IDEMPOTENCY_KEY_REUSED");
  });

  it("merges a platform's feed onto the products it names, through its profile", async () => {
    const [a] = await seed();
    const feed = `id\tprice\tavailability\n${a}\t12.50 USD\tout_of_stock\n`;
    const answer = await post(BULK, "&mode=merge&profile=google&currency=USD", "text/tab-separated-values", feed);
    const text = await answer.text();
    expect(answer.status, text).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ updated: 1, profile: "google" });
    expect(await full(a as string)).toMatchObject({ price: 12.5, available: false, description: "kept" });
  });
});
