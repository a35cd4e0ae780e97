// PATCH against a model: random sequences of merge patches (valid and not) sent over HTTP to one
// product agree with the rule applied to a plain object (the fields given replace, `null`
// removes), and the product's ETag changes exactly when the stored product does.
import { encodeProduct, type Product, ProductSchema } from "@catalog-kit/catalog-core";
import fc from "fast-check";
import * as v from "valibot";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachStore } from "./support/stores.ts";
import { product, productPath, SITE_A, startTestServer, type TestServer, TOKENS } from "./support/test-server.ts";

const BULK = `/external/product/v1/bulk?siteId=${SITE_A.siteId}&siteType=${SITE_A.siteType}`;
const NUM_RUNS = 25;

const price = fc.oneof(fc.constantFrom(0, 1.5, 10, 99.99), fc.constant(-1));
// Each field left out, given (sometimes invalid), or null (refused for a required field).
const patchArb = fc.record(
  {
    sku: fc.constantFrom("S-1", "S-2", ""),
    title: fc.constantFrom("Mug", "Cup", " ", null),
    description: fc.oneof(fc.string({ maxLength: 8 }), fc.constant(null)),
    price: fc.oneof(price, fc.constant(null)),
    price_min: fc.oneof(price, fc.constant(null)),
    price_max: fc.oneof(price, fc.constant(null)),
    available: fc.oneof(fc.boolean(), fc.constant(null)),
    images: fc.oneof(fc.array(fc.constantFrom("https://i/1", "https://i/2"), { maxLength: 2 }), fc.constant(null)),
    url: fc.constantFrom("https://shop.example/a", "https://shop.example/b"),
  },
  { requiredKeys: [] },
);

// The model: what the patch makes of `stored`, or undefined when the result is no product.
function applied(stored: Product, patch: Record<string, unknown>): Product | undefined {
  const merged: Record<string, unknown> = { ...stored };
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete merged[name];
    else merged[name] = value;
  }
  const result = v.safeParse(ProductSchema, merged);
  return result.success ? result.output : undefined;
}

describeEachStore("PATCH, as a model says", (store) => {
  let server: TestServer;
  let run = 0;
  beforeAll(async () => {
    server = await startTestServer({ store: store.fresh() });
  });
  afterAll(() => server?.close());

  it("random patches give the model's product, and a new ETag exactly when it changed", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(patchArb, { minLength: 1, maxLength: 6 }), async (patches) => {
        // A product, and its sku, of its own: the skus the patches give are made unique to it too.
        const id = `pp-${++run}`;
        let stored = product(id, `${id}-S`, { price: 5 }) as unknown as Product;
        const seeded = await server.request("POST", BULK, { token: TOKENS.admin, json: { products: [stored] } });
        expect(seeded.status).toBe(200);
        let tag = (await server.request("GET", productPath(id, SITE_A), { token: TOKENS.admin })).headers.get("etag");
        for (const given of patches) {
          const patch =
            typeof given.sku === "string" && given.sku !== "" ? { ...given, sku: `${id}-${given.sku}` } : given;
          const answer = await server.request("PATCH", productPath(id, SITE_A), {
            token: TOKENS.admin,
            headers: { "content-type": "application/merge-patch+json" },
            body: JSON.stringify(patch),
          });
          const expected = applied(stored, patch);
          const text = await answer.text();
          if (expected === undefined) {
            expect([answer.status, JSON.parse(text).code], text).toEqual([400, "VALIDATION_FAILED"]);
          } else {
            expect(answer.status, text).toBe(200);
            expect(JSON.parse(text)).toEqual(expected);
            const changed = encodeProduct(expected) !== encodeProduct(stored);
            expect(answer.headers.get("etag") !== tag, JSON.stringify(patch)).toBe(changed);
            stored = expected;
            tag = answer.headers.get("etag");
          }
          // The stored copy is the model's, and the tag the client holds is current.
          const full = await server.request("GET", productPath(id, SITE_A, "&view=full"), { token: TOKENS.admin });
          expect(await full.json()).toEqual(stored);
          const current = await server.request("GET", productPath(id, SITE_A), {
            token: TOKENS.admin,
            headers: { "if-none-match": tag as string },
          });
          expect(current.status).toBe(304);
        }
      }),
      { numRuns: NUM_RUNS },
    );
    expect(server.errors).toEqual([]);
  });
});
