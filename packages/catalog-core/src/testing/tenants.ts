// The tenants registry clauses of the storage contract (`readTenants`, `writeTenant`), registered
// by testCatalogStore beside the others. The registry is one per store, not per site, and the
// store under test may hold entries of other tests: each test writes keys of its own and asserts
// only facts about them and about the version's moves, never an empty registry.
import fc from "fast-check";
import { expect, test } from "vitest";
import type { CatalogStore, TenantEntries, TenantWrite } from "../store.ts";

// Keys of one test: a prefix no other test uses.
const prefixed = () => `test:${crypto.randomUUID()}:`;

// The entries whose key starts with `prefix`, as a Map (the order of entries is the store's).
function own(read: TenantEntries, prefix: string): Map<string, string> {
  return new Map(read.entries.filter(({ key }) => key.startsWith(prefix)).map(({ key, value }) => [key, value]));
}

// Text of exactly `bytes` UTF-8 bytes, with one-, two- and four-byte characters.
function textOfBytes(bytes: number): string {
  const unit = 'a"é\\😀\n'; // 1 + 1 + 2 + 1 + 4 + 1 = 10 bytes
  const whole = unit.repeat(Math.floor(bytes / 10));
  return whole + "x".repeat(bytes - Buffer.byteLength(whole));
}

