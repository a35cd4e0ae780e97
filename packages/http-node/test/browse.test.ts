// Browse, export and full sync over HTTP: list pages with cursors, exports by Accept that import
// back whole, and mode=replace on the bulk imports.
import { spawn } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { ProductSchema } from "@catalog-kit/catalog-core";
import { productArb } from "@catalog-kit/catalog-core/testing";
import { startCli, stopCli } from "@catalog-kit/test-support/http";
import fc from "fast-check";
import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { describeEachStore } from "./support/stores.ts";
import { product, SITE_A, SITE_B, startTestServer, type TestServer, TOKENS } from "./support/test-server.ts";

const BASE = "/external/product/v1";
const q = (site = SITE_A) => `siteId=${site.siteId}&siteType=${site.siteType}`;

let server: TestServer;
afterEach(async () => {
  await server?.close();
});

async function json(response: Response): Promise<Record<string, unknown>> {
  return (await response.json()) as Record<string, unknown>;
}

async function importAll(products: readonly unknown[], site = SITE_A, query = ""): Promise<Response> {
  return server.request("POST", `${BASE}/bulk${query}`, { token: TOKENS.admin, json: { ...site, products } });
}

async function walk(limit: number, site = SITE_A, between?: () => Promise<void>): Promise<string[]> {
  const ids: string[] = [];
  for (let cursor: string | null = null; ; ) {
    const query = `${q(site)}&limit=${limit}${cursor === null ? "" : `&cursor=${cursor}`}`;
    const page = (await json(await server.request("GET", `${BASE}?${query}`, { token: TOKENS.admin }))) as {
      products: { id: string }[];
      nextCursor: string | null;
    };
    ids.push(...page.products.map((p) => p.id));
    if (page.nextCursor === null) return ids;
    cursor = page.nextCursor;
    await between?.();
  }
}

