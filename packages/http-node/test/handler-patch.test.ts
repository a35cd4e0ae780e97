// One product changed where it is: PATCH with a JSON Merge Patch, the full view of GET, and the
// entity tags of every answer about a product, with If-None-Match (304) and If-Match (412).
import { productTag } from "@catalog-kit/catalog-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { problemOf } from "./support/problem.ts";
import { describeEachStore } from "./support/stores.ts";
import { product, productPath, SITE_A, startTestServer, type TestServer, TOKENS } from "./support/test-server.ts";

const BULK = "/external/product/v1/bulk";
const MERGE_PATCH = { "content-type": "application/merge-patch+json" };

describeEachStore("PATCH and entity tags", (store) => {
  let server: TestServer;
  let run = 0;
  beforeAll(async () => {
    server = await startTestServer({ store: store.fresh() });
  });
  afterAll(() => server?.close());

  // A product of its own for each test, with every optional field.
  async function seeded(extra: Record<string, unknown> = {}) {
    const id = `p-${++run}`;
    const stored = product(id, `P-${run}`, { description: "Soft", price: 10, images: ["https://i/1"], ...extra });
    const answer = await server.request("POST", `${BULK}?siteId=${SITE_A.siteId}&siteType=${SITE_A.siteType}`, {
      token: TOKENS.admin,
      json: { products: [stored] },
    });
    expect(answer.status).toBe(200);
    return stored;
  }
  const patch = (key: string, body: unknown, headers: Record<string, string> = {}, query = "") =>
    server.request("PATCH", productPath(key, SITE_A, query), {
      token: TOKENS.admin,
      headers: { ...MERGE_PATCH, ...headers },
      body: JSON.stringify(body),
    });
  const get = (key: string, headers: Record<string, string> = {}, query = "") =>
    server.request("GET", productPath(key, SITE_A, query), { token: TOKENS.admin, headers });

  it("changes the fields given, removes those set to null, and answers every field with the new ETag", async () => {
    const stored = await seeded();
    const answer = await patch(stored.id as string, { price: 12.5, description: null, available: false });
    expect(answer.status).toBe(200);
    const { description: _, ...rest } = stored;
    const expected = { ...rest, price: 12.5, available: false };
    expect(await answer.json()).toEqual(expected);
    expect(answer.headers.get("etag")).toBe(productTag(expected as never));
    const full = await get(stored.id as string, {}, "&view=full");
    expect(await full.json()).toEqual(expected);
    expect(full.headers.get("etag")).toBe(answer.headers.get("etag"));
    // By sku, as application/json too, with the id it already has.
    const bySku = await server.request("PATCH", productPath(stored.sku as string, SITE_A, "&by=sku"), {
      token: TOKENS.admin,
      json: { id: stored.id, title: "Renamed" },
    });
    expect(await bySku.json()).toMatchObject({ id: stored.id, title: "Renamed", price: 12.5 });
  });

  it("answers the same ETag in every view, the five fields by default, and refuses an unknown view", async () => {
    const stored = await seeded();
    const basic = await get(stored.id as string);
    expect(Object.keys((await basic.json()) as object).sort()).toEqual(["featured_image", "id", "sku", "title", "url"]);
    const tag = basic.headers.get("etag");
    expect(tag).toBe(productTag(stored as never));
    for (const view of ["basic", "full"]) {
      expect((await get(stored.id as string, {}, `&view=${view}`)).headers.get("etag")).toBe(tag);
    }
    const bad = await get(stored.id as string, {}, "&view=everything");
    expect((await problemOf(bad, 400, "VALIDATION_FAILED")).errors).toEqual([
      { parameter: "view", message: expect.any(String) },
    ]);
  });

  it("If-None-Match: 304 with the ETag and no body when a tag names the current copy (weak comparison)", async () => {
    const stored = await seeded();
    const tag = productTag(stored as never);
    for (const header of [tag, `W/${tag}`, `"other", ${tag}`, "*", ` , "x,y" ,${tag}`]) {
      const answer = await get(stored.id as string, { "if-none-match": header });
      expect(answer.status, header).toBe(304);
      expect(answer.headers.get("etag")).toBe(tag);
      expect(await answer.text()).toBe("");
    }
    const changed = await get(stored.id as string, { "if-none-match": '"other", W/"older"' });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).toBe(tag);
  });

  it("If-Match on PATCH: applied while a strong tag names the stored copy, else 412 writing nothing", async () => {
    const stored = await seeded();
    const tag = productTag(stored as never);
    const applied = await patch(stored.id as string, { price: 11 }, { "if-match": `"old", ${tag}` });
    expect(applied.status).toBe(200);
    const newTag = applied.headers.get("etag") as string;
    expect(newTag).not.toBe(tag);
    // The tag before the change, and a weak tag of the current copy (strong comparison), both fail.
    for (const header of [tag, `W/${newTag}`]) {
      const refused = await patch(stored.id as string, { price: 99 }, { "if-match": header });
      await problemOf(refused, 412, "PRECONDITION_FAILED");
    }
    expect(await (await get(stored.id as string, {}, "&view=full")).json()).toMatchObject({ price: 11 });
    const any = await patch(stored.id as string, { price: 13 }, { "if-match": "*" });
    expect(await any.json()).toMatchObject({ price: 13 });
  });

  it("If-Match on DELETE: 412 for a changed copy, else deleted with the ETag of what was deleted", async () => {
    const stored = await seeded();
    const tag = productTag(stored as never);
    const stale = await server.request("DELETE", productPath(stored.id as string, SITE_A), {
      token: TOKENS.admin,
      headers: { "if-match": '"not-this-one"' },
    });
    await problemOf(stale, 412, "PRECONDITION_FAILED");
    expect((await get(stored.id as string)).status).toBe(200);
    const deleted = await server.request("DELETE", productPath(stored.id as string, SITE_A), {
      token: TOKENS.admin,
      headers: { "if-match": tag },
    });
    expect(deleted.status).toBe(200);
    expect(deleted.headers.get("etag")).toBe(tag);
    await problemOf(await get(stored.id as string), 400, "PRODUCT_NOT_FOUND");
  });

  it("refuses a malformed If-Match or If-None-Match naming the header, before anything is written", async () => {
    const stored = await seeded();
    for (const header of ['"unterminated', "abc", 'W/"a" "b"', '*, "a"', "", " , "]) {
      const write = await patch(stored.id as string, { price: 50 }, { "if-match": header });
      expect((await problemOf(write, 400, "VALIDATION_FAILED")).errors, header).toEqual([
        { header: "If-Match", message: expect.any(String) },
      ]);
      const read = await get(stored.id as string, { "if-none-match": header });
      expect((await problemOf(read, 400, "VALIDATION_FAILED")).errors, header).toEqual([
        { header: "If-None-Match", message: expect.any(String) },
      ]);
    }
    expect(await (await get(stored.id as string, {}, "&view=full")).json()).toMatchObject({ price: 10 });
  });

  it("locates unknown fields, null for a required field and an id change by JSON pointers, writing nothing", async () => {
    const stored = await seeded();
    const answer = await patch(stored.id as string, { colour: "red", title: null, id: "another" });
    const body = await problemOf(answer, 400, "VALIDATION_FAILED");
    expect(body.errors.map((error) => error.pointer).sort()).toEqual(["/colour", "/title"]);
    const moved = await patch(stored.id as string, { id: "another" });
    expect((await problemOf(moved, 400, "VALIDATION_FAILED")).errors).toEqual([
      { pointer: "/id", message: expect.any(String) },
    ]);
    const invalid = await patch(stored.id as string, { price: -1, images: null });
    expect((await problemOf(invalid, 400, "VALIDATION_FAILED")).errors).toEqual([
      { pointer: "/price", message: expect.any(String) },
    ]);
    const notObject = await patch(stored.id as string, [1]);
    expect((await problemOf(notObject, 400, "VALIDATION_FAILED")).errors).toEqual([
      { pointer: "", message: expect.any(String) },
    ]);
    expect(await (await get(stored.id as string, {}, "&view=full")).json()).toEqual(stored);
  });

  it("answers SKU_CONFLICT for a sku another product holds, PRODUCT_NOT_FOUND, and 415 for a body not JSON", async () => {
    const [first, second] = [await seeded(), await seeded()];
    const conflict = await patch(first.id as string, { sku: second.sku });
    expect((await problemOf(conflict, 400, "SKU_CONFLICT")).errors).toEqual([
      { pointer: "/sku", message: expect.any(String), sku: second.sku, heldBy: second.id },
    ]);
    await problemOf(await patch("nobody-here", { price: 1 }), 400, "PRODUCT_NOT_FOUND");
    const text = await server.request("PATCH", productPath(first.id as string, SITE_A), {
      token: TOKENS.admin,
      headers: { "content-type": "text/plain" },
      body: "{}",
    });
    await problemOf(text, 415, "UNSUPPORTED_MEDIA_TYPE");
    const unauthorized = await server.request("PATCH", productPath(first.id as string, SITE_A), {
      headers: MERGE_PATCH,
      body: "{}",
    });
    await problemOf(unauthorized, 401, "UNAUTHORIZED");
    const dry = await patch(first.id as string, { price: 77 }, {}, "&dryRun=true");
    expect(await dry.json()).toMatchObject({ price: 77 });
    expect(await (await get(first.id as string, {}, "&view=full")).json()).toEqual(first);
  });
});