/** Registers the tenants registry clauses; `store()` gives the store under test once it is open. */
export function testTenants(store: () => CatalogStore, numRuns: number): void {
  const read = async (since?: number) => store().readTenants(since);
  const readAll = async () => (await read()) as TenantEntries;
  const write = (key: string, value: string | null, when: TenantWrite["when"]) =>
    store().writeTenant({ key, value, when });

  test("tenants: the version is a whole number, 0 only while the registry is empty", async () => {
    const now = await readAll();
    expect(Number.isSafeInteger(now.version) && now.version >= 0).toBe(true);
    if (now.version === 0) expect(now.entries).toEqual([]);
    expect(await write(`${prefixed()}k`, "{}", "absent")).toBe(true);
    const after = await readAll();
    expect(after.version).toBeGreaterThan(0);
  });

  test("tenants: a created entry is read back, and the version grows with each applied write", async () => {
    const prefix = prefixed();
    const before = await readAll();
    expect(await write(`${prefix}a`, '{"n":1}', "absent")).toBe(true);
    const one = await readAll();
    expect(one.version).toBeGreaterThan(before.version);
    expect(own(one, prefix)).toEqual(new Map([[`${prefix}a`, '{"n":1}']]));
    expect(await write(`${prefix}a`, '{"n":2}', "present")).toBe(true);
    const two = await readAll();
    expect(two.version).toBeGreaterThan(one.version);
    expect(own(two, prefix)).toEqual(new Map([[`${prefix}a`, '{"n":2}']]));
  });

  test("tenants: readTenants(since) is undefined while the version is still since, the registry once it moved", async () => {
    const prefix = prefixed();
    const now = await readAll();
    expect(await read(now.version)).toBeUndefined();
    expect(await read(now.version)).toBeUndefined();
    await write(`${prefix}a`, "1", "absent");
    const moved = await read(now.version);
    expect(moved).toBeDefined();
    expect(own(moved as TenantEntries, prefix)).toEqual(new Map([[`${prefix}a`, "1"]]));
    expect(await read((moved as TenantEntries).version)).toBeUndefined();
    // A version the store never had (a reader of another store, a restart) gets the registry.
    expect(await read(-1)).toEqual(await readAll());
  });

  test("tenants: a refused write (absent on an existing key, present on a missing one) changes nothing", async () => {
    const prefix = prefixed();
    await write(`${prefix}held`, "kept", "absent");
    const before = await readAll();
    expect(await write(`${prefix}held`, "other", "absent")).toBe(false);
    expect(await write(`${prefix}missing`, "other", "present")).toBe(false);
    expect(await write(`${prefix}missing`, null, "present")).toBe(false);
    expect(await read(before.version)).toBeUndefined();
    expect(own(await readAll(), prefix)).toEqual(new Map([[`${prefix}held`, "kept"]]));
  });

  test("tenants: present with value null deletes the entry, and the key can be created again", async () => {
    const prefix = prefixed();
    await write(`${prefix}a`, "1", "absent");
    await write(`${prefix}b`, "2", "absent");
    const before = await readAll();
    expect(await write(`${prefix}a`, null, "present")).toBe(true);
    const after = await readAll();
    expect(after.version).toBeGreaterThan(before.version);
    expect(own(after, prefix)).toEqual(new Map([[`${prefix}b`, "2"]]));
    expect(await write(`${prefix}a`, null, "present")).toBe(false);
    expect(await write(`${prefix}a`, "3", "absent")).toBe(true);
    expect(own(await readAll(), prefix).get(`${prefix}a`)).toBe("3");
  });

  test("tenants: keys of any Unicode text up to 1,024 characters and values of 64 KiB are kept exactly", async () => {
    const prefix = prefixed();
    const odd = ["{", "}", ":", "*", "?", "[x]", "\\", "%", " ", "'", '"', "é", "😀", "\u{10FFFF}", "\u200d", "\t"];
    const long = `${prefix}${"😀é{}".repeat(300)}`.slice(0, 1_024);
    const keys = [...odd.map((text) => `${prefix}${text}`), long];
    expect(long.length).toBe(1_024);
    expect(long.isWellFormed()).toBe(true);
    const big = textOfBytes(64 * 1024);
    for (const [i, key] of keys.entries()) expect(await write(key, i === 0 ? big : `v${i}`, "absent")).toBe(true);
    const found = own(await readAll(), prefix);
    expect(found.size).toBe(keys.length);
    for (const [i, key] of keys.entries()) expect(found.get(key) === (i === 0 ? big : `v${i}`)).toBe(true);
    // A key that only differs in case or normalization is another key.
    expect(await write(`${prefix}É`, "upper", "absent")).toBe(true);
    expect(await write(`${prefix}e\u0301`, "decomposed", "absent")).toBe(true);
    expect(own(await readAll(), prefix).get(`${prefix}é`)).toBe(`v${odd.indexOf("é")}`);
  });

  test("tenants: entries read are one moment's: reads of one version agree, and a later version never has fewer", async () => {
    const prefix = prefixed();
    const writes = 30;
    let writing = true;
    const writer = (async () => {
      for (let i = 0; i < writes; i++) await write(`${prefix}${i}`, `${i}`, "absent");
      writing = false;
    })();
    // Each read's version and how many of this test's entries it had.
    const reads: [number, number][] = [];
    const reader = async () => {
      while (writing) {
        const each = await readAll();
        reads.push([each.version, own(each, prefix).size]);
        // A store whose reads answer at once would otherwise never let the writes' replies in.
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    await Promise.all([writer, reader(), reader(), reader()]);
    const last = await readAll();
    reads.push([last.version, own(last, prefix).size]);
    const byVersion = new Map<number, number>();
    for (const [version, size] of reads) {
      expect(byVersion.get(version) ?? size).toBe(size);
      byVersion.set(version, size);
    }
    const sizes = [...byVersion].sort(([a], [b]) => a - b).map(([, size]) => size);
    for (let i = 1; i < sizes.length; i++) expect(sizes[i]).toBeGreaterThanOrEqual(sizes[i - 1] as number);
    expect(sizes.at(-1)).toBe(writes);
  });

  test("tenants: of creations of one key at once, exactly one applies, and its value is kept", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 10 }), async (racers) => {
        const key = `${prefixed()}race`;
        const answers = await Promise.all(Array.from({ length: racers }, (_, i) => write(key, `${i}`, "absent")));
        expect(answers.filter(Boolean)).toHaveLength(1);
        const winner = answers.indexOf(true);
        expect(own(await readAll(), key).get(key)).toBe(`${winner}`);
        // And of deletions of it at once, exactly one.
        const deletions = await Promise.all(Array.from({ length: racers }, () => write(key, null, "present")));
        expect(deletions.filter(Boolean)).toHaveLength(1);
      }),
      { numRuns: Math.min(numRuns, 10) },
    );
  });

  test("tenants model: random writes and reads agree with a Map", async () => {
    const op = fc.oneof(
      fc.record({
        key: fc.constantFrom("a", "b", "c", "{x}"),
        value: fc.option(fc.string({ maxLength: 8 }).filter((s) => s.isWellFormed() && !s.includes("\u0000"))),
        when: fc.constantFrom("absent" as const, "present" as const),
      }),
      fc.constant("read" as const),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 20 }), async (ops) => {
        const prefix = prefixed();
        const model = new Map<string, string>();
        let seen = (await readAll()).version;
        let changed = false;
        for (const each of ops) {
          if (each === "read") {
            const since = await read(seen);
            if (!changed) expect(since).toBeUndefined();
            else {
              expect(since?.version).toBeGreaterThan(seen);
              expect(own(since as TenantEntries, prefix)).toEqual(model);
              seen = (since as TenantEntries).version;
            }
            changed = false;
            continue;
          }
          const key = `${prefix}${each.key}`;
          const applies = model.has(key) === (each.when === "present");
          expect(await write(key, each.value, each.when)).toBe(applies);
          if (!applies) continue;
          if (each.value === null) model.delete(key);
          else model.set(key, each.value);
          changed = true;
        }
        expect(own(await readAll(), prefix)).toEqual(model);
      }),
      { numRuns: Math.min(numRuns, 30) },
    );
  }, 120_000);
}
