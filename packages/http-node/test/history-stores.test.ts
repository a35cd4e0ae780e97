// The import history over HTTP on every store: a record for each channel and outcome, read back
// as it ended and listed newest first; a slow upload's progress read from a second server over
// another connection to the same store; retention by count, the trimmed records and reports
// gone; and the report of a refused 100,000-row CSV, capped at 10,000 problems with the total.
import type { CatalogStore, ImportRecord } from "@catalog-kit/catalog-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE, CHANNELS, EXPECTED, OUTCOMES, QUERY } from "./support/history-cases.ts";
import { problemOf } from "./support/problem.ts";
import { describeEachStore } from "./support/stores.ts";
import {
  product,
  SITE_A,
  SITE_A_OTHER_TYPE,
  SITE_B,
  startTestServer,
  type TestServer,
  TOKENS,
} from "./support/test-server.ts";
import { SLOW_UPLOAD, upload } from "./support/upload.ts";

const admin = { token: TOKENS.admin };
const ID = /^[0-9a-f]{28}$/;

// The import id an answer carries, from its summary or from its problem body.
async function importIdOf(response: Response): Promise<string> {
  const { importId } = (await response.json()) as { importId?: string };
  expect(importId).toMatch(ID);
  return importId as string;
}

async function recordOf(server: TestServer, id: string): Promise<ImportRecord> {
  const response = await server.request("GET", `${BASE}/imports/${id}?${QUERY}`, admin);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as ImportRecord;
}

async function listOf(server: TestServer, extra = ""): Promise<ImportRecord[]> {
  const response = await server.request("GET", `${BASE}/imports?${QUERY}&limit=1000${extra}`, admin);
  expect(response.status).toBe(200);
  return ((await response.json()) as { imports: ImportRecord[] }).imports;
}