describeEachStore("browse", (store) => {
  describe("GET /external/product/v1: list", () => {
    it("answers pages in id order, in the retrieval shape, with a cursor to the next", async () => {
      server = await startTestServer({ store: store.fresh() });
      await importAll(["c", "a", "b", "e", "d"].map((id) => product(id, `S-${id}`, { price: 3, description: "x" })));
      const first = await server.request("GET", `${BASE}?${q()}&limit=2`, { token: TOKENS.admin });
      expect(first.status).toBe(200);
      const page = await json(first);
      expect(page.products).toEqual([
        {
          id: "a",
          sku: "S-a",
          title: "Product a",
          featured_image: "https://img.example/a.jpg",
          url: "https://shop.example/p/a",
        },
        {
          id: "b",
          sku: "S-b",
          title: "Product b",
          featured_image: "https://img.example/b.jpg",
          url: "https://shop.example/p/b",
        },
      ]);
      expect(page.nextCursor).toEqual(expect.any(String));
      expect(await walk(2)).toEqual(["a", "b", "c", "d", "e"]);
      expect(await walk(100)).toEqual(["a", "b", "c", "d", "e"]);
      const empty = await json(await server.request("GET", `${BASE}?${q(SITE_B)}`, { token: TOKENS.admin }));
      expect(empty).toEqual({ products: [], nextCursor: null });
    });

    it("refuses a bad limit or cursor naming the parameter, and scopes the site to the token", async () => {
      server = await startTestServer({ store: store.fresh() });
      for (const [query, parameter] of [
        ["limit=0", "limit"],
        ["limit=1001", "limit"],
        ["limit=ten", "limit"],
        ["cursor=%25%25", "cursor"],
        ["cursor=", "cursor"],
      ] as const) {
        const response = await server.request("GET", `${BASE}?${q()}&${query}`, { token: TOKENS.admin });
        expect(response.status, query).toBe(400);
        expect(await json(response), query).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ parameter }] });
      }
      const missing = await server.request("GET", `${BASE}?siteId=shop-a`, { token: TOKENS.admin });
      expect(await json(missing)).toMatchObject({ code: "SITE_REQUIRED", errors: [{ parameter: "siteType" }] });
      const foreign = await server.request("GET", `${BASE}?${q(SITE_B)}`, { token: TOKENS.a });
      expect(await json(foreign)).toMatchObject({ code: "SITE_NOT_FOUND" });
      expect((await server.request("GET", `${BASE}?${q()}`)).status).toBe(401);
    });

    // Up to 40 pages per run, an import between any two: on PostgreSQL, where an import is a
    // transaction of a dozen statements, 25 runs take 5 to 17 s on a busy machine.
    it("a walk returns every product present throughout exactly once while others write", async () => {
      server = await startTestServer({ store: store.fresh() });
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 7 }), fc.integer({ min: 0, max: 30 }), async (limit, size) => {
          const site = SITE_B;
          const stay = Array.from({ length: size }, (_, i) => product(`p${String(i).padStart(2, "0")}`, `S${i}`));
          await importAll(stay, site, "?mode=replace&allowEmpty=true");
          let n = 0;
          const ids = await walk(limit, site, async () => {
            n++;
            await importAll([product(`a${n}`, `A${n}`), product(`z${n}`, `Z${n}`)], site);
            await server.request("DELETE", `${BASE}/a${n - 1}?${q(site)}`, { token: TOKENS.admin });
          });
          expect(new Set(ids).size).toBe(ids.length);
          for (const p of stay) expect(ids).toContain(p.id);
        }),
        { numRuns: 25 },
      );
    }, 60_000);
  });

  describe("export by Accept", () => {
    // CSV cannot tell an empty description from an absent one; NDJSON can.
    const productsArb = (csv: boolean) =>
      fc
        .uniqueArray(
          productArb().filter((p) => !csv || p.description !== ""),
          { maxLength: 15, selector: (p) => p.id },
        )
        .filter((products) => new Set(products.map((p) => p.sku)).size === products.length);

    for (const [accept, contentType, csv] of [
      ["text/csv", "text/csv; charset=utf-8", true],
      ["application/x-ndjson", "application/x-ndjson", false],
    ] as const) {
      it(`${accept}: every product as an import file; importing it into an empty site gives the same products`, async () => {
        server = await startTestServer({ store: store.fresh() });
        await fc.assert(
          fc.asyncProperty(productsArb(csv), async (products) => {
            await importAll(products, SITE_A, "?mode=replace&allowEmpty=true");
            const exported = await server.request("GET", `${BASE}?${q()}`, {
              token: TOKENS.admin,
              headers: { accept: `${accept}, application/json;q=0.5` },
            });
            expect(exported.status).toBe(200);
            expect(exported.headers.get("content-type")).toBe(contentType);
            const file = await exported.text();
            const into = await server.request(
              "POST",
              `${BASE}/bulk${csv ? "/csv" : ""}?${q(SITE_B)}&mode=replace&allowEmpty=true`,
              { token: TOKENS.admin, headers: { "content-type": accept }, body: file },
            );
            expect(await json(into)).toMatchObject({ total: products.length });
            for (const p of products) expect(await server.catalog.getProduct(SITE_B, p.id)).toEqual(p);
          }),
          { numRuns: 30 },
        );
      });
    }

    it("streams a site larger than one page, and refuses list parameters", async () => {
      server = await startTestServer({ store: store.fresh() });
      const products = Array.from({ length: 2_345 }, (_, i) => product(`id-${i}`, `S-${i}`));
      await importAll(products);
      const exported = await server.request("GET", `${BASE}?${q()}`, {
        token: TOKENS.admin,
        headers: { accept: "application/x-ndjson" },
      });
      const lines = (await exported.text()).trimEnd().split("\n");
      expect(lines).toHaveLength(2_345);
      for (const line of lines) expect(v.is(ProductSchema, JSON.parse(line))).toBe(true);
      const withLimit = await server.request("GET", `${BASE}?${q()}&limit=5`, {
        token: TOKENS.admin,
        headers: { accept: "text/csv" },
      });
      expect(await json(withLimit)).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ parameter: "limit" }] });
    });
  });

  describe("mode=replace", () => {
    it("makes the request the site's whole catalog: others deleted and counted, their skus freed", async () => {
      server = await startTestServer({ store: store.fresh() });
      await importAll([product("a", "S1"), product("b", "S2"), product("c", "S3")]);
      const dry = await importAll([product("a", "S1"), product("new", "S2")], SITE_A, "?mode=replace&dryRun=true");
      expect(await json(dry)).toMatchObject({ total: 2, created: 1, unchanged: 1, deleted: 2, dryRun: true });
      expect(await walk(10)).toEqual(["a", "b", "c"]);
      const done = await importAll([product("a", "S1"), product("new", "S2")], SITE_A, "?mode=replace");
      expect(await json(done)).toEqual({
        message: "Imported 2 products: 1 created, 0 updated, 1 unchanged, 2 deleted",
        total: 2,
        created: 1,
        updated: 0,
        unchanged: 1,
        deleted: 2,
        importId: expect.stringMatching(/^[0-9a-f]{28}$/),
      });
      expect(await walk(10)).toEqual(["a", "new"]);
      const upsert = await importAll([product("b", "S9")], SITE_A, "?mode=upsert");
      expect(await json(upsert)).not.toHaveProperty("deleted");
    });

    it("works on CSV envelopes and raw bodies; an empty replace is refused unless allowEmpty=true", async () => {
      server = await startTestServer({ store: store.fresh() });
      await importAll([product("a"), product("b")]);
      const csv = await server.request("POST", `${BASE}/bulk/csv?mode=replace`, {
        token: TOKENS.admin,
        json: { ...SITE_A, csvContent: "id,sku,title,available,featured_image,url\nb,SKU-b,B,true,f,u\n" },
      });
      expect(await json(csv)).toMatchObject({ total: 1, deleted: 1 });
      for (const [path, headers, body] of [
        [
          `${BASE}/bulk?mode=replace`,
          { "content-type": "application/json" },
          JSON.stringify({ ...SITE_A, products: [] }),
        ],
        [`${BASE}/bulk?${q()}&mode=replace`, { "content-type": "application/x-ndjson" }, "\n"],
        [
          `${BASE}/bulk/csv?${q()}&mode=replace`,
          { "content-type": "text/csv" },
          "id,sku,title,available,featured_image,url\n",
        ],
      ] as const) {
        const refused = await server.request("POST", path, { token: TOKENS.admin, headers, body });
        expect(refused.status, path).toBe(400);
        expect(await json(refused), path).toMatchObject({
          code: "VALIDATION_FAILED",
          errors: [{ parameter: "allowEmpty" }],
        });
        expect(await walk(10)).toEqual(["b"]);
      }
      const emptied = await server.request("POST", `${BASE}/bulk?${q()}&mode=replace&allowEmpty=true`, {
        token: TOKENS.admin,
        headers: { "content-type": "application/x-ndjson" },
        body: "",
      });
      expect(await json(emptied)).toMatchObject({ total: 0, deleted: 1 });
      expect(await walk(10)).toEqual([]);
      const bad = await importAll([product("x")], SITE_A, "?mode=sync");
      expect(await json(bad)).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ parameter: "mode" }] });
      const single = await server.request("POST", `${BASE}?mode=replace`, {
        token: TOKENS.admin,
        json: { product: product("x") },
      });
      expect(await json(single)).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ parameter: "mode" }] });
    });
  });
});

