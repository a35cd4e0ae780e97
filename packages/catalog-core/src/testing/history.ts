// The import history clauses of the storage contract (`saveImport`, `readImport`, `listImports`,
// `readImportProblems`), registered by testCatalogStore beside the others. A history is per
// site, so each test writes into sites of its own.
import fc from "fast-check";
import { expect, test } from "vitest";
import type { Site } from "../site.ts";
import type { CatalogStore, HistoryEntry } from "../store.ts";
import { uniqueSite } from "./arbitraries.ts";

// An id as the catalog makes them: ordered by `n`, with letters and digits after.
const idOf = (n: number, tail = "a") => `${n.toString(16).padStart(12, "0")}${tail}`;
const entryOf = (n: number, value = `{"n":${n}}`): HistoryEntry => ({ id: idOf(n), value });

/** Registers the import history clauses; `store()` gives the store under test once it is open. */
export function testHistory(store: () => CatalogStore, numRuns: number): void {
  const save = (site: Site, entries: readonly HistoryEntry[]) =>
    entries.reduce((done, entry) => done.then(() => store().saveImport(site, entry)), Promise.resolve());
  const ids = async (site: Site) => (await store().listImports(site, undefined, 1_000)).map(({ id }) => id);

  test("history: a saved record is read back, saved again in place, and none is undefined", async () => {
    const site = uniqueSite();
    expect(await store().readImport(site, idOf(1))).toBeUndefined();
    expect(await store().listImports(site, undefined, 10)).toEqual([]);
    await store().saveImport(site, entryOf(1, '{"state":"receiving","é":"😀"}'));
    expect(await store().readImport(site, idOf(1))).toBe('{"state":"receiving","é":"😀"}');
    await store().saveImport(site, entryOf(1, '{"state":"succeeded"}'));
    await store().saveImport(site, entryOf(1, '{"state":"succeeded"}'));
    expect(await store().listImports(site, undefined, 10)).toEqual([entryOf(1, '{"state":"succeeded"}')]);
  });

  test("history: a site's records are its own, sites differing only in siteType included", async () => {
    const site = uniqueSite("a");
    const twin = { siteType: "b", siteId: site.siteId };
    await store().saveImport(site, entryOf(1, "one"));
    await store().saveImport(twin, entryOf(2, "two"));
    expect(await store().readImport(site, idOf(2))).toBeUndefined();
    expect(await store().listImports(site, undefined, 10)).toEqual([entryOf(1, "one")]);
    expect(await store().listImports(twin, undefined, 10)).toEqual([entryOf(2, "two")]);
  });

  test("history: listImports pages newest first, each page after the last id of the one before", async () => {
    const site = uniqueSite();
    // Saved out of order: the order is the ids', not the saves'.
    await save(
      site,
      [5, 1, 4, 2, 3].map((n) => entryOf(n)),
    );
    const first = await store().listImports(site, undefined, 2);
    expect(first.map(({ id }) => id)).toEqual([idOf(5), idOf(4)]);
    const second = await store().listImports(site, idOf(4), 2);
    expect(second.map(({ id }) => id)).toEqual([idOf(3), idOf(2)]);
    expect(await store().listImports(site, idOf(2), 2)).toEqual([entryOf(1)]);
    expect(await store().listImports(site, idOf(1), 2)).toEqual([]);
    // `before` need not be an id the site holds.
    expect((await store().listImports(site, idOf(3, "z"), 1)).map(({ id }) => id)).toEqual([idOf(3)]);
  });

  test("history: a problem report is saved with its record, kept when saved again without one, read whole", async () => {
    const site = uniqueSite();
    expect(await store().readImportProblems(site, idOf(1))).toBeUndefined();
    await store().saveImport(site, entryOf(1));
    expect(await store().readImportProblems(site, idOf(1))).toBeUndefined();
    // About 2 MiB of lines, multi-byte characters and quotes included, as a 10,000-problem report is.
    const report = Array.from({ length: 10_000 }, (_, i) => `{"row":${i},"message":"prix «${i}» 😀 \\"x\\""}\n`).join(
      "",
    );
    await store().saveImport(site, entryOf(1, "ended"), { problems: report });
    expect(await store().readImportProblems(site, idOf(1))).toBe(report);
    await store().saveImport(site, entryOf(1, "ended again"));
    expect(await store().readImportProblems(site, idOf(1))).toBe(report);
    await store().saveImport(site, entryOf(1, "ended"), { problems: "" });
    expect(await store().readImportProblems(site, idOf(1))).toBe("");
  });

  test("history: trim keeps the newest records and none below before, their reports going with them", async () => {
    const site = uniqueSite();
    for (let n = 1; n <= 6; n++) await store().saveImport(site, entryOf(n), { problems: `p${n}` });
    await store().saveImport(site, entryOf(7), { trim: { keep: 4, before: idOf(0) } });
    expect(await ids(site)).toEqual([7, 6, 5, 4].map((n) => idOf(n)));
    expect(await store().readImportProblems(site, idOf(3))).toBeUndefined();
    expect(await store().readImport(site, idOf(3))).toBeUndefined();
    expect(await store().readImportProblems(site, idOf(4))).toBe("p4");
    await store().saveImport(site, entryOf(8), { trim: { keep: 1_000, before: idOf(6) } });
    expect(await ids(site)).toEqual([8, 7, 6].map((n) => idOf(n)));
    // The record saved stays, below `before` or past `keep`: a long import ends after later ones.
    await store().saveImport(site, entryOf(2), { trim: { keep: 1_000, before: idOf(6) } });
    expect(await ids(site)).toEqual([8, 7, 6, 2].map((n) => idOf(n)));
    await store().saveImport(site, entryOf(2, "ended"), { trim: { keep: 2, before: idOf(0) } });
    expect(await ids(site)).toEqual([8, 7, 2].map((n) => idOf(n)));
    expect(await store().readImport(site, idOf(2))).toBe("ended");
    const other = uniqueSite();
    await store().saveImport(other, entryOf(1), { trim: { keep: 1, before: idOf(0) } });
    expect(await ids(site)).toHaveLength(3);
  });

  test("history: any sequence of saves and trims leaves what a map of the records would (fast-check)", async () => {
    const command = fc.oneof(
      fc.record({ n: fc.integer({ min: 1, max: 12 }), value: fc.string({ maxLength: 20 }) }),
      fc.record({ keep: fc.integer({ min: 1, max: 8 }), below: fc.integer({ min: 0, max: 12 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(command, { maxLength: 12 }), fc.integer({ min: 1, max: 5 }), async (commands, page) => {
        const site = uniqueSite();
        const model = new Map<string, string>();
        for (const c of commands) {
          if ("n" in c) {
            const entry = { id: idOf(c.n), value: c.value };
            await store().saveImport(site, entry);
            model.set(entry.id, entry.value);
            continue;
          }
          const entry = entryOf(13);
          await store().saveImport(site, entry, { trim: { keep: c.keep, before: idOf(c.below) } });
          model.set(entry.id, entry.value);
          const kept = [...model.keys()].sort().reverse();
          for (const [rank, id] of kept.entries()) {
            if (id !== entry.id && (rank >= c.keep || id < idOf(c.below))) model.delete(id);
          }
        }
        const expected = [...model].sort(([a], [b]) => (a < b ? 1 : -1)).map(([id, value]) => ({ id, value }));
        const walked: HistoryEntry[] = [];
        for (let before: string | undefined, more = true; more; ) {
          const got = await store().listImports(site, before, page);
          walked.push(...got);
          before = got.at(-1)?.id;
          more = got.length === page;
        }
        expect(walked).toEqual(expected);
      }),
      { numRuns: Math.min(numRuns, 40) },
    );
  });
}