describeEachStore("the import history over HTTP", (stores) => {
  describe("a record for each channel and outcome", () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer({ store: stores.fresh() });
    });
    afterAll(() => server?.close());

    it("each answer's importId reads back as it ended; the list has them all, newest first", async () => {
      const sent: string[] = [];
      let n = 0;
      for (const [label, channel, format, build] of CHANNELS) {
        for (const outcome of OUTCOMES) {
          const id = `rec-${++n}`;
          const item = product(id, `SKU-${id}`, { price: outcome === "failed validation" ? -1 : 10 });
          const { path, headers, body } = build(item, outcome === "dry run" ? "dryRun=true" : "");
          const send = (more: Record<string, string> = {}) =>
            server.request("POST", path, { ...admin, headers: { ...headers, ...more }, body });
          const key = `key-${id}`;
          let response = await send(outcome === "replayed" ? { "idempotency-key": key } : {});
          if (outcome === "replayed") {
            expect(response.status, `${label}: the first under its key`).toBe(200);
            sent.push(await importIdOf(response));
            response = await send({ "idempotency-key": key });
          }
          const where = `${label}, ${outcome}`;
          if (outcome === "failed validation") {
            const problem = await problemOf(response.clone(), 400, "VALIDATION_FAILED");
            expect(problem.errorCount, where).toBe(1);
          } else expect(response.status, `${where}: ${await response.clone().text()}`).toBe(200);
          const importId = await importIdOf(response);
          sent.push(importId);
          const record = await recordOf(server, importId);
          expect(record, where).toMatchObject({ importId, ...SITE_A, channel, format, ...EXPECTED[outcome] });
          expect(record.endedAt, where).toEqual(expect.any(String));
          expect(record.problems, where).toHaveLength(record.problemCount);
          if (outcome === "replayed") expect(record.idempotencyKey, where).toBe(key);
          else expect(record, where).not.toHaveProperty("replayed");
          // A dry run wrote nothing; every other import that succeeded wrote its product.
          const stored = await server.request("GET", `${BASE}/${id}?${QUERY}`, admin);
          if (outcome === "succeeded" || outcome === "replayed") expect(stored.status, where).toBe(200);
          else await problemOf(stored, 400, "PRODUCT_NOT_FOUND");
        }
      }
      // Ids sort by start: the list answers them newest first, the first of each replay too.
      expect(sent).toEqual([...sent].sort());
      expect((await listOf(server)).map((record) => record.importId)).toEqual([...sent].reverse());
      const replays = await listOf(server, `&idempotencyKey=key-rec-4`);
      expect(replays.map((record) => record.replayed ?? false)).toEqual([true, false]);
      expect(server.errors).toEqual([]);
    });
  });

  describe("progress read from a second server", () => {
    let one: TestServer;
    let two: TestServer;
    beforeAll(async () => {
      const [first, second] = stores.twins();
      one = await startTestServer({ store: first });
      two = await startTestServer({ store: second });
    });
    afterAll(async () => {
      await one?.close();
      await two?.close();
    });

    it("a slow NDJSON upload to one server shows its progress on the other, then its end", async () => {
      const { req, answer } = upload(`${one.url}${BASE}/bulk?${QUERY}`, SLOW_UPLOAD);
      const line = (i: number) => `${JSON.stringify(product(`slow-${i}`))}\n`;
      // The running import, as the other server finds it: by its state, and by the request id sent.
      const running = async () => {
        const [record] = await listOf(two, "&state=receiving");
        if (record !== undefined) expect(await listOf(two, "&requestId=slow-upload")).toEqual([record]);
        return record;
      };
      let bytes = 0;
      let written = 0;
      for (const read of [1, 4]) {
        for (; written < read; written++) {
          const text = line(written);
          bytes += Buffer.byteLength(text);
          req.write(text);
        }
        await expect
          .poll(running, { timeout: 4_000, interval: 100 })
          .toMatchObject({ state: "receiving", requestId: "slow-upload", productsRead: read, bytesReceived: bytes });
      }
      req.end();
      const { status, body } = await answer;
      expect(status, JSON.stringify(body)).toBe(200);
      const importId = body.importId as string;
      expect(await recordOf(two, importId)).toMatchObject({
        state: "succeeded",
        channel: "stream",
        format: "ndjson",
        productsRead: 4,
        bytesReceived: bytes,
        counts: { total: 4, created: 4 },
      });
      expect(await listOf(two, "&state=receiving")).toEqual([]);
      expect([...one.errors, ...two.errors]).toEqual([]);
    });
  });

  describe("retention", () => {
    let server: TestServer;
    let store: CatalogStore;
    beforeAll(async () => {
      store = stores.fresh();
      server = await startTestServer({ store, history: { keep: 3 } });
    });
    afterAll(() => server?.close());

    it("with keep 3, five imports leave the newest three; the others are 404 and their reports gone", async () => {
      // Older imports of other sites (one of the same siteId): retention is per site.
      const others = [];
      for (const site of [SITE_B, SITE_A_OTHER_TYPE]) {
        const query = `siteId=${site.siteId}&siteType=${site.siteType}`;
        const response = await server.request("POST", `${BASE}/bulk?${query}`, { ...admin, json: { products: [] } });
        others.push({ query, id: await importIdOf(response) });
      }
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        // Each refused, so that each has a report to trim with its record.
        const response = await server.request("POST", `${BASE}/bulk?${QUERY}`, {
          ...admin,
          json: { products: [product(`kept-${i}`, `SKU-kept-${i}`, { price: -1 })] },
        });
        await problemOf(response.clone(), 400, "VALIDATION_FAILED");
        ids.push(await importIdOf(response));
      }
      expect((await listOf(server)).map((record) => record.importId)).toEqual(ids.slice(2).reverse());
      for (const id of ids.slice(0, 2)) {
        await problemOf(await server.request("GET", `${BASE}/imports/${id}?${QUERY}`, admin), 404, "IMPORT_NOT_FOUND");
        const report = await server.request("GET", `${BASE}/imports/${id}/problems?${QUERY}`, admin);
        await problemOf(report, 404, "IMPORT_NOT_FOUND");
        expect(await store.readImport(SITE_A, id)).toBeUndefined();
        expect(await store.readImportProblems(SITE_A, id)).toBeUndefined();
      }
      for (const id of ids.slice(2)) {
        const report = await server.request("GET", `${BASE}/imports/${id}/problems?${QUERY}`, admin);
        expect(report.headers.get("x-problem-count")).toBe("1");
        expect((await report.text()).trimEnd().split("\n")).toHaveLength(1);
      }
      for (const { query, id } of others) {
        const response = await server.request("GET", `${BASE}/imports/${id}?${query}`, admin);
        expect(response.status, query).toBe(200);
      }
    });
  });

  describe("the report of a refused 100,000-row CSV", () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer({ store: stores.fresh() });
    });
    afterAll(() => server?.close());

    it("the answer lists 100 of 100,000; the report 10,000 lines in NDJSON and CSV, the total beside", async () => {
      const rows = Array.from(
        { length: 100_000 },
        (_, i) => `r${i},S${i},T,maybe,https://i.example/x.jpg,https://s.example/${i}`,
      );
      const csv = `id,sku,title,available,featured_image,url\n${rows.join("\n")}\n`;
      const sent = await server.request("POST", `${BASE}/bulk/csv?${QUERY}`, {
        ...admin,
        headers: { "content-type": "text/csv" },
        body: csv,
      });
      const problem = await problemOf(sent.clone(), 400, "VALIDATION_FAILED");
      expect(problem.errors).toHaveLength(100);
      expect(problem.errorCount).toBe(100_000);
      const importId = await importIdOf(sent);
      const record = await recordOf(server, importId);
      expect(record).toMatchObject({ state: "failed", problemCount: 100_000, productsRead: 100_000 });
      expect(record.problems).toEqual(problem.errors);

      const ndjson = await server.request("GET", `${BASE}/imports/${importId}/problems?${QUERY}`, admin);
      expect(ndjson.headers.get("content-type")).toBe("application/x-ndjson");
      expect(ndjson.headers.get("x-problem-count")).toBe("100000");
      const lines = (await ndjson.text())
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines).toHaveLength(10_000);
      expect(lines.slice(0, 100)).toEqual(problem.errors);
      expect(lines.map((line) => line.row)).toEqual(Array.from({ length: 10_000 }, (_, i) => i + 2));

      const csvReport = await server.request("GET", `${BASE}/imports/${importId}/problems?${QUERY}`, {
        ...admin,
        headers: { accept: "text/csv" },
      });
      expect(csvReport.headers.get("x-problem-count")).toBe("100000");
      const csvLines = (await csvReport.text()).trimEnd().split("\n");
      expect(csvLines).toHaveLength(10_001);
      expect(csvLines[10_000]).toMatch(/^10001,available,/);
      expect(server.errors).toEqual([]);
    }, 30_000);
  });
});
