// The root README's "The rules", one answer each: a rule gives the same answer whichever way the
// products arrive. Every case of support/one-answer-*.ts is sent over every channel that can carry
// it (bulk JSON, csvContent, single product, raw CSV, raw NDJSON, gzip raw bodies; see
// support/channels.ts), each on a fresh site, and the answers must agree: status, code, detail,
// errorCount, the entries beyond their locations (which must name the same product and field),
// success bodies, and the site afterwards. Then random product lists, valid and not, encodable
// everywhere, must too. On the memory store, Redis, Redis Cluster and PostgreSQL, each behind one server;
// the cases refused before the store on the first of them only, where the test checks they never reach it.
import { documentSource } from "@catalog-kit/catalog-core";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHANNELS, type Channel, type CsvText, toCsv, toNdjson } from "./support/channels.ts";
import { conflictingLists, productLists } from "./support/one-answer-arbitraries.ts";
import { BATCH_CASES } from "./support/one-answer-batches.ts";
import { CSV_CASES } from "./support/one-answer-csv.ts";
import { MERGE_CASES } from "./support/one-answer-merge.ts";
import { type Case, expectOneAnswer, reachesStore, runCase, sendEverywhere } from "./support/one-answer-run.ts";
import { VALIDATION_CASES } from "./support/one-answer-validation.ts";
import { type ReachRecording, recordReach } from "./support/store-reach.ts";
import { describeEachStore, STORES } from "./support/stores.ts";
import { product, startTestServer, type TestServer } from "./support/test-server.ts";

const NUM_RUNS = 30;
const MAX_SHRINKS = 40;

// The encoders are the test's own code: before any server, they must produce what the README's
// CSV and NDJSON rules (csvContent, raw bodies) read back as the very records given, at the rows and lines they claim.
describe("the channel encoders", () => {
  it("write CSV cells and rows by the contract's rules", () => {
    const records = [
      product("a", "A", { title: 'Socks, "striped"', price: 19.99, images: ["https://i/1"] }),
      product("b", "B", { description: "one\ntwo", price: Number.POSITIVE_INFINITY }),
    ];
    const csv = toCsv(records, { blankLines: true });
    expect(csv?.rows).toEqual([3, 5]);
    expect(csv?.text.split("\n").slice(0, 3)).toEqual([
      "id,sku,title,description,price,available,images,featured_image,url",
      "",
      'a,A,"Socks, ""striped""",,19.99,true,"[""https://i/1""]",https://img.example/a.jpg,https://shop.example/p/a',
    ]);
    expect(csv?.text).toContain(`b,B,Product b,"one\ntwo",1${"0".repeat(400)},true,,`);
    expect(toCsv([product("a", "A", { colour: "red" })])).toBeUndefined();
    expect(toCsv([product("a", "A", { title: "" })])).toBeUndefined();
    expect(toCsv([product("a", "A", { price: "1" })])).toBeUndefined();
    expect(toCsv([product("a", "A", { title: "\ud800" })], {}, true)).toBeUndefined();
    expect(toCsv([product("a", "A", { title: "\ud800" })], {}, false)).toBeDefined();
    expect(toNdjson([1, 2], { bom: true, crlf: true, blankLines: true })).toEqual({
      text: "\uFEFF\r\n1\r\n\r\n2\r\n",
      rows: [2, 4],
    });
  });

  it("write CSV and NDJSON that read back as the records given, at the rows and lines given", () =>
    fc.assert(
      fc.asyncProperty(fc.oneof(productLists, conflictingLists), async ({ products, layout }) => {
        const csv = toCsv(products, layout) as CsvText;
        const read = { records: [] as unknown[], rows: [] as number[] };
        for await (const part of documentSource("csv", [csv.text], true).parts) {
          read.records.push(...part.records);
          read.rows.push(...part.positions);
        }
        expect(read.records).toEqual(products);
        expect(read.rows).toEqual(csv.rows);
        const ndjson = toNdjson(products, layout);
        const lines = ndjson.text.replace(/^\uFEFF/, "").split("\n");
        expect(ndjson.rows?.map((line) => JSON.parse(lines[line - 1] as string))).toEqual(products);
        expect(lines.filter((line) => line.trim() !== "")).toHaveLength(products.length);
      }),
      { numRuns: 200 },
    ));
});

describeEachStore("one answer per rule", (store) => {
  let server: TestServer;
  let reach: ReachRecording;
  const every = store.name === STORES[0]?.name;
  const cases = (all: readonly Case[]) => (every ? all : all.filter(reachesStore));
  beforeAll(async () => {
    reach = recordReach(store.fresh());
    server = await startTestServer({ store: reach.store, maxUploadsPerToken: 8, maxConcurrentImports: 8 });
  });
  afterAll(async () => {
    await server?.close();
  });

  describe("validation", () => {
    for (const c of cases(VALIDATION_CASES)) it(c.name, () => runCase(server, c, reach));
  });
  describe("the request as a whole", () => {
    for (const c of cases(BATCH_CASES)) it(c.name, () => runCase(server, c, reach));
  });
  describe("CSV", () => {
    for (const c of cases(CSV_CASES)) it(c.name, () => runCase(server, c, reach));
  });
  describe("merges", () => {
    for (const c of cases(MERGE_CASES)) it(c.name, () => runCase(server, c, reach));
  });

  describe("properties", () => {
    const property = (arbitrary: typeof productLists) =>
      fc.assert(
        // Shrinking sends every candidate over every channel: capped, so that a failure stays fast.
        fc.asyncProperty(fc.limitShrink(arbitrary, MAX_SHRINKS), async ({ seed, products, query, layout }) => {
          const answers = await sendEverywhere(server, { products, query, layout }, seed);
          const single = products.length === 1 && query.mode === undefined && query.allowEmpty === undefined;
          const expected = CHANNELS.filter((channel: Channel) => single || channel !== "single");
          expect(Object.keys(answers).sort()).toEqual([...expected].sort());
          expectOneAnswer(answers, expect);
        }),
        { numRuns: NUM_RUNS },
      );

    it("random lists of valid and invalid products, skus unique to their id: every channel answers alike", () =>
      property(productLists));
    it("random lists whose skus may collide with each other and with the site: every channel answers alike", () =>
      property(conflictingLists));
  });
});