// The memory store answers every page at once: the export alone must let other requests in.
describe("export by Accept, from the memory store", () => {
  it("keeps serving other requests while it exports from a store that answers at once", async () => {
    // Out of process, server and client, so that neither waits for the other's event loop.
    const cli = startCli();
    try {
      const out = await cli.waitForOutput(/Access token: \S+\n[\s\S]*listening|listening[\s\S]*Access token: \S+\n/);
      const url = /listening on (http:\S+)/.exec(out)?.[1] as string;
      const token = /Access token: (\S+)/.exec(out)?.[1] as string;
      const lines = Array.from({ length: 150_000 }, (_, i) => JSON.stringify(product(`id-${i}`, `S-${i}`))).join("\n");
      const loaded = await fetch(`${url}${BASE}/bulk?siteId=demo&siteType=demo`, {
        method: "POST",
        headers: { "x-service-access-token": token, "content-type": "application/x-ndjson" },
        body: lines,
      });
      expect(loaded.status).toBe(200);
      const curl = spawn("curl", [
        "-sS",
        "-o",
        "/dev/null",
        "-H",
        `X-Service-Access-Token: ${token}`,
        "-H",
        "Accept: text/csv",
        `${url}${BASE}?siteId=demo&siteType=demo`,
      ]);
      const exported = new Promise<number>((resolve) => curl.on("exit", () => resolve(performance.now())));
      await sleep(50);
      const sent = performance.now();
      const health = await fetch(`${url}/healthz`).then(() => performance.now());
      // Answered between two pages, long before the export ends; not once the export is over.
      expect(health - sent).toBeLessThan(((await exported) - sent) / 2);
    } finally {
      await stopCli(cli);
    }
  }, 60_000);
});
