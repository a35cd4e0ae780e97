// The list and the export as a client generated from /openapi.json sees them: the export on a
// path of its own, answering a file whatever Accept says, and every cursor of the published
// pattern taken as a place in id order, on every store.
import { CURSOR_PATTERN } from "@catalog-kit/catalog-core";
import { afterEach, describe, expect, it } from "vitest";
import { EXPORT_PATH, LIST_PATH } from "../src/paths.ts";
import { describeEachStore } from "./support/stores.ts";
import { product, SITE_A, startTestServer, type TestServer, TOKENS } from "./support/test-server.ts";

const query = `siteId=${SITE_A.siteId}&siteType=${SITE_A.siteType}`;
const admin = { token: TOKENS.admin };

let server: TestServer;
afterEach(async () => {
  await server?.close();
});

describe("the export's own path", () => {
  it("answers the file the list path answers by Accept: CSV unless NDJSON is asked for", async () => {
    server = await startTestServer();
    await server.catalog.importProducts(SITE_A, [product("b"), product("a")]);
    for (const [accept, type] of [
      [undefined, "text/csv; charset=utf-8"],
      ["*/*", "text/csv; charset=utf-8"],
      ["application/json", "text/csv; charset=utf-8"],
      ["text/csv", "text/csv; charset=utf-8"],
      ["application/x-ndjson", "application/x-ndjson"],
      ["application/jsonl", "application/x-ndjson"],
    ] as const) {
      const headers = accept === undefined ? {} : { accept };
      const exported = await server.request("GET", `${EXPORT_PATH}?${query}`, { ...admin, headers });
      expect(exported.status, accept).toBe(200);
      expect(exported.headers.get("content-type"), accept).toBe(type);
      const listed = await server.request("GET", `${LIST_PATH}?${query}`, {
        ...admin,
        headers: { accept: type.startsWith("text/csv") ? "text/csv" : "application/x-ndjson" },
      });
      expect(await exported.text(), accept).toBe(await listed.text());
    }
    expect(server.log.filter((entry) => entry.path === EXPORT_PATH).map((entry) => entry.route)).toEqual(
      Array(6).fill("export"),
    );
    const head = await server.request("HEAD", `${EXPORT_PATH}?${query}`, admin);
    expect(head.status).toBe(200);
    const post = await server.request("POST", `${EXPORT_PATH}?${query}`, admin);
    expect([post.status, post.headers.get("allow")]).toEqual([405, "GET, HEAD"]);
    expect((await server.request("GET", `${EXPORT_PATH}?${query}`)).status).toBe(401);
  });
});

describeEachStore("cursors", (store) => {
  it("takes every cursor of the published pattern as a place in id order, one it gave exactly", async () => {
    server = await startTestServer({ store: store.fresh() });
    await server.catalog.importProducts(
      SITE_A,
      ["a", "b", "c", "\u00e9", "\u{1f600}"].map((id) => product(id)),
    );
    const page = async (cursor: string) => {
      const response = await server.request("GET", `${LIST_PATH}?${query}&cursor=${cursor}`, admin);
      expect(response.status, cursor).toBe(200);
      return ((await response.json()) as { products: { id: string }[] }).products.map((p) => p.id);
    };
    const after = (id: string) => Buffer.from(id).toString("base64url");
    expect(await page(after("a"))).toEqual(["b", "c", "\u00e9", "\u{1f600}"]);
    // A NUL ends the place: no id holds one, so none sorts between "b" and "b\0...".
    expect(await page(after("b\0zz"))).toEqual(["c", "\u00e9", "\u{1f600}"]);
    expect(await page(after("\0"))).toEqual(["a", "b", "c", "\u00e9", "\u{1f600}"]);
    // Bytes that are no UTF-8, control characters, a place longer than any id: still a page.
    for (const forged of ["_w", "__8", "AQID", after("\u0001".repeat(300)), "-".repeat(4_000)]) {
      expect(CURSOR_PATTERN.test(forged), forged).toBe(true);
      expect(Array.isArray(await page(forged))).toBe(true);
    }
    expect(server.errors).toEqual([]);
  });
});
