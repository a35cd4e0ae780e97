// Lookups answered from the store's read cache never outlive a commit: one made through another
// connection on the file (another server, here another store) is seen by the next lookup, and
// lookups of different sites and keys never share an answer.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStore } from "@catalog-kit/adapter-sqlite";
import { DecodedBodies, decodeProduct, encodeProduct, type Site, siteKey } from "@catalog-kit/catalog-core";
import { uniqueSite } from "@catalog-kit/catalog-core/testing";
import fc from "fast-check";
import { afterAll, expect, test } from "vitest";
import { MATCH } from "../src/lookup-sql.ts";
import { openConnection } from "../src/open.ts";
import { type ChangeSignal, dataVersionSignal, ReadCache } from "../src/read-cache.ts";
import { importInChunks, product } from "./support/fixtures.ts";

const dir = mkdtempSync(join(tmpdir(), "catalog-sqlite-reads-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a lookup sees what another connection on the file committed since the last one", async () => {
  const path = join(dir, "shared.db");
  const [reader, writer] = [createSqliteStore({ path }), createSqliteStore({ path })];
  try {
    const site = uniqueSite();
    await importInChunks(writer, site, [product("p1", "s1", "first")]);
    expect(await reader.find(site, "p1")).toMatchObject({ title: expect.stringContaining("first") });
    expect(await reader.find(site, "p2")).toBeUndefined();
    // Asked again: kept, and still a copy of its own.
    const kept = await reader.find(site, "p1");
    if (kept === undefined) throw new Error("p1 was not found");
    kept.title = "changed by the caller";
    expect(await reader.find(site, "p1")).toMatchObject({ title: expect.stringContaining("first") });

    await importInChunks(writer, site, [product("p1", "s1", "second"), product("p2", "s2", "second")]);
    expect(await reader.find(site, "p1")).toMatchObject({ title: expect.stringContaining("second") });
    expect(await reader.find(site, "s2", "sku")).toMatchObject({ id: "p2" });
    expect(await reader.find(site, "p2")).toMatchObject({ id: "p2" });

    await writer.remove(site, "p1");
    expect(await reader.find(site, "p1")).toBeUndefined();
  } finally {
    await Promise.all([reader.close(), writer.close()]);
  }
});

test("lookups of sites and keys that a naive joined key would confuse keep apart", async () => {
  const store = createSqliteStore({ path: join(dir, "apart.db") });
  try {
    const sites: Site[] = [
      { siteType: "t", siteId: "a" },
      { siteType: "t", siteId: "a:1:b" },
      { siteType: "t:1", siteId: "a" },
    ];
    for (const [i, site] of sites.entries())
      await importInChunks(store, site, [product(`k${i}`, `sku${i}`, `site ${i}`)]);
    for (const [i, site] of sites.entries()) {
      for (const [j] of sites.entries()) {
        const found = await store.find(site, `k${j}`);
        if (i === j) expect(found).toMatchObject({ id: `k${i}` });
        else expect(found).toBeUndefined();
      }
    }
  } finally {
    await store.close();
  }
});

test("answers what the database holds at every lookup, within its limits, whatever evicts what", () => {
  fc.assert(
    fc.property(
      fc.array(
        // Mostly lookups, so that the cache fills and evicts between the writes that empty it.
        fc.oneof(
          { arbitrary: fc.record({ look: fc.integer({ min: 0, max: 30 }) }), weight: 12 },
          {
            arbitrary: fc.record({ write: fc.integer({ min: 0, max: 30 }), title: fc.string({ maxLength: 40 }) }),
            weight: 1,
          },
          { arbitrary: fc.record({ erase: fc.integer({ min: 0, max: 30 }) }), weight: 1 },
        ),
        { maxLength: 200 },
      ),
      fc.integer({ min: 1, max: 12 }),
      fc.integer({ min: 1, max: 3_000 }),
      (steps, entries, chars) => {
        const held = new Map<string, string>();
        let changed = true;
        const signal: ChangeSignal = {
          changed: () => {
            const was = changed;
            changed = false;
            return was;
          },
          close() {},
        };
        const cache = new ReadCache(signal, new DecodedBodies(), { entries, chars });
        for (const step of steps) {
          if ("look" in step) {
            const key = `k${step.look}`;
            const found = cache.lookup(key, () => held.get(key));
            const body = held.get(key);
            expect(found).toEqual(body === undefined ? undefined : decodeProduct(body));
          } else if ("write" in step) {
            held.set(`k${step.write}`, encodeProduct(product(`k${step.write}`, `s${step.write}`, step.title)));
            changed = true;
          } else {
            held.delete(`k${step.erase}`);
            changed = true;
          }
          const inside = cache as unknown as { kept: Map<string, { chars: number }>; keys: string[]; chars: number };
          expect(inside.kept.size).toBeLessThanOrEqual(entries);
          expect(inside.chars).toBeLessThanOrEqual(chars);
          expect(new Set(inside.keys)).toEqual(new Set(inside.kept.keys()));
          expect(inside.keys).toHaveLength(inside.kept.size);
        }
      },
    ),
  );
});

test("where the WAL index cannot be read, data_version tells a lookup that another connection committed", async () => {
  const path = join(dir, "fallback.db");
  const writer = createSqliteStore({ path });
  const connection = openConnection(path, 1_000);
  try {
    const site = uniqueSite();
    const cache = new ReadCache(dataVersionSignal(connection), new DecodedBodies());
    const read = () =>
      cache.lookup(`p1:${siteKey(site)}`, () => {
        const row = connection.statement(MATCH.id).get(siteKey(site), "p1") as { body: string } | undefined;
        return row?.body;
      });
    expect(read()).toBeUndefined();
    await importInChunks(writer, site, [product("p1", "s1", "first")]);
    expect(read()).toMatchObject({ title: expect.stringContaining("first") });
    await importInChunks(writer, site, [product("p1", "s1", "second")]);
    expect(read()).toMatchObject({ title: expect.stringContaining("second") });
  } finally {
    connection.close();
    await writer.close();
  }
});
