// Concurrent merges over HTTP: two handlers (two servers, as two instances of a deployment) over
// one store, merge imports (CSV, NDJSON) and PATCHes at once, each changing its own field of the
// same products. Every change lands: the products end as every serial order of the writes leaves them.
import type { Product, Site } from "@catalog-kit/catalog-core";
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachStore } from "./support/stores.ts";
import { product, productPath, startTestServer, type TestServer, TOKENS } from "./support/test-server.ts";

const NUM_RUNS = 8;
const SITE: Site = { siteId: "shop-a", siteType: "shopify" };
const BULK = `/external/product/v1/bulk?siteId=${SITE.siteId}&siteType=${SITE.siteType}&mode=merge`;
const PRODUCTS = 4;

type Field = "price" | "description" | "title" | "available";
type Kind = "csv" | "ndjson" | "patch";
/** One writer: the server it sends to, how, and the value it gives its field in each product. */
interface Writer {
  readonly server: 0 | 1;
  readonly kind: Kind;
  readonly field: Field;
  readonly values: readonly (string | number | boolean)[];
}

const VALUES: Record<Field, fc.Arbitrary<string | number | boolean>> = {
  price: fc.integer({ min: 0, max: 10_000 }).map((cents) => cents / 100),
  description: fc.stringMatching(/^[a-z]{1,8}$/),
  title: fc.stringMatching(/^[A-Z][a-z]{0,7}$/),
  available: fc.boolean(),
};

// Two to four writers, each on a field no other writer changes.
const writersArb = fc.shuffledSubarray(Object.keys(VALUES) as Field[], { minLength: 2, maxLength: 4 }).chain((fields) =>
  fc.tuple(
    ...fields.map((field) =>
      fc.record({
        server: fc.constantFrom(0 as const, 1 as const),
        kind: fc.constantFrom<Kind>("csv", "ndjson", "patch"),
        field: fc.constant(field),
        values: fc.array(VALUES[field], { minLength: PRODUCTS, maxLength: PRODUCTS }),
      }),
    ),
  ),
);

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}

// What the writers leave of each product, written one after another in `order`.
function serially(bases: readonly Product[], order: readonly Writer[]): Product[] {
  return bases.map((base, n) => {
    const result: Record<string, unknown> = { ...base };
    for (const writer of order) result[writer.field] = writer.values[n];
    return result as unknown as Product;
  });
}

describeEachStore("concurrent merges through two servers over one store", (store) => {
  let servers: [TestServer, TestServer];
  let run = 0;
  beforeAll(async () => {
    const shared = store.fresh();
    // Each server's catalog closes the store it is given: only the last may.
    const borrowed = { ...shared, close: async () => {} };
    servers = [await startTestServer({ store: borrowed }), await startTestServer({ store: shared })];
  });
  afterAll(async () => {
    await servers?.[0]?.close();
    await servers?.[1]?.close();
  });

  async function write(writer: Writer, ids: readonly string[]): Promise<void> {
    const server = servers[writer.server];
    const token = TOKENS.admin;
    if (writer.kind === "patch") {
      const answers = await Promise.all(
        ids.map((id, n) =>
          server.request("PATCH", productPath(id, SITE), {
            token,
            headers: { "content-type": "application/merge-patch+json" },
            body: JSON.stringify({ [writer.field]: writer.values[n] }),
          }),
        ),
      );
      for (const answer of answers) expect(answer.status, await answer.text()).toBe(200);
      return;
    }
    const body =
      writer.kind === "csv"
        ? `id,${writer.field}\n${ids.map((id, n) => `${id},${writer.values[n]}`).join("\n")}\n`
        : ids.map((id, n) => `${JSON.stringify({ id, [writer.field]: writer.values[n] })}\n`).join("");
    const type = writer.kind === "csv" ? "text/csv" : "application/x-ndjson";
    const answer = await server.request("POST", BULK, { token, headers: { "content-type": type }, body });
    expect(answer.status, await answer.clone().text()).toBe(200);
    expect(await answer.json()).toMatchObject({ total: ids.length, created: 0 });
  }

  it("every change of every writer lands, as in some serial order of the writes", async () => {
    await fc.assert(
      fc.asyncProperty(writersArb, async (writers) => {
        run++;
        const bases = Array.from(
          { length: PRODUCTS },
          (_, n) =>
            product(`race-${run}-${n}`, `RACE-${run}-${n}`, { price: 1, description: "base" }) as unknown as Product,
        );
        const ids = bases.map((base) => base.id);
        const seeded = await servers[0].request("POST", BULK.replace("&mode=merge", ""), {
          token: TOKENS.admin,
          json: { products: bases },
        });
        expect(seeded.status).toBe(200);
        await Promise.all(writers.map((writer) => write(writer, ids)));
        const stored = await Promise.all(
          ids.map(async (id) => {
            const answer = await servers[1].request("GET", productPath(id, SITE, "&view=full"), {
              token: TOKENS.admin,
            });
            return (await answer.json()) as Product;
          }),
        );
        const orders = permutations(writers).map((order) => serially(bases, order));
        expect(orders).toContainEqual(stored);
      }),
      { numRuns: NUM_RUNS },
    );
    expect([...servers[0].errors, ...servers[1].errors]).toEqual([]);
  });
});
